// The model variants a stage prediction must honour: a GeLU MLP (GPT) next to
// a SwiGLU one (LLaMA), and an output layer tied to the embedding. Every
// expected number is worked out by hand in the comment beside it.
#include "TestModels.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "model/LayerOperators.h"
#include "model/TransformerMath.h"
#include "predict/AnalyticPredictor.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"

#include "TestMain.h"

namespace tst_model_variants {

using namespace memx;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// tests/TestModels.h's tiny model as a query: h=64, a=4, d=16, g=2, f=128, V=1000, 2 layers, bf16.
StageQuery tinyQuery()
{
    const ModelSpec m = test::tinyModel();
    StageQuery q = test::stageOf(m, GpuCatalog::builtin().find("A100-80GB"), m.numLayers, 2, 8);
    q.distributedOptimizer = false;
    return q;
}

}  // namespace

class TestModelVariants : public QObject {
    Q_OBJECT
private slots:
    void tiedEmbeddingsOnOneStageShareTheMatrix_data();
    void tiedEmbeddingsOnOneStageShareTheMatrix();
    void geluStageHoldsTwoMatrices();
    void measuredRunsCarryTheVariant();
    void gptLayerStyle_data();
    void gptLayerStyle();
    void gptLayerStyleDropsTheRotaryKernel();
    void layerStyleColumns();
};

// bf16 weights are 2 bytes per parameter. The output matrix is V*h = 64,000
// parameters = 128,000 bytes = 0.1220703125 MiB. One stage holding both ends
// shares it when tied; a last stage after others keeps its own copy either way.
void TestModelVariants::tiedEmbeddingsOnOneStageShareTheMatrix_data()
{
    QTest::addColumn<bool>("hasEmbedding");
    QTest::addColumn<double>("savedMiB");
    QTest::newRow("one stage (PP 1)") << true << 128000.0 / kMiB;
    QTest::newRow("last of several") << false << 0.0;
}

void TestModelVariants::tiedEmbeddingsOnOneStageShareTheMatrix()
{
    QFETCH(bool, hasEmbedding);
    QFETCH(double, savedMiB);
    StageQuery q = tinyQuery();
    q.hasEmbedding = hasEmbedding;
    q.hasOutput = true;
    const AnalyticPredictor a;
    const StagePrediction untied = a.predictStage(q);
    q.tiedEmbeddings = true;
    const StagePrediction tied = a.predictStage(q);
    QCOMPARE(untied.memory.weightsMiB - tied.memory.weightsMiB + 1.0, savedMiB + 1.0);
    QVERIFY(!(q == tinyQuery()));  // the cache tells them apart
}

// tiny, SwiGLU: layer 36,992 parameters; GeLU: 28,800 (tst_transformer_math).
// Two layers without embedding or output: 73,984 vs 57,600 parameters, 2 bytes
// each: 147,968 vs 115,200 bytes. The GeLU stage also does fewer FLOPs.
void TestModelVariants::geluStageHoldsTwoMatrices()
{
    StageQuery q = tinyQuery();
    const AnalyticPredictor a;
    const StagePrediction swiglu = a.predictStage(q);
    q.mlp = MlpKind::Gelu;
    const StagePrediction gelu = a.predictStage(q);
    QCOMPARE(swiglu.memory.weightsMiB * kMiB, 147968.0);
    QCOMPARE(gelu.memory.weightsMiB * kMiB, 115200.0);
    // Time: the tiny layer is launch-bound (equal times); a 4096-wide layer
    // with f = 4h is not, and its GeLU MLP has 2/3 of the MLP FLOPs.
    QVERIFY(gelu.timeMs <= swiglu.timeMs);
    StageQuery big = tinyQuery();
    big.hidden = 4096;
    big.heads = 32;
    big.headDim = 128;
    big.queryGroups = 32;
    big.ffnHidden = 16384;
    big.seqLen = 4096;
    const double swigluMs = a.predictStage(big).timeMs;
    big.mlp = MlpKind::Gelu;
    const double geluMs = a.predictStage(big).timeMs;
    // GEMM FLOPs per token: SwiGLU 4h^2 + 3hf = 16h^2, GeLU 4h^2 + 2hf = 12h^2:
    // the GeLU layer takes clearly less, and more than 12/16 of the time.
    QVERIFY2(geluMs < 0.9 * swigluMs && geluMs > 0.7 * swigluMs,
             qPrintable(QString("GeLU %1 ms, SwiGLU %2 ms").arg(geluMs).arg(swigluMs)));
    // Activations per token 12h + 4gd + 6f = 1,664 (SwiGLU) vs 12h + 4gd + 4f = 1,408 bytes (GeLU).
    QVERIFY(gelu.memory.activationsMiB < swiglu.memory.activationsMiB);
}

