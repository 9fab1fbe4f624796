// The operator-level analytic model (issue #12, item 1): the kernels of one
// layer (LayerOperators) and the time of each on a GPU (OperatorCost). Every
// expected number is worked out by hand in the rows below from the formulas
// the headers cite: 2mnk FLOPs per GEMM, 128 x 128 output tiles spread over
// the SMs in waves, k / (k + k0), the roofline max(FLOPs / rate, bytes /
// bandwidth), a ring all-reduce 2(t-1)/t * bytes / B + 2(t-1) * latency, and
// the LLaMA block's weights (Wq h*a*d, Wk and Wv h*g*d each, Wo a*d*h,
// SwiGLU 3*h*f).
#include "TestModels.h"
#include "hardware/GpuType.h"
#include "model/LayerOperators.h"
#include "model/ModelSpec.h"
#include "predict/AnalyticPredictor.h"
#include "predict/OperatorCost.h"
#include "predict/StageQuery.h"

#include "TestMain.h"

#include <cmath>

namespace tst_operator_cost {

using namespace memx;

namespace {

// A made-up GPU with round numbers: 100 TFLOP/s, 1000 GB/s, 108 SMs,
// half of peak on large GEMMs, 2 us per launch, 50 us per collective.
GpuType roundGpu(int sms)
{
    GpuType g;
    g.name = "round";
    g.peakTflopsBf16 = 100;
    g.memoryBandwidthGBps = 1000;
    g.defaultEfficiency = 0.5;
    g.smCount = sms;
    g.launchOverheadUs = 2;
    g.commOverheadUs = 50;
    return g;
}

// The host time one per-event overhead of `gpu` (`field`) adds to the stage
// `q`, placed first and/or last with v model chunks: the stage's host time
// less that of the same stage with the overhead at 0, ms.
double hostMsOf(double GpuType::*field, GpuType gpu, StageQuery q, bool first, bool last, int v)
{
    q.hasEmbedding = first;
    q.hasOutput = last;
    q.virtualStages = v;
    const AnalyticPredictor a;
    q.gpu = &gpu;
    const double with = a.timeBreakdown(q).hostIdleMs;
    GpuType free = gpu;
    free.*field = 0;
    q.gpu = &free;
    return with - a.timeBreakdown(q).hostIdleMs;
}

OperatorCost::Params roundParams()
{
    OperatorCost::Params p;
    p.tileM = p.tileN = 128;
    p.halfEfficiencyK = 64;
    p.halfEfficiencyGemmFlops = 1e9;
    p.bandwidthFraction = 0.8;
    return p;
}

Operator gemm(double m, double n, double k)
{
    Operator op;
    op.kind = Operator::Kind::Gemm;
    op.m = m;
    op.n = n;
    op.k = k;
    op.flops = 2 * m * n * k;
    op.bytes = 2 * (m * k + k * n + m * n);
    return op;
}

// h 1024, 16 heads of 64, 16 groups, SwiGLU 4096, vocabulary 32000.
ModelSpec smallModel()
{
    ModelSpec m;
    m.numLayers = 8;
    m.hidden = 1024;
    m.heads = 16;
    m.headDim = 64;
    m.queryGroups = 16;
    m.ffnHidden = 4096;
    m.vocab = 32000;
    m.seqLen = 512;
    return m;
}

double sum(const std::vector<Operator>& ops, Operator::Kind kind, double Operator::*field)
{
    double s = 0;
    for (const Operator& op : ops)
        if (op.kind == kind)
            s += op.*field;
    return s;
}

int count(const std::vector<Operator>& ops, Operator::Kind kind)
{
    int n = 0;
    for (const Operator& op : ops)
        n += op.kind == kind ? 1 : 0;
    return n;
}

}  // namespace

class TestOperatorCost : public QObject {
    Q_OBJECT
private slots:
    void gemmEfficiency_data();
    void gemmEfficiency();
    void rooflineTakesTheSlowerOfComputeAndMemory();
    void aShortKernelCostsItsLaunch();
    void collectivesRunOnTheTensorParallelRing();
    void layerFlopsAreTheBlocksWeights_data();
    void layerFlopsAreTheBlocksWeights();
    void backwardIsTwiceTheGemmsAndMoreForAttention();
    void sequenceParallelismSplitsTheAllReduces();
    void recomputationRepeatsWhatItDiscarded();
    void dropoutAddsKernelsAndMaskWrites();
    void unfusedSoftmaxByPrecision_data();
    void unfusedSoftmaxByPrecision();
    void pipelineMessagesPerChunk_data();
    void pipelineMessagesPerChunk();
    void scheduleStepsPerChunk_data();
    void scheduleStepsPerChunk();
};

void TestOperatorCost::gemmEfficiency_data()
{
    QTest::addColumn<int>("sms");
    QTest::addColumn<double>("m");
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("efficiency");
    // 108 tiles on 108 SMs: one full wave; k 192 -> 192 / 256 = 0.75.
    QTest::newRow("one full wave") << 108 << 128.0 * 108 << 128.0 << 192.0 << 0.5 * 1.0 * 0.75;
    // 109 tiles: a second wave with one tile, 109 / 216 of the SM-time busy.
    QTest::newRow("one tile into a second wave") << 108 << 128.0 * 109 << 128.0 << 192.0 << 0.5 * 109.0 / 216 * 0.75;
    // A partial tile still takes a whole tile: 130 x 128 is 2 tiles of 108 SMs.
    QTest::newRow("partial tiles round up") << 108 << 130.0 << 128.0 << 192.0 << 0.5 * 2.0 / 108 * 0.75;
    // Long k: 4032 / (4032 + 64) = 0.984375.
    QTest::newRow("long k") << 108 << 128.0 * 216 << 128.0 << 4032.0 << 0.5 * 1.0 * 4032 / 4096;
    // SM count unknown: 0.5 * W / (W + 1e9) with W = 2 * 1000^3 = 2e9 -> 1/3.
    QTest::newRow("no SM count") << 0 << 1000.0 << 1000.0 << 1000.0 << 0.5 * 2.0 / 3.0;
}

void TestOperatorCost::gemmEfficiency()
{
    QFETCH(int, sms);
    QFETCH(double, m);
    QFETCH(double, n);
    QFETCH(double, k);
    QFETCH(double, efficiency);
    const OperatorCost cost(roundParams());
    QVERIFY(std::abs(cost.gemmEfficiency(roundGpu(sms), gemm(m, n, k)) - efficiency) < 1e-12);
}

void TestOperatorCost::rooflineTakesTheSlowerOfComputeAndMemory()
{
    const OperatorCost cost(roundParams());
    const GpuType gpu = roundGpu(108);
    // Square GEMM 13824 x 128 x 192 (one wave): 2 * 13824 * 128 * 192 =
    // 679,477,248 FLOPs at 100e12 * 0.375 per s = 0.0181194 ms; bytes 2 *
    // (13824*192 + 192*128 + 13824*128) = 8,896,512 at 800 GB/s = 0.0111206 ms.
    const auto compute = cost.time(gpu, gemm(13824, 128, 192), 1, {});
    QVERIFY(std::abs(compute.computeMs - 679477248.0 / (100e9 * 0.375)) < 1e-12);
    QCOMPARE(compute.memoryMs, 0.0);
    // Skinny 65536 x 16 x 16: 33,554,432 FLOPs; 512 tiles in 5 waves of 108
    // (512 / 540), k share 16 / 80 -> 0.5 * 0.948148 * 0.2 of peak:
    // 0.0035391 ms; bytes 2 * (65536*16 + 256 + 65536*16) = 4,194,816 at
    // 800 GB/s = 0.00524352 ms, so memory decides.
    const auto skinny = cost.time(gpu, gemm(65536, 16, 16), 1, {});
    QVERIFY(std::abs(skinny.computeMs - 4194816.0 / 800e6) < 1e-12);
    QCOMPARE(skinny.hostIdleMs, 0.0);  // 5.2 us of device time hides the 2 us launch
}

void TestOperatorCost::aShortKernelCostsItsLaunch()
{
    const OperatorCost cost(roundParams());
    GpuType gpu = roundGpu(108);
    gpu.launchOverheadUs = 20;
    Operator norm;
    norm.kind = Operator::Kind::MemoryBound;
    norm.bytes = 8000;  // 8000 / 800e6 = 1e-5 ms on the device
    const auto t = cost.time(gpu, norm, 1, {});
    QVERIFY(std::abs(t.memoryMs - 1e-5) < 1e-15);
    QVERIFY(std::abs(t.hostIdleMs - (0.020 - 1e-5)) < 1e-15);
    QVERIFY(std::abs(t.totalMs() - 0.020) < 1e-15);
}

void TestOperatorCost::collectivesRunOnTheTensorParallelRing()
{
    const OperatorCost cost(roundParams());
    const GpuType gpu = roundGpu(108);
    Operator ag;
    ag.kind = Operator::Kind::Collective;
    ag.commBytes = 1e8;
    ag.allReduceEquivalent = 0.5;
    // Ring all-reduce over 4 at 100 GB/s, 5 us: 1.5 * 1e8 / 1e8 ms + 6 * 5 us
    // = 1.53 ms; an all-gather is half of it.
    const auto t = cost.time(gpu, ag, 4, PathRate{100, 5});
    QVERIFY(std::abs(t.commMs - 0.765) < 1e-12);
    QCOMPARE(t.hostIdleMs, 0.0);  // 50 us of host time under 765 us on the wire
    const auto none = cost.time(gpu, ag, 1, PathRate{100, 5});
    QCOMPARE(none.totalMs(), 0.0);  // no tensor parallelism, no collective
}

void TestOperatorCost::layerFlopsAreTheBlocksWeights_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<bool>("flash");
    QTest::addColumn<double>("gemmFlops");
    QTest::addColumn<double>("attentionFlops");
    QTest::addColumn<bool>("gelu");
    // Weights 1024*1024 (Wq) + 2 * 1024*1024 (Wk, Wv) + 1024*1024 (Wo) +
    // 3 * 1024*4096 (SwiGLU) = 16,777,216; b 2, s 512: 2 * 1024 tokens *
    // 16,777,216 = 34,359,738,368 GEMM FLOPs. Attention core 4 b s^2 a d =
    // 4 * 2 * 262144 * 1024 = 2,147,483,648, halved by causal FlashAttention.
    QTest::newRow("tp 1 flash") << 1 << true << 34359738368.0 << 1073741824.0 << false;
    QTest::newRow("tp 4 flash") << 4 << true << 34359738368.0 / 4 << 1073741824.0 / 4 << false;
    // Unfused: QK^T and AV are batched GEMMs of b*a/t products, the whole s x s.
    QTest::newRow("tp 2 unfused") << 2 << false << (34359738368.0 + 2147483648.0) / 2 << 0.0 << false;
    // A GeLU MLP has two matrices: 4 * 1024^2 + 2 * 1024*4096 = 12,582,912
    // weights, 2 * 1024 * 12,582,912 = 25,769,803,776 GEMM FLOPs.
    QTest::newRow("tp 1 flash GeLU") << 1 << true << 25769803776.0 << 1073741824.0 << true;
    QTest::newRow("tp 4 flash GeLU") << 4 << true << 25769803776.0 / 4 << 1073741824.0 / 4 << true;
}

