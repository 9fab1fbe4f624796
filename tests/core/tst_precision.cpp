// Training precision and memory kinds (docs/PRECISION.md). Every expected
// number is worked out by hand in the comment beside it, or comes from
// Megatron-LM's distributed-optimizer table or a vendor datasheet.
#include "TestPaths.h"

#include "export/MegatronExport.h"
#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "model/LayerOperators.h"
#include "TestModels.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"
#include "predict/AnalyticPredictor.h"
#include "predict/OperatorCost.h"
#include "measure/MeasurementCsv.h"
#include "learn/TrainingSet.h"
#include "space/JobPrecision.h"
#include "space/Problem.h"

#include "TestMain.h"
#include "TestMetaTypes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace tst_precision {

using namespace memx;

}  // namespace tst_precision
Q_DECLARE_METATYPE(memx::Precision)
namespace tst_precision {

namespace {

// A tiny made-up model (tests/TestModels.h): h=64, a=4, d=16, g=2, f=128, V=1000, L=2.
ModelSpec tiny() { return memx::test::tinyModel(); }

std::string errorOf(const std::string& setting, const Cluster& c)
{
    try {
        jobPrecision(setting, c);
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

const char* const kHeader
    = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,peak_mem_mib,precision,"
      "peak_mem_kind\n";

}  // namespace

class TestPrecision : public QObject {
    Q_OBJECT
private slots:
    void bytesPerParameter_data();
    void bytesPerParameter();
    void activationBytes_data();
    void activationBytes();
    void logitsAndBoundary();
    void autoPrecision_data();
    void autoPrecision();
    void refusesWhatATypeLacks_data();
    void refusesWhatATypeLacks();
    void autoWithNothingInCommon();
    void gemmRunsAtThePrecisionsPeak_data();
    void gemmRunsAtThePrecisionsPeak();
    void fp32HasNoFlashAttention();
    void stageMemoryFollowsPrecision();
    void wgradBuffersWhereTransformerEngineRuns_data();
    void wgradBuffersWhereTransformerEngineRuns();
    void memoryKinds();
    void measurementColumns();
    void measurementColumnsRefused_data();
    void measurementColumnsRefused();
    void labelsCompareLikeWithLike();
    void exporterFlags();
};

// Megatron-LM docs/source/api-guide/dist_optimizer.md: 16 (fp32 param and
// grad), 20 (fp16/fp16), 18 (bf16/fp32); distributed: 8+8/d, 4+16/d, 6+12/d.
// fp8: bf16's 18 plus Transformer Engine's cached fp8 weight copy (1 byte).
void TestPrecision::bytesPerParameter_data()
{
    QTest::addColumn<Precision>("p");
    QTest::addColumn<double>("replicated");
    QTest::addColumn<double>("distributedD4");
    QTest::newRow("fp32") << Precision::Fp32 << 16.0 << 8.0 + 8.0 / 4;
    QTest::newRow("tf32") << Precision::Tf32 << 16.0 << 8.0 + 8.0 / 4;
    QTest::newRow("fp16") << Precision::Fp16 << 20.0 << 4.0 + 16.0 / 4;
    QTest::newRow("bf16") << Precision::Bf16 << 18.0 << 6.0 + 12.0 / 4;
    QTest::newRow("fp8") << Precision::Fp8 << 19.0 << 7.0 + 12.0 / 4;
}

void TestPrecision::bytesPerParameter()
{
    QFETCH(Precision, p);
    QFETCH(double, replicated);
    QFETCH(double, distributedD4);
    using TM = TransformerMath;
    QCOMPARE(TM::weightBytesPerParam(p) + TM::gradBytesPerParam(p) + TM::optimizerBytesPerParam(1, false, p),
             replicated);
    QCOMPARE(TM::weightBytesPerParam(p) + TM::gradBytesPerParam(p) + TM::optimizerBytesPerParam(4, true, p),
             distributedD4);
}

// tiny, b=2, s=8 (sb = 16), flash attention, no recomputation.
// bf16 per token 12h + 4gd + 6f = 768 + 128 + 768 = 1664 -> 26624 bytes.
// fp32 doubles every element: 53248. fp8 keeps the QKV, projection and FC1
// inputs (h each) and the FC2 input (f) in 1 byte: 1664 - (3*64 + 128) = 1344
// -> 21504.
// TP 2 with sequence parallelism divides by 2. Without it the norm inputs
// (4sbh in bf16), QKV and MLP inputs (2 x 2sbh) stay whole: bf16 8*16*64 =
// 8192 + (26624 - 8192)/2 = 17408; fp8 16*64*(4 + 2) = 6144 + (21504 -
// 6144)/2 = 13824; fp32 16384 + (53248 - 16384)/2 = 34816.
// Full recomputation keeps the layer input 2sbh: 2048 (4096 in fp32).
void TestPrecision::activationBytes_data()
{
    QTest::addColumn<Precision>("p");
    QTest::addColumn<int>("t");
    QTest::addColumn<bool>("sp");
    QTest::addColumn<Recompute>("r");
    QTest::addColumn<double>("bytes");
    QTest::newRow("bf16") << Precision::Bf16 << 1 << true << Recompute::None << 26624.0;
    QTest::newRow("fp16 = bf16") << Precision::Fp16 << 1 << true << Recompute::None << 26624.0;
    QTest::newRow("fp32") << Precision::Fp32 << 1 << true << Recompute::None << 53248.0;
    QTest::newRow("tf32 = fp32") << Precision::Tf32 << 1 << true << Recompute::None << 53248.0;
    QTest::newRow("fp8") << Precision::Fp8 << 1 << true << Recompute::None << 21504.0;
    QTest::newRow("bf16 tp2 sp") << Precision::Bf16 << 2 << true << Recompute::None << 13312.0;
    QTest::newRow("fp8 tp2 sp") << Precision::Fp8 << 2 << true << Recompute::None << 10752.0;
    QTest::newRow("bf16 tp2 no sp") << Precision::Bf16 << 2 << false << Recompute::None << 17408.0;
    QTest::newRow("fp8 tp2 no sp") << Precision::Fp8 << 2 << false << Recompute::None << 13824.0;
    QTest::newRow("fp32 tp2 no sp") << Precision::Fp32 << 2 << false << Recompute::None << 34816.0;
    QTest::newRow("bf16 full") << Precision::Bf16 << 1 << true << Recompute::Full << 2048.0;
    QTest::newRow("fp32 full") << Precision::Fp32 << 1 << true << Recompute::Full << 4096.0;
    QTest::newRow("fp8 full") << Precision::Fp8 << 1 << true << Recompute::Full << 2048.0;
}

void TestPrecision::activationBytes()
{
    QFETCH(Precision, p);
    QFETCH(int, t);
    QFETCH(bool, sp);
    QFETCH(Recompute, r);
    QFETCH(double, bytes);
    QCOMPARE(TransformerMath::layerActivationBytes(tiny(), 2, 8, t, true, r, sp, p), bytes);
}

void TestPrecision::logitsAndBoundary()
{
    // Logits: output (2 or 4 bytes) + the fp32 cross-entropy copy, sbV = 16000.
    QCOMPARE(TransformerMath::logitsBytes(tiny(), 2, 8, 1, Precision::Bf16), 6.0 * 16000);
    QCOMPARE(TransformerMath::logitsBytes(tiny(), 2, 8, 1, Precision::Fp32), 8.0 * 16000);
    // Boundary activation sbh = 1024 elements.
    QCOMPARE(TransformerMath::boundaryActivationBytes(tiny(), 2, 8, 1, Precision::Bf16), 2048.0);
    QCOMPARE(TransformerMath::boundaryActivationBytes(tiny(), 2, 8, 1, Precision::Fp32), 4096.0);
}

void TestPrecision::autoPrecision_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<Precision>("expected");
    QTest::newRow("A100 has bf16") << "homogeneous-8xa100.json" << Precision::Bf16;
    QTest::newRow("V100 and T4 have no bf16") << "paper-6gpu-v100-t4.json" << Precision::Fp16;
    QTest::newRow("H100, H20, 910B") << "modern-h100-h20-910b.json" << Precision::Bf16;
}

void TestPrecision::autoPrecision()
{
    QFETCH(QString, cluster);
    QFETCH(Precision, expected);
    const Cluster c = Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    QCOMPARE(jobPrecision("auto", c), expected);
    QCOMPARE(jobPrecision("", c), expected);
}

void TestPrecision::refusesWhatATypeLacks_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QString>("message");  // empty: accepted
    QTest::newRow("bf16 on V100 and T4") << "paper-6gpu-v100-t4.json"
                                         << "bf16"
                                         << "V100-32GB (has fp32, fp16)";
    QTest::newRow("tf32 on Volta") << "paper-6gpu-v100-t4.json"
                                   << "tf32"
                                   << "T4 (has fp32, fp16)";
    QTest::newRow("fp32 on V100 and T4") << "paper-6gpu-v100-t4.json"
                                         << "fp32"
                                         << "";
    QTest::newRow("fp8 on A100") << "homogeneous-8xa100.json"
                                 << "fp8"
                                 << "A100-80GB (has fp32, tf32, fp16, bf16)";
    QTest::newRow("tf32 on A100") << "homogeneous-8xa100.json"
                                  << "tf32"
                                  << "";
    // Ascend lists fp32 but the catalog has no fp32 peak for it.
    QTest::newRow("fp32 without a peak") << "modern-h100-h20-910b.json"
                                         << "fp32"
                                         << "peak_tflops.fp32";
    QTest::newRow("unknown") << "homogeneous-8xa100.json"
                             << "fp4"
                             << "unknown precision \"fp4\"";
}

void TestPrecision::refusesWhatATypeLacks()
{
    QFETCH(QString, cluster);
    QFETCH(QString, setting);
    QFETCH(QString, message);
    const Cluster c = Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    const QString error = QString::fromStdString(errorOf(setting.toStdString(), c));
    if (message.isEmpty())
        QVERIFY2(error.isEmpty(), qPrintable(error));
    else
        QVERIFY2(error.contains(message), qPrintable(error));
}

// A large square GEMM is compute-bound in every precision, and the wave and
// K shares do not depend on it: the time ratio is the ratio of the dense
// peaks (A100 datasheet: bf16 312, tf32 156, fp32 19.5; H100: fp8 1979, bf16
// 989) times that of the sustained shares: the type's tensor-core
// efficiency (A100 0.66) against SGEMM's 0.85 on the CUDA cores.
// A cluster whose types share no precision (overrides leave the V100 only
// bf16 and the T4 only fp16) is refused even under auto, naming the types.
void TestPrecision::autoWithNothingInCommon()
{
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(test::sampleCluster("paper-6gpu-v100-t4.json")));
    doc["gpu_types"] = {{"T4", {{"precisions", {"fp16"}}}}, {"V100-32GB", {{"precisions", {"bf16"}}}}};
    const Cluster c = Cluster::fromJson(doc, "c.json", GpuCatalog::builtin());
    const std::string error = errorOf("auto", c);
    QVERIFY2(error.find("no precision is available on every GPU type") != std::string::npos, error.c_str());
    QVERIFY2(error.find("V100-32GB (has bf16); T4 (has fp16)") != std::string::npos, error.c_str());
}