// A measured GPT run names its variant; the model it is predicted with has it.
void TestModelVariants::measuredRunsCarryTheVariant()
{
    const std::string csv = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                            "iteration_time_ms,mlp,tied_embeddings\n"
                            "gpt,A100-80GB,1,1,1,1,1,8,1024,12,768,12,50257,100,gelu,true\n"
                            "llama,A100-80GB,1,1,1,1,1,8,1024,12,768,12,32000,100,,\n";
    const MeasurementSet set = MeasurementCsv::parse(csv, "m.csv");
    const auto runs = MeasuredRun::group(set.rows, "m.csv");
    QCOMPARE(runs.size(), std::size_t(2));
    const ModelSpec gpt = runs[0].model();
    QCOMPARE(gpt.mlp, MlpKind::Gelu);
    QVERIFY(gpt.tiedEmbeddings);
    QCOMPARE(gpt.ffnHidden, 4 * 768);  // GeLU default: Megatron's 4h
    const ModelSpec llama = runs[1].model();
    QCOMPARE(llama.mlp, MlpKind::SwiGlu);
    QVERIFY(!llama.tiedEmbeddings);
    QCOMPARE(llama.ffnHidden, 2048);  // 8*768/3 = 2048, already a multiple of 256
    // A repeat of the GPT configuration as a LLaMA one is another configuration.
    QVERIFY(runs[0].configurationKey() != runs[1].configurationKey());
    // Written back only with the columns a row needs, and read back the same.
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(written.find("mlp,tied_embeddings\n") != std::string::npos);
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
    QVERIFY(MeasurementCsv::write({set.rows[1]}).find("tied_embeddings") == std::string::npos);
    try {
        MeasurementCsv::parse("run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                              "iteration_time_ms,tied_embeddings\n"
                              "r,A100-80GB,1,1,1,1,1,8,1024,12,768,12,50257,100,yes\n",
                              "m.csv");
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), QString("line 2, column tied_embeddings"));
        QVERIFY2(QString::fromStdString(e.reason()).contains("true|false, got \"yes\""), e.what());
    }
}

// GPT's layer (learned positions, LayerNorm, linear biases) against LLaMA's,
// by hand on the tiny model (h 64, a 4 x d 16, g 2, SwiGLU f 128, V 1000),
// two layers at s = 8 in bf16 (2 bytes a parameter). Per layer LayerNorm adds
// a bias of h to each of the two norms (+128) and the linear biases are
// QKV ad + 2gd = 128, projection h = 64, FC1 2f = 256, FC2 h = 64 (+512):
// 36,992 -> 37,632 parameters. The first stage also holds the s x h = 512
// position table, whole on every TP rank, and LayerNorm's final norm has a
// bias too (the output stage is not asked here).
void TestModelVariants::gptLayerStyle_data()
{
    QTest::addColumn<bool>("gpt");
    QTest::addColumn<bool>("hasEmbedding");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("weightBytes");
    QTest::newRow("LLaMA, middle stage") << false << false << 1 << 2.0 * 2 * 36992;
    QTest::newRow("GPT, middle stage") << true << false << 1 << 2.0 * 2 * 37632;
    // + V h = 64,000 word embedding.
    QTest::newRow("LLaMA, first stage") << false << true << 1 << 2.0 * (2 * 36992 + 64000);
    QTest::newRow("GPT, first stage") << true << true << 1 << 2.0 * (2 * 37632 + 64000 + 512);
    // TP 2 halves all but what Megatron keeps whole on every rank: the norms
    // (RMSNorm 2h = 128 a layer; LayerNorm 4h = 256), the row-parallel biases
    // (projection and FC2, 2h = 128) and the position table (512).
    QTest::newRow("LLaMA, first stage, TP 2")
        << false << true << 2 << 2.0 * ((2 * (36992 - 128) + 64000) / 2 + 2 * 128);
    QTest::newRow("GPT, first stage, TP 2")
        << true << true << 2 << 2.0 * ((2 * (37632 - 384) + 64000) / 2 + 2 * 384 + 512);
}