void TestOperatorCost::layerFlopsAreTheBlocksWeights()
{
    QFETCH(int, tp);
    QFETCH(bool, flash);
    QFETCH(double, gemmFlops);
    QFETCH(double, attentionFlops);
    QFETCH(bool, gelu);
    ModelSpec m = smallModel();
    m.mlp = gelu ? MlpKind::Gelu : MlpKind::SwiGlu;
    const auto ops = LayerOperators::forward(m, 2, 512, tp, true, flash);
    QCOMPARE(sum(ops, Operator::Kind::Gemm, &Operator::flops), gemmFlops);
    QCOMPARE(sum(ops, Operator::Kind::Attention, &Operator::flops), attentionFlops);
    // The activation kernel: SwiGLU reads gate and up (2f) and writes f; GeLU
    // reads f and writes f. bf16, 1024 tokens, f = 4096: 3 * 2 * 1024 * 4096 =
    // 25,165,824 bytes, or 2 * 2 * 1024 * 4096 = 16,777,216, over t.
    const auto act = std::find_if(ops.begin(), ops.end(),
                                  [&](const Operator& op) { return op.name == std::string(gelu ? "GeLU" : "SwiGLU"); });
    QVERIFY(act != ops.end());
    QCOMPARE(act->bytes, (gelu ? 16777216.0 : 25165824.0) / tp);
}