void TestPrecision::gemmRunsAtThePrecisionsPeak_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<Precision>("p");
    QTest::addColumn<double>("slowerThanBf16");
    QTest::newRow("A100 fp32") << "A100-80GB" << Precision::Fp32 << (312.0 * 0.66) / (19.5 * 0.85);
    QTest::newRow("A100 tf32") << "A100-80GB" << Precision::Tf32 << 2.0;
    QTest::newRow("A100 fp16") << "A100-80GB" << Precision::Fp16 << 1.0;
    QTest::newRow("H100 fp8") << "H100-SXM" << Precision::Fp8 << 989.0 / 1979.0;
    // Cards added for mixed clusters (dense, no sparsity). GeForce RTX 3060 (28
    // SMs at 1777 MHz): FP16 tensor with FP32 accumulate 25.5, TF32 12.7,
    // FP32 12.7, efficiency 0.45. RTX A4000 datasheet: tensor 153.4 with
    // sparsity (76.7 dense), TF32 38.3 (half the FP16 rate), FP32 19.2, 0.45.
    // Quadro RTX 6000 datasheet: tensor 130.5 (Turing: fp16 is the 16-bit
    // peak, no bf16), FP32 16.3, 0.45. A30 datasheet: BF16/FP16 165, TF32 82,
    // FP32 10.3, efficiency 0.66 as for A100. A10 datasheet: BF16/FP16 125,
    // TF32 62.5, FP32 31.2, efficiency 0.42 as for A10G.
    QTest::newRow("RTX-3060 fp32") << "RTX-3060" << Precision::Fp32 << (25.5 * 0.45) / (12.7 * 0.85);
    QTest::newRow("RTX-3060 tf32") << "RTX-3060" << Precision::Tf32 << 25.5 / 12.7;
    QTest::newRow("RTX-3060 fp16") << "RTX-3060" << Precision::Fp16 << 1.0;
    QTest::newRow("RTX-A4000 fp32") << "RTX-A4000" << Precision::Fp32 << (76.7 * 0.45) / (19.2 * 0.85);
    QTest::newRow("RTX-A4000 tf32") << "RTX-A4000" << Precision::Tf32 << 76.7 / 38.3;
    QTest::newRow("Quadro-RTX-6000 fp32") << "Quadro-RTX-6000" << Precision::Fp32 << (130.5 * 0.45) / (16.3 * 0.85);
    QTest::newRow("Quadro-RTX-6000 fp16") << "Quadro-RTX-6000" << Precision::Fp16 << 1.0;
    QTest::newRow("A30 fp32") << "A30" << Precision::Fp32 << (165.0 * 0.66) / (10.3 * 0.85);
    QTest::newRow("A30 tf32") << "A30" << Precision::Tf32 << 165.0 / 82.0;
    QTest::newRow("A10 fp32") << "A10" << Precision::Fp32 << (125.0 * 0.42) / (31.2 * 0.85);
    QTest::newRow("A10 tf32") << "A10" << Precision::Tf32 << 125.0 / 62.5;
}

