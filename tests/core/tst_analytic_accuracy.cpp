// Accuracy of the analytic cost model against public measurements
// (tests/data/datasets, see README.md there and docs/ANALYTIC_ACCURACY.md).
//
// Every dataset is loaded at run time; each usable row is predicted with
// AnalyticPredictor (per stage) and IterationComposer (per iteration), the
// table is printed with qInfo() and the achieved MAPE / max error is asserted.
// Regenerate the numbers in the doc with:
//   ctest --test-dir build -R tst_analytic_accuracy -V
//
// Assumptions shared by all rows (also listed in docs/ANALYTIC_ACCURACY.md):
// - GPT models of the 2021/2022 papers have a GeLU MLP of 4h (two matrices):
//   ModelSpec mlp = gelu, ffnHidden = 4h, queryGroups = heads, headDim = h/a.
// - DGX A100 (Selene): NVLink 300 GB/s per GPU per direction for TP inside a
//   node; 8 x 200 Gb/s HDR InfiniBand per node, one HCA per GPU = 25 GB/s per
//   GPU for pipeline hops; a data-parallel group with k GPUs per node can use
//   k HCAs, i.e. 25*k GB/s (200 GB/s per node shared by the 8/k DP groups).
// - Optimizer step (fixed time per iteration): fused mixed-precision Adam
//   streams about 40 bytes per local parameter through HBM (fp32 grad, master,
//   two moments read and written, bf16 copy-out, grad-norm pass).

#include "TestPaths.h"

#include "hardware/GpuCatalog.h"
#include "hardware/GpuType.h"
#include "hardware/Topology.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"
#include "predict/AnalyticPredictor.h"
#include "predict/IterationComposer.h"
#include "predict/StageQuery.h"

#include "TestMain.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <tuple>
#include <sstream>
#include <string>
#include <vector>

namespace tst_analytic_accuracy {

using namespace memx;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// ---------------------------------------------------------------- CSV loading

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    int col(const std::string& name) const  // first column of that name
    {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return int(i);
        return -1;
    }
    std::string str(const std::vector<std::string>& row, const std::string& name) const
    {
        int c = col(name);
        return c >= 0 && c < int(row.size()) ? row[c] : std::string();
    }
    double num(const std::vector<std::string>& row, const std::string& name) const
    {
        std::string s = str(row, name);
        if (s.empty())
            return std::nan("");
        try {
            return std::stod(s);
        } catch (...) {
            return std::nan("");
        }
    }
};

std::vector<std::string> splitCsvLine(const std::string& line)
{
    // The dataset files contain no quoted fields after their '#' line.
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ','))
        out.push_back(cell);
    if (!line.empty() && line.back() == ',')
        out.emplace_back();
    return out;
}

Csv loadCsv(const std::string& file)
{
    Csv csv;
    std::ifstream in(memx::test::dataFile("datasets/" + file));
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty() || line[0] == '#')
            continue;
        if (csv.header.empty())
            csv.header = splitCsvLine(line);
        else
            csv.rows.push_back(splitCsvLine(line));
    }
    return csv;
}

// ------------------------------------------------------------ error summary

struct Row {
    std::string label;
    double measured = 0;
    double predicted = 0;
    double errPct() const { return 100.0 * (predicted - measured) / measured; }
};

struct Summary {
    double mape = 0;
    double maxAbs = 0;
    int n = 0;
};

Summary printTable(const QString& title, const QString& unit, const std::vector<Row>& rows)
{
    Summary s;
    qInfo().noquote() << "";
    qInfo().noquote() << "###" << title;
    qInfo().noquote() << QStringLiteral("| row | measured %1 | predicted %1 | error % |").arg(unit);
    qInfo().noquote() << "|---|---:|---:|---:|";
    for (const Row& r : rows) {
        qInfo().noquote() << QStringLiteral("| %1 | %2 | %3 | %4 |")
                                 .arg(QString::fromStdString(r.label))
                                 .arg(r.measured, 0, 'f', 2)
                                 .arg(r.predicted, 0, 'f', 2)
                                 .arg(r.errPct(), 0, 'f', 1);
        s.mape += std::abs(r.errPct());
        s.maxAbs = std::max(s.maxAbs, std::abs(r.errPct()));
        ++s.n;
    }
    if (s.n)
        s.mape /= s.n;
    qInfo().noquote() << QStringLiteral("MAPE %1 %, max |error| %2 % over %3 rows")
                             .arg(s.mape, 0, 'f', 1)
                             .arg(s.maxAbs, 0, 'f', 1)
                             .arg(s.n);
    return s;
}