void TestOperatorCost::backwardIsTwiceTheGemmsAndMoreForAttention()
{
    const ModelSpec m = smallModel();
    const auto fwd = LayerOperators::forward(m, 2, 512, 1, true, true);
    const auto bwd = LayerOperators::backward(m, 2, 512, 1, true, true);
    QCOMPARE(sum(bwd, Operator::Kind::Gemm, &Operator::flops), 2 * sum(fwd, Operator::Kind::Gemm, &Operator::flops));
    QCOMPARE(count(bwd, Operator::Kind::Gemm), 2 * count(fwd, Operator::Kind::Gemm));
    QCOMPARE(sum(bwd, Operator::Kind::Attention, &Operator::flops),
             2.5 * sum(fwd, Operator::Kind::Attention, &Operator::flops));
    QCOMPARE(sum(bwd, Operator::Kind::MemoryBound, &Operator::bytes),
             2 * sum(fwd, Operator::Kind::MemoryBound, &Operator::bytes));
    // 11 kernels forward (4 GEMMs, attention, 6 memory-bound) and 15
    // backward (8 GEMMs, attention, 6 memory-bound) at TP 1: the catalog's
    // conversion of a per-layer launch overhead divides by 26.
    QCOMPARE(int(fwd.size()), 11);
    QCOMPARE(int(bwd.size()), 15);
}