void TestPrecision::gemmRunsAtThePrecisionsPeak()
{
    QFETCH(QString, gpu);
    QFETCH(Precision, p);
    QFETCH(double, slowerThanBf16);
    const GpuType* g = GpuCatalog::builtin().find(gpu.toStdString());
    QVERIFY(g);
    Operator op;
    op.kind = Operator::Kind::Gemm;
    op.m = op.n = op.k = 16384;
    op.flops = 2.0 * op.m * op.n * op.k;
    op.bytes = 4.0 * 3 * op.m * op.n;  // fp32 operands: still far below the roofline's ridge
    const OperatorCost cost;
    const PathRate none;
    op.math = Precision::Bf16;
    const double bf16 = cost.time(*g, op, 1, none).computeMs;
    op.math = p;
    const double other = cost.time(*g, op, 1, none).computeMs;
    QVERIFY(std::abs(other / bf16 - slowerThanBf16) < 1e-9 * slowerThanBf16);
}

void TestPrecision::fp32HasNoFlashAttention()
{
    QVERIFY(flashAttentionRuns(true, Precision::Bf16));
    QVERIFY(flashAttentionRuns(true, Precision::Fp8));
    QVERIFY(!flashAttentionRuns(true, Precision::Fp32));
    QVERIFY(!flashAttentionRuns(true, Precision::Tf32));
    QVERIFY(!flashAttentionRuns(false, Precision::Bf16));
    // ... and Ampere or newer on NVIDIA (FlashAttention-2 and cuDNN's fused
    // attention need sm80): Volta and Turing run the unfused core in fp16.
    const GpuCatalog& cat = GpuCatalog::builtin();
    for (const char* t : {"A100-80GB", "H100-SXM", "RTX-3090", "L40S", "B200", "MI300X", "Ascend-910B", "A30", "A10",
                          "RTX-3060", "RTX-A4000"})
        QVERIFY2(flashAttentionRuns(true, Precision::Fp16, *cat.find(t)), t);
    for (const char* t : {"V100-32GB", "V100-16GB", "T4", "RTX-2060", "RTX-2070", "RTX-2080", "Titan-RTX",
                          "Quadro-RTX-4000", "Quadro-RTX-5000", "Quadro-RTX-6000", "Quadro-RTX-8000"})
        QVERIFY2(!flashAttentionRuns(true, Precision::Fp16, *cat.find(t)), t);
    // fp8 runs the attention core in bf16: its FLOPs time at the bf16 peak.
    QCOMPARE(attentionMath(Precision::Fp8), Precision::Bf16);
    const auto ops = LayerOperators::forward(tiny(), 2, 8, 1, true, true, Precision::Fp8);
    for (const Operator& op : ops)
        if (op.kind == Operator::Kind::Attention)
            QCOMPARE(op.math, Precision::Bf16);
        else if (op.kind == Operator::Kind::Gemm)
            QCOMPARE(op.math, Precision::Fp8);
}