// ----------------------------------------------------------- configurations

const GpuType* gpu(const char* name)
{
    const GpuType* g = GpuCatalog::builtin().find(name);
    if (!g)
        qFatal("GPU type %s missing from the built-in catalog", name);
    return g;
}

struct Dims {
    int layers = 0, hidden = 0, heads = 0, headDim = 0, groups = 0, ffn = 0, vocab = 0;
    MlpKind mlp = MlpKind::SwiGlu;
    LayerStyle style;
};

// GPT of the 2021/2022 papers: GeLU MLP of 4h, GPT's layer (learned
// positions, LayerNorm, linear biases: Megatron-LM's defaults then and now).
Dims gptDims(int layers, int hidden, int heads, int vocab = 51200)
{
    Dims d;
    d.layers = layers;
    d.hidden = hidden;
    d.heads = heads;
    d.headDim = hidden / heads;
    d.groups = heads;
    d.ffn = 4 * hidden;
    d.mlp = MlpKind::Gelu;
    d.style = LayerStyle::gpt();
    d.vocab = vocab;
    return d;
}

// Megatron pads the vocabulary to a multiple of 128 * TP (make-vocab-size-divisible-by).
int paddedVocab(int vocab, int tp)
{
    int m = 128 * tp;
    return (vocab + m - 1) / m * m;
}

ModelSpec specOf(const Dims& d, int seq)
{
    ModelSpec m;
    m.numLayers = d.layers;
    m.hidden = d.hidden;
    m.heads = d.heads;
    m.headDim = d.headDim;
    m.queryGroups = d.groups;
    m.ffnHidden = d.ffn;
    m.mlp = d.mlp;
    m.style = d.style;
    m.vocab = d.vocab;
    m.seqLen = seq;
    return m;
}

struct Run {
    const GpuType* gpu = nullptr;
    Dims dims;
    int seq = 2048;
    int tp = 1, pp = 1, vpp = 1, dp = 1, mbs = 1, gbs = 1;
    Recompute recompute = Recompute::None;
    bool flash = false;
    memx::Dropout dropout;  // none unless the run's configuration says so
    bool sequenceParallel = true;
    bool distributedOptimizer = false;
    double tpLinkGBps = 300;  // NVLink3, per GPU per direction
    double tpLatencyUs = 5;
    double hopGBps = 25;  // one HDR HCA per GPU
    double dpGBps = 25;  // see dpBandwidthGBps()
    double netLatencyUs = 5;
    double optimizerBytesPerParam = 40;

    int microBatchCount() const { return gbs / (mbs * dp); }
    int layersPerStage() const { return dims.layers / pp; }
};

// DP ring share on DGX A100: a DP group with k = 8/TP members per node uses k HCAs.
double dpBandwidthGBps(int tp) { return 25.0 * std::max(1, 8 / tp); }

StageQuery stageQuery(const Run& r, int stage)
{
    StageQuery q;
    q.gpu = r.gpu;
    q.tp = r.tp;
    q.dp = r.dp;
    q.layers = r.layersPerStage();
    q.microBatch = r.mbs;
    q.seqLen = r.seq;
    q.hidden = r.dims.hidden;
    q.heads = r.dims.heads;
    q.headDim = r.dims.headDim;
    q.queryGroups = r.dims.groups;
    q.ffnHidden = r.dims.ffn;
    q.mlp = r.dims.mlp;
    q.style = r.dims.style;
    q.vocab = r.dims.vocab;
    q.hasEmbedding = stage == 0;
    q.hasOutput = stage == r.pp - 1;
    q.distributedOptimizer = r.distributedOptimizer;
    q.flashAttention = r.flash;
    q.dropout = r.dropout;
    q.sequenceParallel = r.sequenceParallel;
    q.recompute = r.recompute;
    q.inflight = r.vpp > 1 ? IterationComposer::inflightInterleaved(stage, r.pp, r.microBatchCount(), r.vpp)
                           : IterationComposer::inflight1F1B(stage, r.pp, r.microBatchCount());
    q.tpLinkGBps = r.tpLinkGBps;
    q.tpLatencyUs = r.tpLatencyUs;
    return q;
}