void TestOperatorCost::sequenceParallelismSplitsTheAllReduces()
{
    const ModelSpec m = smallModel();
    const auto sp = LayerOperators::forward(m, 2, 512, 4, true, true);
    const auto plain = LayerOperators::forward(m, 2, 512, 4, false, true);
    // Korthikanti et al. 2022: two all-reduces become two all-gathers and two
    // reduce-scatters of the same 2 bytes * b*s tokens * h = 2 * 1024 * 1024.
    QCOMPARE(count(sp, Operator::Kind::Collective), 4);
    QCOMPARE(count(plain, Operator::Kind::Collective), 2);
    QCOMPARE(sum(sp, Operator::Kind::Collective, &Operator::allReduceEquivalent), 2.0);
    QCOMPARE(sum(plain, Operator::Kind::Collective, &Operator::allReduceEquivalent), 2.0);
    for (const Operator& op : sp)
        if (op.kind == Operator::Kind::Collective)
            QCOMPARE(op.commBytes, 2097152.0);
    // The norms see 1/t of the tokens: input norm 2 * 2 bytes * tokens * h.
    QCOMPARE(sp.front().bytes, 4.0 * 1024 * 1024 / 4);
    QCOMPARE(plain.front().bytes, 4.0 * 1024 * 1024);
}

void TestOperatorCost::recomputationRepeatsWhatItDiscarded()
{
    const ModelSpec m = smallModel();
    QVERIFY(LayerOperators::recompute(m, 2, 512, 1, true, true, Recompute::None).empty());
    const auto full = LayerOperators::recompute(m, 2, 512, 1, true, true, Recompute::Full);
    QCOMPARE(full.size(), LayerOperators::forward(m, 2, 512, 1, true, true).size());
    const auto selective = LayerOperators::recompute(m, 2, 512, 1, true, true, Recompute::Selective);
    QCOMPARE(int(selective.size()), 1);
    QCOMPARE(selective.front().flops, 1073741824.0);
}