// The same stage in fp32 and bf16 on an A100: weights 4 vs 2 bytes per
// parameter, gradients 4 and 4, optimizer 8 vs 12 (DP 1, not sharded),
// activations twice as wide. The gradient term also holds Transformer
// Engine's placeholder weight gradients, one per weight shape at the weights'
// width: 2 layers of 36,992 parameters (QKV 64 x 128, projection 64 x 64,
// SwiGLU 3 x 64 x 128, two norms of 64) have main gradients of 73,984 * 4 =
// 295,936 bytes, and the four shapes hold 8,192 + 4,096 + 16,384 + 8,192 =
// 36,864 elements: 73,728 bytes in bf16, 147,456 in fp32.
void TestPrecision::stageMemoryFollowsPrecision()
{
    // tests/TestModels.h's tiny model, 2 layers, b = 2, s = 8.
    StageQuery q = memx::test::stageOf(memx::test::tinyModel(), GpuCatalog::builtin().find("A100-80GB"), 2, 2, 8);
    q.flashAttention = false;  // same attention in both: fp32 has no FlashAttention
    const AnalyticPredictor a;
    const StagePrediction bf16 = a.predictStage(q);
    q.precision = Precision::Fp32;
    const StagePrediction fp32 = a.predictStage(q);
    QCOMPARE(fp32.memory.weightsMiB / bf16.memory.weightsMiB, 2.0);
    QCOMPARE(bf16.memory.gradientsMiB, (295936.0 + 73728.0) / (1024.0 * 1024.0));
    QCOMPARE(fp32.memory.gradientsMiB, (295936.0 + 147456.0) / (1024.0 * 1024.0));
    QCOMPARE(fp32.memory.optimizerMiB / bf16.memory.optimizerMiB, 8.0 / 12.0);
    QCOMPARE(fp32.memory.activationsMiB / bf16.memory.activationsMiB, 2.0);
}