double paramsPerGpu(const Run& r, int stage)
{
    return TransformerMath::stageParams(specOf(r.dims, r.seq), r.layersPerStage(), r.tp, stage == 0, stage == r.pp - 1);
}

struct IterationBreakdown {
    double totalMs = 0;
    double pipelineMs = 0;  // (G-1)*max + sum/v
    double hopMs = 0;
    double dpMs = 0;
    double optimizerMs = 0;
};

IterationBreakdown predictIteration(const AnalyticPredictor& predictor, const Run& r)
{
    std::vector<double> stageMs, hopMs;
    double dpMs = 0, optMs = 0;
    ModelSpec m = specOf(r.dims, r.seq);
    PathRate hop{r.hopGBps, r.netLatencyUs};
    for (int i = 0; i < r.pp; ++i) {
        stageMs.push_back(predictor.predictStage(stageQuery(r, i)).timeMs);
        if (i + 1 < r.pp)
            hopMs.push_back(Topology::transferMs(TransformerMath::boundaryActivationBytes(m, r.mbs, r.seq, r.tp), hop));
        double p = paramsPerGpu(r, i);
        dpMs = std::max(dpMs,
                        IterationComposer::dataParallelMs(p, r.dp, r.distributedOptimizer, r.dpGBps, r.netLatencyUs));
        double local = r.distributedOptimizer ? p / r.dp : p;
        optMs = std::max(optMs, local * r.optimizerBytesPerParam / (r.gpu->memoryBandwidthGBps * 1e6));
    }
    IterationBreakdown b;
    b.totalMs = IterationComposer::iterationMs(stageMs, hopMs, r.microBatchCount(), r.vpp, optMs, dpMs);
    b.hopMs = 0;
    for (double h : hopMs)
        b.hopMs += 2.0 * h;
    b.dpMs = dpMs;
    b.optimizerMs = optMs;
    b.pipelineMs = b.totalMs - b.hopMs - dpMs - optMs;
    return b;
}

// Interleaving assumed where the papers do not state it: v = 3 when a stage's
// layers divide by 3, else 2 when they divide by 2 into chunks of >= 2 layers,
// else 1. This reproduces Korthikanti's stated choices (175B: 12 layers/stage,
// v=3; 530B: 3, v=3; 1T: 2, v=1).
int assumedVirtualStages(int layersPerStage, int pp)
{
    if (pp == 1)
        return 1;
    if (layersPerStage % 3 == 0)
        return 3;
    if (layersPerStage % 2 == 0 && layersPerStage > 2)
        return 2;
    return 1;
}

void logBreakdown(const std::string& label, const IterationBreakdown& b)
{
    qInfo().noquote() << QStringLiteral("  %1: pipeline %2 ms, 2*hops %3 ms, dp %4 ms, optimizer %5 ms")
                             .arg(QString::fromStdString(label))
                             .arg(b.pipelineMs, 0, 'f', 0)
                             .arg(b.hopMs, 0, 'f', 1)
                             .arg(b.dpMs, 0, 'f', 0)
                             .arg(b.optimizerMs, 0, 'f', 0);
}

}  // namespace

class TstAnalyticAccuracy : public QObject {
    Q_OBJECT

private slots:
    void korthikantiTable4LayerTime();
    void korthikantiTable5Iteration();
    void narayananTable1Iteration();
    void megatronCiPeakMemory();
    void galvatronLayerActivations();

private:
    AnalyticPredictor predictor_;
};