void TestModelVariants::gptLayerStyle()
{
    QFETCH(bool, gpt);
    QFETCH(bool, hasEmbedding);
    QFETCH(int, tp);
    QFETCH(double, weightBytes);
    StageQuery q = tinyQuery();
    if (gpt)
        q.style = LayerStyle::gpt();
    q.hasEmbedding = hasEmbedding;
    q.tp = tp;
    const StagePrediction p = AnalyticPredictor().predictStage(q);
    QCOMPARE(p.memory.weightsMiB * kMiB, weightBytes);
    QCOMPARE(q == tinyQuery(), !gpt && !hasEmbedding && tp == 1);  // the cache tells them apart
}

// Learned positions are added once, at the embedding; only rotary models run
// a rotary kernel on Q and K in every layer. The tiny layer is launch-bound,
// so one kernel fewer per layer is a shorter stage.
void TestModelVariants::gptLayerStyleDropsTheRotaryKernel()
{
    ModelSpec llama = test::tinyModel();
    ModelSpec gpt = llama;
    gpt.style = LayerStyle::gpt();
    auto names = [](const std::vector<Operator>& ops) {
        QStringList n;
        for (const Operator& o : ops)
            n << QString::fromStdString(o.name);
        return n;
    };
    QVERIFY(names(LayerOperators::forward(llama, 2, 8, 1, true, true)).contains("rotary embedding"));
    QVERIFY(!names(LayerOperators::forward(gpt, 2, 8, 1, true, true)).contains("rotary embedding"));
    QVERIFY(!names(LayerOperators::embedding(llama, 2, 8, 1)).contains("position embedding add"));
    const QStringList gptEmbedding = names(LayerOperators::embedding(gpt, 2, 8, 1));
    QVERIFY(gptEmbedding.contains("position embedding add") && gptEmbedding.contains("position embedding gradient"));
    StageQuery q = tinyQuery();
    const double llamaMs = AnalyticPredictor().predictStage(q).timeMs;
    q.style = LayerStyle::gpt();
    QVERIFY(AnalyticPredictor().predictStage(q).timeMs < llamaMs);
}

// The measurement columns: empty is LLaMA's style, GPT rows name theirs,
// the columns are written only when a row needs them, and a bad value names
// its line and column.
void TestModelVariants::layerStyleColumns()
{
    const std::string head = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                             "iteration_time_ms,position_embedding,normalization,bias_linear\n";
    const MeasurementSet set = MeasurementCsv::parse(head
                                                         + "gpt,A100-80GB,1,1,1,1,1,8,1024,12,768,12,50257,100,"
                                                           "learned_absolute,layernorm,true\n"
                                                           "llama,A100-80GB,1,1,1,1,1,8,1024,12,768,12,32000,100,,,\n",
                                                     "m.csv");
    const auto runs = MeasuredRun::group(set.rows, "m.csv");
    QVERIFY(runs[0].model().style == LayerStyle::gpt());
    QVERIFY(runs[1].model().style == LayerStyle{});
    QVERIFY(runs[0].configurationKey() != runs[1].configurationKey());
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(written.find("position_embedding,normalization,bias_linear\n") != std::string::npos);
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
    QVERIFY(MeasurementCsv::write({set.rows[1]}).find("position_embedding") == std::string::npos);
    for (const auto& [cells, column, reason] :
         {std::tuple{"alibi,,", "position_embedding", "rope|learned_absolute|none, got \"alibi\""},
          std::tuple{",batchnorm,", "normalization", "rmsnorm|layernorm, got \"batchnorm\""},
          std::tuple{",,maybe", "bias_linear", "true|false, got \"maybe\""}}) {
        try {
            MeasurementCsv::parse(head + "r,A100-80GB,1,1,1,1,1,8,1024,12,768,12,50257,100," + cells + "\n", "m.csv");
            QFAIL("no InputError raised");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QString("line 2, column ") + column);
            QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
        }
    }
}

MEMX_TEST_APPLESS_MAIN(TestModelVariants)
}  // namespace tst_model_variants

#include "tst_model_variants.moc"