// allocated = the four terms; reserved = allocated x (1 + slack); device =
// reserved + context and communication buffers. A100-40GB's slack 0.07 is
// the median reserved/allocated of the Mist/Aceso A100 runs (1.072).
void TestPrecision::memoryKinds()
{
    const GpuType* g = GpuCatalog::builtin().find("A100-40GB");
    QVERIFY(g);
    QCOMPARE(g->allocatorSlack, 0.07);
    StageQuery q;
    q.gpu = g;
    q.layers = 4;
    q.microBatch = 1;
    q.seqLen = 2048;
    q.hidden = 4096;
    q.heads = 32;
    q.headDim = 128;
    q.queryGroups = 32;
    q.ffnHidden = 11008;
    q.vocab = 32000;
    const StagePrediction p = AnalyticPredictor().predictStage(q);
    const MemoryBreakdown& m = p.memory;
    const double allocated = m.weightsMiB + m.gradientsMiB + m.optimizerMiB + m.activationsMiB;
    QCOMPARE(m.ofKind(MemoryKind::Allocated), allocated);
    QVERIFY(std::abs(m.ofKind(MemoryKind::Reserved) - 1.07 * allocated) < 1e-9 * allocated);
    QVERIFY(std::abs(m.ofKind(MemoryKind::Device) - (1.07 * allocated + 1.5 * 1024)) < 1e-9 * allocated);
    QCOMPARE(p.memoryMiB(), m.ofKind(MemoryKind::Device));  // what must fit
}