// Korthikanti et al. 2022, Table 4: forward+backward of one 22B layer
// (h 6144, a 64, s 2048, TP 8, micro-batch 4) on A100-80GB.
void TstAnalyticAccuracy::korthikantiTable4LayerTime()
{
    Csv csv = loadCsv("korthikanti2022_table4_layer_time_22B.csv");
    QVERIFY(!csv.rows.empty());
    std::vector<Row> rows;
    for (const auto& row : csv.rows) {
        std::string exp = csv.str(row, "experiment");
        Run r;
        r.gpu = gpu("A100-80GB");
        r.dims = gptDims(1, 6144, 64);
        r.tp = 8;
        r.mbs = 4;
        r.gbs = 4;
        if (exp.find("Selective") != std::string::npos)
            r.recompute = Recompute::Selective;
        else if (exp.find("with recompute") != std::string::npos)
            r.recompute = Recompute::Full;
        StageQuery q = stageQuery(r, 1);  // middle layer: no embedding, no output
        q.hasEmbedding = q.hasOutput = false;
        rows.push_back({exp, csv.num(row, "combined_ms"), predictor_.predictStage(q).timeMs});
    }
    Summary s = printTable("Korthikanti 2022 Table 4: one 22B layer, fwd+bwd", "ms", rows);
    QCOMPARE(s.n, 5);
    // Achieved: MAPE 4.2 %, max 7.7 % (selective recompute: the model charges
    // only the recomputed attention-core FLOPs, not its softmax/dropout traffic).
    QVERIFY2(s.mape < 4.0, "see docs/ANALYTIC_ACCURACY.md");
    QVERIFY2(s.maxAbs < 6.0, "see docs/ANALYTIC_ACCURACY.md");
}

// Korthikanti et al. 2022, Table 5: end-to-end iteration time, full
// recomputation (no sequence parallelism) and present work (sequence
// parallelism + selective recomputation). TP 8, DP 1 except the §6.3 row.
void TstAnalyticAccuracy::korthikantiTable5Iteration()
{
    Csv csv = loadCsv("korthikanti2022_table3_table5_end_to_end.csv");
    QVERIFY(!csv.rows.empty());
    std::vector<Row> rows;
    for (const auto& row : csv.rows) {
        Run r;
        r.gpu = gpu("A100-80GB");
        r.dims = gptDims(int(csv.num(row, "num_layers")), int(csv.num(row, "hidden_size")),
                         int(csv.num(row, "attention_heads")));
        r.seq = int(csv.num(row, "seq_len"));
        r.tp = int(csv.num(row, "tensor_parallel"));
        r.pp = int(csv.num(row, "pipeline_parallel"));
        r.vpp = int(csv.num(row, "virtual_stages_m"));
        r.dp = int(csv.num(row, "data_parallel"));
        r.mbs = int(csv.num(row, "micro_batch_size"));
        r.gbs = int(csv.num(row, "global_batch_size"));
        r.dpGBps = dpBandwidthGBps(r.tp);
        std::string model = csv.str(row, "model");
        for (auto [column, rc, tag] : {std::tuple{"iter_time_full_recompute_s", Recompute::Full, "full recompute"},
                                       std::tuple{"iter_time_present_work_s", Recompute::Selective, "SP+selective"}}) {
            double measured = csv.num(row, column);
            if (std::isnan(measured))
                continue;
            r.recompute = rc;
            IterationBreakdown b = predictIteration(predictor_, r);
            std::string label = model + ", " + tag;
            logBreakdown(label, b);
            rows.push_back({label, measured, b.totalMs / 1e3});
        }
    }
    Summary s = printTable("Korthikanti 2022 Table 5: iteration time", "s", rows);
    QCOMPARE(s.n, 9);
    // Achieved: MAPE 8.4 %, max 16.4 % (1T over-predicted: one GEMM efficiency
    // for all shapes cannot give both h = 6144 and h = 25600 their real rate).
    QVERIFY2(s.mape < 7.0, "see docs/ANALYTIC_ACCURACY.md");
    QVERIFY2(s.maxAbs < 14.0, "see docs/ANALYTIC_ACCURACY.md");
}