void TestOperatorCost::dropoutAddsKernelsAndMaskWrites()
{
    const ModelSpec m = smallModel();
    using memx::Dropout;
    const auto named = [](const std::vector<Operator>& ops, const char* name) {
        std::vector<Operator> out;
        for (const Operator& op : ops)
            if (op.name == std::string(name))
                out.push_back(op);
        return out;
    };
    // Unfused attention dropout, b = 2, s = 512, a = 16, bf16: reads the
    // probabilities (2 bytes) and writes them (2) and a 1-byte mask, per
    // score: 5 * (b*a/t) * s^2 = 5 * 32 * 262,144 = 41,943,040 bytes at t = 1.
    const Dropout attention{true, false};
    auto kernels = named(LayerOperators::forward(m, 2, 512, 1, true, false, memx::Precision::Bf16, attention),
                         "attention dropout");
    QCOMPARE(int(kernels.size()), 1);
    QCOMPARE(kernels.front().bytes, 41943040.0);
    kernels = named(LayerOperators::forward(m, 2, 512, 2, true, false, memx::Precision::Bf16, attention),
                    "attention dropout");
    QCOMPARE(kernels.front().bytes, 41943040.0 / 2);
    // Its backward reads the gradient and the mask and writes the gradient:
    // the same 5 bytes per score, not twice them.
    kernels = named(LayerOperators::backward(m, 2, 512, 1, true, false, memx::Precision::Bf16, attention),
                    "attention dropout");
    QCOMPARE(int(kernels.size()), 1);
    QCOMPARE(kernels.front().bytes, 41943040.0);
    // FlashAttention draws the mask inside its kernel: nothing is added.
    QCOMPARE(LayerOperators::forward(m, 2, 512, 1, true, true, memx::Precision::Bf16, attention).size(),
             LayerOperators::forward(m, 2, 512, 1, true, true).size());
    // Selective recomputation repeats the dropout with the scores.
    QCOMPARE(int(named(LayerOperators::recompute(m, 2, 512, 1, true, false, Recompute::Selective, memx::Precision::Bf16,
                                                 attention),
                       "attention dropout")
                     .size()),
             1);
    // Hidden dropout: each bias-dropout-add also writes a 1-byte mask, 1024
    // tokens * h = 1,048,576 bytes on top of 3 * 2 bytes * 1,048,576.
    const auto plain = named(LayerOperators::forward(m, 2, 512, 1, true, true), "residual add");
    const auto masked
        = named(LayerOperators::forward(m, 2, 512, 1, true, true, memx::Precision::Bf16, Dropout{false, true}),
                "residual add");
    QCOMPARE(int(masked.size()), 2);
    QCOMPARE(plain.front().bytes, 6291456.0);
    QCOMPARE(masked.front().bytes, 7340032.0);
    QCOMPARE(masked.back().bytes, 7340032.0);
}

void TestOperatorCost::unfusedSoftmaxByPrecision_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("tp");
    QTest::addColumn<QStringList>("kernels");  // the memory-bound kernels between QK^T and AV
    QTest::addColumn<double>("forwardBytes");  // their forward traffic, summed
    QTest::addColumn<double>("backwardBytes");  // their backward traffic, summed
    // b = 2, s = 512, a = 16: (b*a/t) * s^2 = 32 * 262,144 = 8,388,608 scores at t = 1.
    // bf16/fp16: Megatron's fused scale-mask-softmax, one read and one write
    // of 2-byte scores (16,777,216 * 2); backward reads the probabilities and
    // the gradient and writes one (3 * 16,777,216).
    QTest::newRow("bf16 fused") << int(Precision::Bf16) << 1 << QStringList{"softmax"} << 33554432.0 << 50331648.0;
    QTest::newRow("fp16 fused, t=2") << int(Precision::Fp16) << 2 << QStringList{"softmax"} << 16777216.0 << 25165824.0;
    // fp32/tf32: PyTorch's scale, masked_fill_ and softmax, each a read and a
    // write of 4-byte scores: 3 * 2 * 4 * 8,388,608 = 201,326,592; backward
    // (2 + 2 + 3) * 4 * 8,388,608 = 234,881,024.
    const QStringList three{"attention scale", "attention mask", "softmax"};
    QTest::newRow("fp32 three kernels") << int(Precision::Fp32) << 1 << three << 201326592.0 << 234881024.0;
    QTest::newRow("tf32 three kernels") << int(Precision::Tf32) << 1 << three << 201326592.0 << 234881024.0;
    QTest::newRow("fp32, t=4") << int(Precision::Fp32) << 4 << three << 201326592.0 / 4 << 234881024.0 / 4;
}

void TestOperatorCost::unfusedSoftmaxByPrecision()
{
    QFETCH(int, precision);
    QFETCH(int, tp);
    QFETCH(QStringList, kernels);
    QFETCH(double, forwardBytes);
    QFETCH(double, backwardBytes);
    const ModelSpec m = smallModel();
    const auto p = static_cast<Precision>(precision);
    const auto between = [&](const std::vector<Operator>& ops) {
        QStringList names;
        double bytes = 0;
        bool inside = false;
        for (const Operator& op : ops) {
            const std::string name = op.name;
            if (name == "attention scores QK^T")
                inside = true;
            else if (name == "attention values AV")
                break;
            else if (inside && op.kind == Operator::Kind::MemoryBound) {
                names << QString::fromStdString(name);
                bytes += op.bytes;
            }
        }
        return std::pair{names, bytes};
    };
    const auto [fwdNames, fwd] = between(LayerOperators::forward(m, 2, 512, tp, true, false, p));
    QCOMPARE(fwdNames, kernels);
    QCOMPARE(fwd, forwardBytes);
    // The backward has each kernel's gradient, in forward order.
    const auto bwdOps = LayerOperators::backward(m, 2, 512, tp, true, false, p);
    double bwd = 0;
    QStringList bwdNames;
    for (const Operator& op : bwdOps)
        if (op.kind == Operator::Kind::MemoryBound && kernels.contains(QString::fromStdString(op.name))) {
            bwdNames << QString::fromStdString(op.name);
            bwd += op.bytes;
        }
    QCOMPARE(bwdNames, kernels);
    QCOMPARE(bwd, backwardBytes);
    // Selective recomputation repeats the same kernels.
    const auto [recNames, rec]
        = between(LayerOperators::recompute(m, 2, 512, tp, true, false, Recompute::Selective, p));
    QCOMPARE(recNames, kernels);
    QCOMPARE(rec, forwardBytes);
}