void TestPrecision::measurementColumns()
{
    const std::string text = std::string(kHeader)
        + "a,A100-40GB,8,1,1,8,1,8,2048,4,4096,32,32000,30000,tf32,reserved\n"
          "b,V100-16GB,8,1,1,8,1,8,2048,4,4096,32,32000,12000,,\n";
    const auto set = MeasurementCsv::parse(text, "m.csv", MeasurementCsv::Kind::Measurements);
    QCOMPARE(set.rows.size(), std::size_t(2));
    QCOMPARE(set.rows[0].precision, Precision::Tf32);
    QCOMPARE(set.rows[0].peakMemKind, MemoryKind::Reserved);
    QCOMPARE(set.rows[1].precision, Precision::Bf16);  // empty: bf16
    QCOMPARE(set.rows[1].peakMemKind, MemoryKind::Allocated);
    // Written back: both columns, and the same rows.
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(written.find("precision,peak_mem_kind") != std::string::npos);
    const auto again = MeasurementCsv::parse(written, "w.csv", MeasurementCsv::Kind::Measurements);
    QVERIFY(again.rows == set.rows);
    // Files without them keep their columns.
    std::vector<Measurement> plain{set.rows[1]};
    QVERIFY(MeasurementCsv::write(plain).find("precision") == std::string::npos);
}

void TestPrecision::measurementColumnsRefused_data()
{
    QTest::addColumn<QString>("rows");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    QTest::newRow("unknown precision") << "a,A100-40GB,8,1,1,8,1,8,2048,4,4096,32,32000,1,fp4,\n"
                                       << "line 2, column precision"
                                       << "fp32, tf32, fp16, bf16 or fp8";
    QTest::newRow("unknown kind") << "a,A100-40GB,8,1,1,8,1,8,2048,4,4096,32,32000,1,,smi\n"
                                  << "line 2, column peak_mem_kind"
                                  << "allocated|reserved|device";
}

void TestPrecision::measurementColumnsRefused()
{
    QFETCH(QString, rows);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    try {
        MeasurementCsv::parse(kHeader + rows.toStdString(), "m.csv", MeasurementCsv::Kind::Measurements);
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.what()).contains(reason), e.what());
    }
}

// A device-level peak is compared with the device-level prediction, an
// allocated one with the allocated: exp(label) x analytic-of-that-kind
// gives back the measurement.
void TestPrecision::labelsCompareLikeWithLike()
{
    const std::string text = std::string(kHeader)
        + "dev,A100-80GB,8,1,1,8,1,8,2048,4,4096,32,32000,20000,bf16,device\n"
          "alloc,A100-80GB,8,1,1,8,1,8,2048,4,4096,32,32000,20000,bf16,allocated\n";
    const auto set = MeasurementCsv::parse(text, "m.csv", MeasurementCsv::Kind::Measurements);
    const TrainingSet ts = TrainingSet::build(set.rows, "m.csv", GpuCatalog::builtin());
    QCOMPARE(ts.rows.size(), std::size_t(2));
    const TrainingRow& dev = ts.rows[0];
    const TrainingRow& alloc = ts.rows[1];
    QVERIFY(std::abs(std::exp(dev.memoryLabel) * dev.analytic.memory.totalMiB() - 20000) < 1e-6);
    QVERIFY(std::abs(std::exp(alloc.memoryLabel) * alloc.analytic.memory.allocatedMiB() - 20000) < 1e-6);
    QVERIFY(alloc.memoryLabel > dev.memoryLabel);  // the same number means more tensors if it is only the allocated
}