// Narayanan et al. 2021, Table 1 (weak scaling, A100-80GB, full recomputation,
// interleaved schedule). The measured iteration time is the dataset's derived
// column (paper FLOP formula / reported TFLOP/s). Micro-batch size is not
// published: mbs = 1 assumed (Megatron's usual choice for these sizes).
void TstAnalyticAccuracy::narayananTable1Iteration()
{
    Csv csv = loadCsv("narayanan2021_table1_weak_scaling.csv");
    QVERIFY(!csv.rows.empty());
    std::vector<Row> rows;
    for (const auto& row : csv.rows) {
        Run r;
        r.gpu = gpu("A100-80GB");
        r.dims = gptDims(int(csv.num(row, "num_layers")), int(csv.num(row, "hidden_size")),
                         int(csv.num(row, "attention_heads")));
        r.tp = int(csv.num(row, "tensor_parallel"));
        r.pp = int(csv.num(row, "pipeline_parallel"));
        r.dp = int(csv.num(row, "derived_data_parallel"));
        r.gbs = int(csv.num(row, "global_batch_size"));
        r.mbs = 1;
        r.vpp = assumedVirtualStages(r.layersPerStage(), r.pp);
        r.recompute = Recompute::Full;
        r.dpGBps = dpBandwidthGBps(r.tp);
        IterationBreakdown b = predictIteration(predictor_, r);
        std::string label = csv.str(row, "params_billion") + "B (t" + std::to_string(r.tp) + " p" + std::to_string(r.pp)
            + " v" + std::to_string(r.vpp) + " d" + std::to_string(r.dp) + ")";
        logBreakdown(label, b);
        rows.push_back({label, csv.num(row, "derived_iteration_time_s"), b.totalMs / 1e3});
    }
    Summary s = printTable("Narayanan 2021 Table 1: iteration time (derived)", "s", rows);
    QCOMPARE(s.n, 10);
    // Achieved: MAPE 5.4 %, max 12.2 % (1.7B: the pre-flash s^2 softmax
    // traffic is under-charged at small h).
    QVERIFY2(s.mape < 6.5, "see docs/ANALYTIC_ACCURACY.md");
    QVERIFY2(s.maxAbs < 11.0, "see docs/ANALYTIC_ACCURACY.md");
}

