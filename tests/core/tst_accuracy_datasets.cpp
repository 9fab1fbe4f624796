// Accuracy of the learned predictor on public measurements of real training
// runs (tests/data/measurements, converted by scripts/datasets/), under the
// protocol of docs/ACCURACY.md: the minimal set chosen among a dataset's runs
// trains the model, every other run scores it. The bounds are the accuracy
// reached when this test was written with a margin, so a regression fails CI;
// docs/ACCURACY.md has the full tables (scripts/accuracy-report).
#include "TestPaths.h"

#include "hardware/GpuCatalog.h"
#include "accuracy/AccuracyEvaluator.h"
#include "accuracy/AccuracyProtocol.h"
#include "accuracy/RankingDecisions.h"
#include "measure/MeasurementCsv.h"

#include "TestMain.h"

#include <cmath>

namespace tst_accuracy_datasets {

using memx::AccuracyProtocol;
using memx::MeasurementCsv;
using memx::ProtocolResult;

namespace {

ProtocolResult protocol(const char* file)
{
    const std::string path = memx::test::dataFile(std::string("measurements/") + file);
    AccuracyProtocol::Options opt;
    opt.trainer.initialPoints = 4;
    opt.trainer.iterations = 2;
    opt.trainer.seed = 0;
    return AccuracyProtocol::run(MeasurementCsv::read(path).rows, path, opt);
}

void print(const char* name, const ProtocolResult& r)
{
    qInfo("%s: trained on %zu of %zu runs", name, r.trainRuns.size(), r.runs);
    qInfo("analytic:\n%s", r.analytic.formatText().c_str());
    qInfo("calibrated:\n%s", r.calibrated.formatText().c_str());
    qInfo("learned:\n%s", r.learned.formatText().c_str());
}

}  // namespace

class TestAccuracyDatasets : public QObject {
    Q_OBJECT
private slots:
    void sailorLayerTimes();
    void simumaxB200();
    void megatronCi();
    void mistAcesoLeaveOneOut();
    void megatronCiRepeatFloor();
};

// Sailor: one transformer layer's forward+backward time on A100-40GB, GH200,
// RTX-3090 (tf32), V100-16GB, Titan-RTX and RTX-2080 (fp32) at several
// micro-batch sizes and TP degrees.
void TestAccuracyDatasets::sailorLayerTimes()
{
    const ProtocolResult r = protocol("sailor_layers.csv");
    print("sailor", r);
    QVERIFY(r.trainRuns.size() * 4 < r.runs);  // the minimal set is a small part of the data
    const auto& l = r.learned.stageTime;
    const auto& a = r.analytic.stageTime;
    QCOMPARE(l.n, a.n);
    QVERIFY(l.n >= 90);
    // Modelled in the precision the profiles ran in (67.9% when taken as bf16)
    // with their GeLU MLP, the unfused attention and dropout 0.1 of Sailor's
    // launch (no --use-flash-attn) and the consumer cards' TP on a 25 GB/s
    // PCIe switch: 22.9% (27.9% with FlashAttention and no dropout, 31.3% on
    // the 16 GB/s the synthetic cluster gave every PCIe card); learned 19.1%
    // (22.6%). With fp32's three softmax kernels (scale, mask, softmax) in
    // place of Megatron's fused fp16/bf16 one: 19.4% and 16.5%; with the
    // softmax and dropout backwards at their own traffic (3 and 1 accesses
    // per score and byte, not twice the forward's): 20.2% and 17.2%. With
    // the runs on clusters wired as Sailor measured its machines (the
    // cluster column; RTX-3090 pairs on a 50 GB/s NVLink bridge, 3.9 GB/s
    // across pairs, 1.3 GB/s across the node's halves; V100 stays on the
    // synthetic cluster): 13.7% and 11.2%; with GH200's host times scaled to
    // its Grace CPU (2.46x, TransformerEngine issue #2053): 13.0% and 10.5%.
    // Issue #12's targets: 25% and 12%.
    QVERIFY2(a.mape < 15.0, qPrintable(QString::number(a.mape)));
    QVERIFY2(l.mape < 12.0, qPrintable(QString::number(l.mape)));
    QVERIFY2(l.mape < a.mape, qPrintable(QString("learned %1 vs analytic %2").arg(l.mape).arg(a.mape)));
    // Calibration fits an efficiency factor per type (x0.84 to x1.77 on 3 runs each).
    QVERIFY2(r.calibrated.stageTime.mape < 12.0, qPrintable(QString::number(r.calibrated.stageTime.mape)));
}

// SimuMax: Megatron-LM LLaMA-3 runs on 8 B200 with time and per-rank memory.
void TestAccuracyDatasets::simumaxB200()
{
    const ProtocolResult r = protocol("simumax_b200.csv");
    print("simumax", r);
    const auto& t = r.learned.iterationTime;
    QVERIFY(t.n >= 20);
    // The 8 B200 of a run on NVLink 5 (900 GB/s per direction): analytic
    // 7.8%, calibrated and learned 4.9% (10.9% and 5.2% when the synthetic
    // cluster gave every NVLink 200 GB/s and over-charged TP 8 and the DP
    // collectives); issue #12's targets are 8% and 5%.
    QVERIFY2(r.analytic.iterationTime.mape < 8.0, qPrintable(QString::number(r.analytic.iterationTime.mape)));
    QVERIFY2(t.mape < 5.0, qPrintable(QString::number(t.mape)));
    QCOMPARE(t.severeShare, 0.0);
    QVERIFY2(r.calibrated.iterationTime.mape < 5.0, qPrintable(QString::number(r.calibrated.iterationTime.mape)));
    // Memory: 4.5% analytic, 3.1% learned until Transformer Engine's cached
    // placeholder weight gradients (one per weight shape, 6.4 GB at TP 1 on
    // the 405B layers) were part of the gradient term; now 1.2% both (the
    // 405B runs had been 2-8% under, the more the smaller the TP degree);
    // issue #12's target is 3%.
    QVERIFY2(r.analytic.memory.mape < 2.0, qPrintable(QString::number(r.analytic.memory.mape)));
    QVERIFY2(r.learned.memory.mape < 2.0, qPrintable(QString::number(r.learned.memory.mape)));
    QVERIFY2(r.learned.spearman >= 0.95, qPrintable(QString::number(r.learned.spearman)));
    QVERIFY2(r.learned.decisions.summary.regretMedianPct <= 5.0,
             qPrintable(QString::number(r.learned.decisions.summary.regretMedianPct)));
}

// Megatron-LM CI: mostly tiny models whose time is dominated by overheads the
// analytic model does not have; memory is the last stage's.
void TestAccuracyDatasets::megatronCi()
{
    const ProtocolResult r = protocol("megatron_ci.csv");
    print("megatron ci", r);
    QVERIFY(r.learned.iterationTime.n >= 200);
    QVERIFY2(r.learned.iterationTime.mape < r.analytic.iterationTime.mape,
             qPrintable(QString("learned %1 vs analytic %2")
                            .arg(r.learned.iterationTime.mape)
                            .arg(r.analytic.iterationTime.mape)));
    // Allocated against allocated (peak_mem_kind), each case with its own
    // attention backend, dropout masks, sequence parallelism and distributed
    // optimizer (the golden values' columns; most cases run neither): analytic
    // 10.9% (20.8% while every run was predicted with sequence parallelism and
    // a sharded optimizer, 31.4% while also with FlashAttention and no
    // dropout), calibrated (memory multiplier and framework buffers per type)
    // and learned 6.9% (10.8%); issue #12's target is 10%.
    QVERIFY2(r.analytic.memory.mape < 12.0, qPrintable(QString::number(r.analytic.memory.mape)));
    QVERIFY2(r.learned.memory.mape < 8.0, qPrintable(QString::number(r.learned.memory.mape)));
    QVERIFY(r.learned.memory.mape < r.analytic.memory.mape * 0.7);
    QVERIFY2(r.calibrated.memory.mape < 8.0, qPrintable(QString::number(r.calibrated.memory.mape)));
    // Host time per kernel and per iteration, fitted to the 31 training runs
    // (20 before the minimal set told runs with and without sequence
    // parallelism and a sharded optimizer apart): 15.6% (16.0%; 17.5% while
    // the interleaved PP-4 runs' bubble was divided by v as a whole,
    // IterationComposer). Outlying A100 runs of the minimal set (a 433.9 ms
    // repeat of a configuration whose other repeats took ~150 ms) are left
    // out of the fit; kept in, that one pulled the fit to 103 ms per
    // iteration and 49 us per kernel and the error to 22.5%
    // (docs/ANALYTIC_ACCURACY.md, "Calibration"). The trees' time correction
    // and the run-level correction do worse on held-out runs and their gates
    // keep them closed. With each case's data-parallel overlap flags and its
    // layer style (most cases GPT's: learned positions, so no rotary kernel
    // in every layer) the minimal set has 49 runs: calibrated and learned
    // 14.4% (14.3% with the optimizer step timed by the operator model),
    // inside issue #12's 15% (15.2% before, and 15.2% with the overlap flags
    // alone, where the run-level correction passed its gate and cost half a
    // point on held-out runs).
    QVERIFY2(r.calibrated.iterationTime.mape < 15.0, qPrintable(QString::number(r.calibrated.iterationTime.mape)));
    QVERIFY2(r.learned.iterationTime.mape < 15.0, qPrintable(QString::number(r.learned.iterationTime.mape)));
    QVERIFY2(r.learned.spearman >= r.analytic.spearman,
             qPrintable(QString("learned %1 vs analytic %2").arg(r.learned.spearman).arg(r.analytic.spearman)));
    // Acting on the ranking: 4 groups of competing configurations (repeats of
    // one configuration merged at their median time). The learned pick is the
    // fastest in each, and issue #12 asks for a median regret <= 5%.
    const memx::RankingDecisions::Summary& d = r.learned.decisions.summary;
    QVERIFY2(d.groups >= 4, qPrintable(QString::number(d.groups)));
    QVERIFY2(d.regretMedianPct <= 5.0, qPrintable(QString::number(d.regretMedianPct)));
    QVERIFY2(d.hitTop3 >= 0.75, qPrintable(QString::number(d.hitTop3)));
}

// Mist/Aceso: three complete A10G runs, all in the minimal set, so each is
// scored by a model trained on the other two.
void TestAccuracyDatasets::mistAcesoLeaveOneOut()
{
    const ProtocolResult r = protocol("mist_aceso.csv");
    print("mist", r);
    QVERIFY(r.leaveOneOut);
    QCOMPARE(r.learned.iterationTime.n, std::size_t(3));
    // Modelled as they ran (the logged arguments: 2021-era Megatron-LM,
    // unfused attention with dropout 0.1 and hidden dropout 0.1, tied
    // embeddings): calibrated and learned 2.9% (23.7% while modelled with
    // FlashAttention and no dropout, which made the three model sizes
    // disagree on the A10G's throughput). The catalog's A10G is slow by about
    // the calibrated efficiency factor 2.2: analytic 75.0% (45.4% before).
    // With the A10G's 80 SMs (72 until 2026-12-04, the A10's): analytic
    // 67.2%, calibrated and learned 4.7%. With GPT's layer (learned
    // positions, no rotary kernel; LayerNorm and biases) rather than LLaMA's:
    // analytic 66.5%, calibrated and learned 5.1% in iteration time and 5.4%
    // in stage time (4.95% before): the rotary kernel's launches had stood in
    // for some host time the fit now spreads over the other kernels.
    QVERIFY2(r.learned.iterationTime.mape < 6.0, qPrintable(QString::number(r.learned.iterationTime.mape)));
    QVERIFY(r.learned.iterationTime.mape < r.analytic.iterationTime.mape * 0.2);
    QVERIFY2(r.calibrated.iterationTime.mape < 6.0, qPrintable(QString::number(r.calibrated.iterationTime.mape)));
    QVERIFY2(r.calibrated.stageTime.mape < 6.0, qPrintable(QString::number(r.calibrated.stageTime.mape)));
}

// Megatron-LM CI measures most configurations several times with different
// results. The floor that sets, over the 276 runs the planner completes,
// computed from the CSV alone by scripts/datasets/repeat_floor.py
// tests/data/measurements/megatron_ci.csv --skip
// account_for_embedding_loss_in_pipeline_split: 60 of 74 configurations
// repeated; 8.17 % in iteration time, 4.79 % in peak memory. (Before the
// rows said each case's layer style, rotary or learned positions, RMSNorm or
// LayerNorm, linear biases or not: 57 of 71, 8.24 % and 4.81 %; before they
// said whether each case overlapped its data-parallel collectives: 51
// of 64, 8.34 % and 4.82 %; before they said whether it ran sequence
// parallelism and the distributed optimizer: 45 of 57, 9.02 % and 5.46 %;
// before they said which attention, dropout and embeddings it ran: 29 of 34,
// 10.31 % and 11.90 %.)
void TestAccuracyDatasets::megatronCiRepeatFloor()
{
    const std::string path = memx::test::dataFile("measurements/megatron_ci.csv");
    const memx::AccuracyReport r = memx::AccuracyEvaluator::evaluate(MeasurementCsv::read(path).rows, path,
                                                                     memx::GpuCatalog::builtin(), nullptr, nullptr);
    QCOMPARE(r.runs, std::size_t(276));
    QCOMPARE(r.iterationTimeFloor.configurations, std::size_t(74));
    QCOMPARE(r.iterationTimeFloor.repeated, std::size_t(60));
    QCOMPARE(r.memoryFloor.n, std::size_t(272));
    QVERIFY2(std::abs(r.iterationTimeFloor.mapePct - 8.17) < 0.005,
             qPrintable(QString::number(r.iterationTimeFloor.mapePct)));
    QVERIFY2(std::abs(r.memoryFloor.mapePct - 4.79) < 0.005, qPrintable(QString::number(r.memoryFloor.mapePct)));
    // No prediction of the memory can beat it; the analytic model is above it.
    QVERIFY(r.memory.mape > r.memoryFloor.mapePct);
}

MEMX_TEST_GUILESS_MAIN(TestAccuracyDatasets)
}  // namespace tst_accuracy_datasets

#include "tst_accuracy_datasets.moc"