void TestPrecision::exporterFlags()
{
    MegatronJob j;
    j.model = ModelSpec::resolve("llama2-7b");
    j.tp = 1;
    j.pp = 1;
    j.dp = 8;
    j.microBatch = 1;
    j.globalBatch = 8;
    j.seqLen = 4096;
    j.queryGroups = 32;
    j.stageLayers = {32};
    auto has = [](const std::vector<std::string>& a, const std::string& f) {
        return std::find(a.begin(), a.end(), f) != a.end();
    };
    j.precision = "fp8";
    auto a = MegatronCommandLine::arguments(j);
    QVERIFY(has(a, "--bf16"));
    QVERIFY(has(a, "--fp8-format") && has(a, "hybrid"));
    QVERIFY(has(a, "--transformer-impl") && has(a, "transformer_engine"));
    j.precision = "tf32";  // fp32 arguments; TF32 comes from the launch script's environment
    a = MegatronCommandLine::arguments(j);
    QVERIFY(!has(a, "--bf16") && !has(a, "--fp16") && !has(a, "--fp8-format"));
    j.precision = "fp16";
    QVERIFY(has(MegatronCommandLine::arguments(j), "--fp16"));
}

void TestPrecision::wgradBuffersWhereTransformerEngineRuns_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("te");
    // NVIDIA parts with bf16 tensor cores (Ampere and newer) run Megatron's
    // layers through Transformer Engine; Volta and Turing have no bf16, and
    // the other vendors' ports are not TE.
    QTest::newRow("A100-80GB") << "A100-80GB" << true;
    QTest::newRow("H100-SXM") << "H100-SXM" << true;
    QTest::newRow("RTX-3090") << "RTX-3090" << true;
    QTest::newRow("V100-16GB") << "V100-16GB" << false;
    QTest::newRow("T4") << "T4" << false;
    QTest::newRow("RTX-2080") << "RTX-2080" << false;
    QTest::newRow("Ascend-910B") << "Ascend-910B" << false;
    QTest::newRow("MI300X") << "MI300X" << false;
}

// The gradient term of the stage of stageMemoryFollowsPrecision in fp16 (a
// precision every type above trains in): the 73,984 parameters' fp16 main
// gradients, 2 bytes each (147,968 bytes), plus where TE runs the four
// placeholder weight gradients, 36,864 fp16 elements (73,728 bytes).
void TestPrecision::wgradBuffersWhereTransformerEngineRuns()
{
    QFETCH(QString, type);
    QFETCH(bool, te);
    const GpuType* g = GpuCatalog::builtin().find(type.toStdString());
    QVERIFY(g);
    QCOMPARE(g->runsTransformerEngine(), te);
    StageQuery q = memx::test::stageOf(memx::test::tinyModel(), g, 2, 2, 8);
    q.flashAttention = false;
    q.precision = Precision::Fp16;
    const StagePrediction p = AnalyticPredictor().predictStage(q);
    const double mult = g->calibration.memoryMultiplier;
    QCOMPARE(p.memory.gradientsMiB, mult * (147968.0 + (te ? 73728.0 : 0.0)) / (1024.0 * 1024.0));
}

MEMX_TEST_GUILESS_MAIN(TestPrecision)
}  // namespace tst_precision

#include "tst_precision.moc"