// Megatron-LM CI golden values: peak PyTorch-allocated memory on the last rank
// (last pipeline stage) of the large runs, against the predicted peak of the
// last stage minus the runtime reserve (the allocator statistic excludes the
// CUDA context and NCCL buffers).
void TstAnalyticAccuracy::megatronCiPeakMemory()
{
    Csv csv = loadCsv("megatron_lm_ci_golden_values.csv");
    QVERIFY(!csv.rows.empty());
    std::vector<Row> rows, noSpRows, timeRows;
    for (const auto& row : csv.rows) {
        std::string tc = csv.str(row, "test_case"), platform = csv.str(row, "platform");
        bool is7b = tc == "gpt3_7b_tp1_pp4_memory_speed" || tc == "gpt3_7b_tp4_pp1_memory_speed";
        // The *_gb200 case (TP4 PP2) is skipped: its A100 golden equals the
        // TP8 release_sm one and its H100 golden shows A100-like time with
        // TP8-like memory, so they do not describe TP4 PP2; GB200 is not
        // among the validated GPUs.
        bool is15b = tc.rfind("gpt3_15b_8t_release", 0) == 0 && tc.find("gb200") == std::string::npos;
        if (!(is7b || is15b) || (platform != "dgx_a100" && platform != "dgx_h100"))
            continue;
        Run r;
        r.gpu = gpu(platform == "dgx_a100" ? "A100-80GB" : "H100-SXM");
        r.tp = int(csv.num(row, "tp"));
        r.pp = int(csv.num(row, "pp"));
        r.mbs = int(csv.num(row, "mbs"));
        r.seq = int(csv.num(row, "seq_len"));
        int layers = int(csv.num(row, "num_layers")), hidden = int(csv.num(row, "hidden"));
        int heads = int(csv.num(row, "heads"));
        // swiglu False, ffn_hidden blank: GeLU MLP of 4h.
        Dims d = gptDims(layers, hidden, heads);
        d.groups = int(csv.num(row, "query_groups"));
        double vocab = csv.num(row, "vocab");
        // 15B: GPTSentencePieceTokenizer of Nemotron-4 15B, 256000 entries (assumed).
        d.vocab = paddedVocab(std::isnan(vocab) ? 256000 : int(vocab), r.tp);
        // Layer style from model_config.yaml (megatron_lm_ci_case_flags.csv):
        // the 15B release cases set rope and --disable-bias-linear with
        // LayerNorm; the 7B cases leave all three at Megatron's GPT defaults.
        if (is15b)
            d.style = LayerStyle{PositionEmbedding::Rope, Normalization::LayerNorm, false};
        r.dims = d;
        r.flash = true;  // Transformer Engine fused/flash attention
        r.distributedOptimizer = csv.str(row, "dist_optimizer") == "True";
        r.recompute = Recompute::None;
        if (is7b) {
            // model_config.yaml sets no dropout: Megatron's 0.1 on both
            // (tests/data/datasets/megatron_lm_ci_case_flags.csv). With
            // FlashAttention only the two hidden-dropout masks are kept.
            r.dropout = memx::Dropout{true, true};
            // 8 GPUs (H100 recipe; the A100 golden has no recipe, same assumed):
            // DP = 8 / (TP*PP) = 2; global batch 8.
            r.dp = 8 / (r.tp * r.pp);
            r.gbs = int(csv.num(row, "gbs"));
            double vpLayers = csv.num(row, "vp_layers_per_stage");
            r.vpp = std::isnan(vpLayers) ? 1 : r.layersPerStage() / int(vpLayers);
        } else {
            // GPU count not in the repo; DP = 16 assumed (it makes the model
            // states match the logged steady-state allocation of the H100 run).
            // Only the last stage's peak matters, which does not depend on the
            // batch ramp with PP = 1 (one micro-batch alive).
            r.dp = 16;
            r.gbs = 384;
        }
        bool sp = csv.str(row, "sequence_parallel") == "True";
        r.sequenceParallel = sp;
        StageQuery last = stageQuery(r, r.pp - 1);
        StagePrediction p = predictor_.predictStage(last);
        double predictedGiB = p.memory.allocatedMiB() / 1024.0;  // the log's "max allocated"
        std::string label = tc + " " + platform + " (t" + std::to_string(r.tp) + (sp ? " SP" : "") + " p"
            + std::to_string(r.pp) + " v" + std::to_string(r.vpp) + " d" + std::to_string(r.dp) + " mbs"
            + std::to_string(r.mbs) + ")";
        qInfo().noquote() << QStringLiteral("  %1: states %2 GiB, activations %3 GiB (inflight %4), steady-state "
                                            "logged %5 GiB")
                                 .arg(QString::fromStdString(label))
                                 .arg((p.memory.weightsMiB + p.memory.gradientsMiB + p.memory.optimizerMiB) / 1024.0, 0,
                                      'f', 2)
                                 .arg(p.memory.activationsMiB / 1024.0, 0, 'f', 2)
                                 .arg(last.inflight, 0, 'f', 3)
                                 .arg(csv.num(row, "mem_allocated_median_GiB"), 0, 'f', 2);
        if (is7b) {
            // Iteration time, for information: one node, everything on NVLink
            // (A100 300 GB/s, H100 450 GB/s per direction).
            Run tr = r;
            double nvlink = platform == "dgx_a100" ? 300.0 : 450.0;
            tr.tpLinkGBps = tr.hopGBps = tr.dpGBps = nvlink;
            timeRows.push_back(
                {label, csv.num(row, "iter_time_median_s"), predictIteration(predictor_, tr).totalMs / 1e3});
        }
        (sp || r.tp == 1 ? rows : noSpRows).push_back({label, csv.num(row, "mem_max_allocated_GiB"), predictedGiB});
    }
    Summary s = printTable("Megatron-LM CI: peak allocated memory, last rank (SP or TP 1)", "GiB", rows);
    Summary n = printTable("Megatron-LM CI: peak allocated memory, last rank, TP > 1 without SP", "GiB", noSpRows);
    Summary t = printTable("Megatron-LM CI 7B: iteration time (information only)", "s", timeRows);
    QCOMPARE(s.n, 6);
    QCOMPARE(n.n, 2);
    QCOMPARE(t.n, 4);
    // Achieved: MAPE 1.2 %, max 1.7 % with sequence parallelism (or TP 1):
    // the 15B rows -0.9/-1.7 % (no dropout), the 7B TP1-PP4 rows -0.8/-1.2 %
    // with their hidden-dropout masks and the last stage's 29 of 32 chunks in
    // flight (+3.9/+4.3 % when all 32 were counted, as Megatron did for
    // G == P before microbatch groups per virtual stage).
    QVERIFY2(s.mape < 1.5, "see docs/ANALYTIC_ACCURACY.md");
    QVERIFY2(s.maxAbs < 2.5, "see docs/ANALYTIC_ACCURACY.md");
    // Without sequence parallelism (StageQuery::sequenceParallel = false) the
    // replicated norm/QKV/MLP inputs and dropout masks are modelled; the TP 4
    // runs come out 1.7-3.5 % low (9-11 % before the masks were counted;
    // allocator effects are not modelled).
    for (const Row& r : noSpRows)
        QVERIFY2(r.predicted < r.measured, r.label.c_str());
    QVERIFY2(n.maxAbs < 4.0, "see docs/ANALYTIC_ACCURACY.md");
    // Time of these short CI runs is under-predicted by 6-15 % on both A100
    // and H100 (25-32 % for the interleaved TP1-PP4 rows while the composer
    // divided the whole stage sum by v, see the doc).
    QVERIFY2(t.maxAbs < 17.0, "see docs/ANALYTIC_ACCURACY.md");
}