void TestOperatorCost::pipelineMessagesPerChunk_data()
{
    QTest::addColumn<bool>("first");
    QTest::addColumn<bool>("last");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("messages");  // pipeline messages of one micro-batch
    // Per micro-batch and model chunk a stage receives and sends an
    // activation (forward) and a gradient (backward): 4 v, less the 2 the
    // first chunk of the first stage and the 2 the last chunk of the last
    // stage have no partner for.
    QTest::newRow("middle, 1F1B") << false << false << 1 << 4.0;
    QTest::newRow("middle, v=3") << false << false << 3 << 12.0;
    QTest::newRow("first, 1F1B") << true << false << 1 << 2.0;
    QTest::newRow("first, v=2") << true << false << 2 << 6.0;
    QTest::newRow("last, v=4") << false << true << 4 << 14.0;
    QTest::newRow("only stage") << true << true << 1 << 0.0;
}

// Each message costs the GPU's comm_overhead_us of host time (50 us on the
// round GPU). A stage of no layers holds nothing else but its embedding or
// output layer, so the difference to the same stage without messages is
// messages x 50 us.
void TestOperatorCost::pipelineMessagesPerChunk()
{
    QFETCH(bool, first);
    QFETCH(bool, last);
    QFETCH(int, v);
    QFETCH(double, messages);
    const ModelSpec m = smallModel();
    const double ms
        = hostMsOf(&GpuType::commOverheadUs, roundGpu(108), test::stageOf(m, nullptr, 0, 2, 512), first, last, v);
    QCOMPARE(ms + 1.0, messages * 0.050 + 1.0);
}

void TestOperatorCost::scheduleStepsPerChunk_data()
{
    QTest::addColumn<bool>("first");
    QTest::addColumn<bool>("last");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("layers");
    QTest::addColumn<double>("steps");  // forward and backward steps of one micro-batch
    // Megatron's schedules call forward_step and backward_step once per
    // micro-batch and model chunk, whatever the chunk holds and wherever the
    // stage sits: 2 v per micro-batch (unlike the messages above).
    QTest::newRow("middle, 1F1B") << false << false << 1 << 3 << 2.0;
    QTest::newRow("middle, v=3") << false << false << 3 << 3 << 6.0;
    QTest::newRow("first, v=2") << true << false << 2 << 4 << 4.0;
    QTest::newRow("last, v=4") << false << true << 4 << 4 << 8.0;
    QTest::newRow("only stage") << true << true << 1 << 12 << 2.0;
    QTest::newRow("no layers") << true << false << 1 << 0 << 2.0;
}

// Each step costs step_overhead_us of host time: 300 us here, so the stage's
// host time grows by steps x 0.3 ms over the same stage with free steps.
void TestOperatorCost::scheduleStepsPerChunk()
{
    QFETCH(bool, first);
    QFETCH(bool, last);
    QFETCH(int, v);
    QFETCH(int, layers);
    QFETCH(double, steps);
    GpuType gpu = roundGpu(108);
    gpu.stepOverheadUs = 300;
    const ModelSpec m = smallModel();
    const double ms
        = hostMsOf(&GpuType::stepOverheadUs, gpu, test::stageOf(m, nullptr, layers, 2, 512), first, last, v);
    QCOMPARE(ms + 1.0, steps * 0.300 + 1.0);
}

MEMX_TEST_APPLESS_MAIN(TestOperatorCost)
}  // namespace tst_operator_cost

#include "tst_operator_cost.moc"