// Galvatron memory profiles: activation memory of one layer per sample, by TP
// degree (sequence parallel) and under full recomputation ("checkpoint").
void TstAnalyticAccuracy::galvatronLayerActivations()
{
    Csv csv = loadCsv("galvatron_memory_profiles_llama.csv");
    QVERIFY(!csv.rows.empty());
    std::vector<Row> rows, ckpt;
    for (const auto& row : csv.rows) {
        if (csv.str(row, "quantity") != "per_layer_activation_per_sample_MiB")
            continue;
        ModelSpec m;
        m.hidden = int(csv.num(row, "hidden"));
        m.heads = int(csv.num(row, "heads"));
        m.headDim = m.hidden / m.heads;
        m.queryGroups = int(csv.num(row, "kv_heads"));
        m.ffnHidden = int(csv.num(row, "ffn"));
        m.vocab = int(csv.num(row, "vocab"));
        int s = int(csv.num(row, "seq_len"));
        m.seqLen = s;
        std::string tp = csv.str(row, "tp");
        bool checkpoint = tp == "checkpoint";
        int t = checkpoint ? 1 : std::stoi(tp);
        double bytes
            = TransformerMath::layerActivationBytes(m, 1, s, t, true, checkpoint ? Recompute::Full : Recompute::None);
        Row r{csv.str(row, "model") + " tp=" + tp, csv.num(row, "value"), bytes / kMiB};
        (checkpoint ? ckpt : rows).push_back(r);
    }
    Summary s = printTable("Galvatron: per-layer activation per sample (SP, flash)", "MiB", rows);
    Summary c = printTable("Galvatron: per-layer residue under full recompute", "MiB", ckpt);
    QVERIFY(s.n >= 8);
    QVERIFY(c.n >= 2);
    QVERIFY2(c.maxAbs < 0.5, "full-recompute residue is exactly 2sbh");
    // Achieved: MAPE 26.0 %, max 27.3 %, always below the profile. Galvatron's
    // unfused LLaMA keeps the SiLU output (2sbf) and the rotated Q and K, which
    // Megatron's fused SwiGLU / RoPE (what the formula follows) do not keep.
    for (const Row& r : rows)
        QVERIFY2(r.predicted < r.measured, r.label.c_str());
    QVERIFY2(s.mape < 28.0, "see docs/ANALYTIC_ACCURACY.md");
    QVERIFY2(s.maxAbs < 30.0, "see docs/ANALYTIC_ACCURACY.md");
}

MEMX_TEST_APPLESS_MAIN(TstAnalyticAccuracy)
}  // namespace tst_analytic_accuracy

#include "tst_analytic_accuracy.moc"
