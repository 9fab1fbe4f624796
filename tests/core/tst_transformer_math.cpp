// TransformerMath: closed-form parameter, FLOP and byte counts.
// Every expected number below is worked out by hand in the comment next to
// it, or taken from a public model card / paper (cited inline).
#include "TestModels.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

#include "TestMain.h"
#include "TestMetaTypes.h"

#include <cmath>

namespace tst_transformer_math {

using memx::ModelSpec;
using memx::Recompute;
using memx::TransformerMath;

namespace {

// A tiny made-up model (tests/TestModels.h): h=64, a=4, d=16, g=2, f=128, V=1000, L=2.
ModelSpec tiny() { return memx::test::tinyModel(); }

// Relative comparison for large counts (QCOMPARE on doubles uses ~1e-12 fuzz,
// which is fine for exact integers but not for the "about 6.74e9" claims).
bool near(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

}  // namespace

class TestTransformerMath : public QObject {
    Q_OBJECT

private slots:
    void presetsMatchPublicConfigs_data();
    void presetsMatchPublicConfigs();
    void parameterCounts_data();
    void parameterCounts();
    void tiedEmbeddingsDropOutputMatrixButKeepFinalNorm();
    void geluMlp();
    void forwardFlops_data();
    void forwardFlops();
    void trainingFlops_data();
    void trainingFlops();
    void outputTrainingFlops();
    void matchesKorthikantiEq7_data();
    void matchesKorthikantiEq7();
    void activationBytes_data();
    void activationBytes();
    void dropoutMatchesKorthikanti_data();
    void dropoutMatchesKorthikanti();
    void logitsAndBoundaryBytes_data();
    void logitsAndBoundaryBytes();
    void modelStateBytesPerParam_data();
    void modelStateBytesPerParam();
    void wgradBuffers_data();
    void wgradBuffers();
};

// The presets must be the published architectures (HF config.json of each
// model: hidden_size, num_attention_heads, num_key_value_heads,
// intermediate_size, vocab_size, num_hidden_layers).
void TestTransformerMath::presetsMatchPublicConfigs_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("groups");
    QTest::addColumn<int>("ffn");
    QTest::addColumn<int>("vocab");
    QTest::newRow("llama2-7b") << "llama2-7b" << 32 << 4096 << 32 << 32 << 11008 << 32000;
    QTest::newRow("llama2-70b GQA") << "llama2-70b" << 80 << 8192 << 64 << 8 << 28672 << 32000;
    QTest::newRow("llama3-8b GQA") << "llama3-8b" << 32 << 4096 << 32 << 8 << 14336 << 128256;
    QTest::newRow("gpt3-175b (Brown et al. Table 2.1)") << "gpt3-175b" << 96 << 12288 << 96 << 96 << 49152 << 51200;
}

void TestTransformerMath::presetsMatchPublicConfigs()
{
    QFETCH(QString, name);
    const ModelSpec* m = ModelSpec::findPreset(name.toStdString());
    QVERIFY(m != nullptr);
    QTEST(m->numLayers, "layers");
    QTEST(m->hidden, "hidden");
    QTEST(m->heads, "heads");
    QCOMPARE(m->headDim, 128);
    QTEST(m->queryGroups, "groups");
    QTEST(m->ffnHidden, "ffn");
    QTEST(m->vocab, "vocab");
    // LLaMA: SwiGLU, untied; GPT-3: GeLU, the output layer shares the embedding.
    const bool gpt = name.startsWith(QLatin1String("gpt"));
    QCOMPARE(m->mlp, gpt ? memx::MlpKind::Gelu : memx::MlpKind::SwiGlu);
    QCOMPARE(m->tiedEmbeddings, gpt);
}

void TestTransformerMath::parameterCounts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("layerParams");
    QTest::addColumn<double>("totalParams");
    QTest::addColumn<double>("modelCard");  // the size the model card advertises

    // llama2-7b, h=4096 a=32 d=128 g=32 f=11008 V=32000 L=32:
    //   Wq 4096*4096 + Wk,Wv 2*4096*4096 + Wo 4096*4096 = 4*16,777,216 = 67,108,864
    //   MLP 3*4096*11008 = 3*45,088,768 = 135,266,304;  norms 2*4096 = 8,192
    //   layer = 202,383,360
    //   total = 32*202,383,360 + 32000*4096 (embedding) + 32000*4096 + 4096 (output + final norm)
    //         = 6,476,267,520 + 131,072,000 + 131,076,096 = 6,738,415,616  (model card: 6.74B)
    QTest::newRow("llama2-7b") << "llama2-7b" << 202383360.0 << 6738415616.0 << 6.74e9;
    // llama2-70b, h=8192 a=64 d=128 g=8 f=28672 V=32000 L=80:
    //   Wq+Wo 2*8192*8192 = 134,217,728; Wk,Wv 2*8192*8*128 = 16,777,216
    //   MLP 3*8192*28672 = 3*234,881,024 = 704,643,072;  norms 16,384
    //   layer = 855,654,400; 80 layers = 68,452,352,000
    //   total = 68,452,352,000 + 2*32000*8192 + 8192 = 68,976,648,192  (model card: 69B)
    QTest::newRow("llama2-70b GQA") << "llama2-70b" << 855654400.0 << 68976648192.0 << 69e9;
    // llama3-8b, h=4096 a=32 d=128 g=8 f=14336 V=128256 L=32:
    //   Wq+Wo 33,554,432; Wk,Wv 2*4096*1024 = 8,388,608
    //   MLP 3*4096*14336 = 176,160,768;  norms 8,192  -> layer = 218,112,000
    //   total = 32*218,112,000 + 2*128256*4096 + 4096
    //         = 6,979,584,000 + 1,050,673,152 + 4,096 = 8,030,261,248  (model card: 8B)
    QTest::newRow("llama3-8b GQA") << "llama3-8b" << 218112000.0 << 8030261248.0 << 8.03e9;
    // gpt3-175b, h=12288 a=96 d=128 g=96 f=4h=49152 GeLU (two matrices), V=51200, L=96, tied,
    // GPT's layer (learned positions, LayerNorm, linear biases):
    //   attention 4*12288^2 = 603,979,776; MLP 2*12288*49152 = 1,207,959,552;
    //   two LayerNorms, scale and bias, 4*12288 = 49,152;
    //   biases QKV 3*12288 + projection 12288 + FC1 49152 + FC2 12288 = 110,592
    //   layer = 1,812,099,072; 96 layers = 173,961,510,912
    //   total = 173,961,510,912 + 51200*12288 (embedding, shared with the output)
    //         + 2048*12288 (positions) + 2*12288 (final LayerNorm)
    //         = 173,961,510,912 + 629,145,600 + 25,165,824 + 24,576 = 174,615,846,912
    //   (Brown et al. 2020: 175.0B)
    QTest::newRow("gpt3-175b GeLU tied") << "gpt3-175b" << 1812099072.0 << 174615846912.0 << 175.0e9;
}

void TestTransformerMath::parameterCounts()
{
    QFETCH(QString, name);
    QFETCH(double, layerParams);
    QFETCH(double, totalParams);
    QFETCH(double, modelCard);
    const ModelSpec& m = *ModelSpec::findPreset(name.toStdString());
    QCOMPARE(TransformerMath::layerParams(m), layerParams);
    QCOMPARE(TransformerMath::totalParams(m), totalParams);
    QCOMPARE(TransformerMath::embeddingParams(m), double(m.vocab) * m.hidden);
    // The advertised size, to the precision it is advertised with (2 digits after the point in billions).
    QVERIFY2(near(TransformerMath::totalParams(m), modelCard, 0.01), qPrintable(QString::number(modelCard)));
}

void TestTransformerMath::tiedEmbeddingsDropOutputMatrixButKeepFinalNorm()
{
    ModelSpec m = tiny();
    // tiny: layer = 64*64 + 2*64*2*16 + 64*64 + 3*64*128 + 2*64 = 4096+4096+4096+24576+128 = 36,992
    QCOMPARE(TransformerMath::layerParams(m), 36992.0);
    // untied: 2*36,992 + 1000*64 + (1000*64 + 64) = 73,984 + 64,000 + 64,064 = 202,048
    QCOMPARE(TransformerMath::outputParams(m), 64064.0);
    QCOMPARE(TransformerMath::totalParams(m), 202048.0);
    m.tiedEmbeddings = true;
    // tied: the output matrix is the embedding; only the final norm (64) remains.
    QCOMPARE(TransformerMath::outputParams(m), 64.0);
    QCOMPARE(TransformerMath::totalParams(m), 138048.0);  // 73,984 + 64,000 + 64
    // One stage holds embedding and output once: 2 layers + 64,000 + 64 = 138,048.
    QCOMPARE(TransformerMath::stageParams(m, 2, 1, true, true), 138048.0);
    // Over a pipeline the last stage keeps its own copy of the shared matrix:
    // 1 layer + final norm + embedding copy = 36,992 + 64 + 64,000 = 101,056. TP 2 halves all
    // but the norms, which every rank holds whole: (36,864 + 64,000) / 2 + 128 + 64 = 50,624.
    QCOMPARE(TransformerMath::stageParams(m, 1, 1, false, true), 101056.0);
    QCOMPARE(TransformerMath::stageParams(m, 1, 2, false, true), 50624.0);
    m.tiedEmbeddings = false;
    QCOMPARE(TransformerMath::stageParams(m, 1, 1, false, true), 101056.0);  // its own output matrix instead
}

void TestTransformerMath::geluMlp()
{
    // tiny with a GeLU MLP of f = 128: two matrices.
    ModelSpec m = tiny();
    m.mlp = memx::MlpKind::Gelu;
    // layer = 4096 + 4096 + 4096 + 2*64*128 + 128 = 12,416 + 16,384 = 28,800
    QCOMPARE(TransformerMath::layerParams(m), 28800.0);
    // forward FLOPs, b=2 s=8 flash: 2*16*(28,800 - 128) + core 0.5*4*2*64*4*16 = 917,504 + 16,384 = 933,888
    QCOMPARE(TransformerMath::layerForwardFlops(m, 2, 8, true), 933888.0);
    // activations, b=2 s=8 t=1 flash: per token 12h + 4gd + 4f = 768 + 128 + 512 = 1,408 -> 16*1,408 = 22,528
    QCOMPARE(TransformerMath::layerActivationBytes(m, 2, 8, 1, true, Recompute::None), 22528.0);
    // Korthikanti et al. 2022 (Eq. 1) for GPT, f = 4h, MHA: sbh(34 + 5as/h) per layer; flash attention
    // drops 5as^2b and this block has no dropout masks (2sbh) -> 32sbh. h=64, a=4 (d=16), g=4, f=256, b=2, s=8:
    // 32*16*64 = 32,768.
    m.queryGroups = 4;
    m.ffnHidden = 256;
    QCOMPARE(TransformerMath::layerActivationBytes(m, 2, 8, 1, true, Recompute::None), 32768.0);
    // A model file says which; without the key it is SwiGLU, and GeLU's default size is 4h.
    QCOMPARE(ModelSpec::defaultFfn(4096, memx::MlpKind::Gelu), 16384);
    QCOMPARE(ModelSpec::defaultFfn(4096), 11008);
}

void TestTransformerMath::forwardFlops_data()
{
    QTest::addColumn<QString>("model");  // "tiny" or a preset
    QTest::addColumn<int>("b");
    QTest::addColumn<int>("s");
    QTest::addColumn<bool>("flash");
    QTest::addColumn<double>("attentionCore");
    QTest::addColumn<double>("layerForward");

    // tiny, b=2 s=8: matmul params = 36,992 - 128 (norms are not GEMMs) = 36,864
    //   GEMMs 2*2*8*36,864 = 1,179,648; core 4*2*8^2*4*16 = 32,768
    QTest::newRow("tiny b2 s8 no flash") << "tiny" << 2 << 8 << false << 32768.0 << 1212416.0;
    //   flash halves the core: 16,384 -> 1,179,648 + 16,384
    QTest::newRow("tiny b2 s8 flash") << "tiny" << 2 << 8 << true << 16384.0 << 1196032.0;
    // llama2-7b b=1 s=4096: matmul params = 202,383,360 - 8,192 = 202,375,168
    //   GEMMs 2*4096*202,375,168 = 1,657,857,376,256
    //   core 4*4096^2*32*128 = 4*16,777,216*4,096 = 274,877,906,944
    QTest::newRow("llama2-7b b1 s4096 no flash")
        << "llama2-7b" << 1 << 4096 << false << 274877906944.0 << 1932735283200.0;
    //   flash: core 137,438,953,472 -> 1,795,296,329,728
    QTest::newRow("llama2-7b b1 s4096 flash") << "llama2-7b" << 1 << 4096 << true << 137438953472.0 << 1795296329728.0;
}

void TestTransformerMath::forwardFlops()
{
    QFETCH(QString, model);
    QFETCH(int, b);
    QFETCH(int, s);
    QFETCH(bool, flash);
    const ModelSpec m = model == "tiny" ? tiny() : *ModelSpec::findPreset(model.toStdString());
    QTEST(TransformerMath::attentionCoreForwardFlops(m, b, s, flash), "attentionCore");
    QTEST(TransformerMath::layerForwardFlops(m, b, s, flash), "layerForward");
}

void TestTransformerMath::trainingFlops_data()
{
    QTest::addColumn<bool>("flash");
    QTest::addColumn<Recompute>("recompute");
    QTest::addColumn<double>("expected");
    // tiny, b=2 s=8. Forward (no flash) 1,212,416, core 32,768.
    QTest::newRow("no flash, none = 3 fwd") << false << Recompute::None << 3637248.0;  // 3*1,212,416
    QTest::newRow("no flash, selective = 3 fwd + core")
        << false << Recompute::Selective << 3670016.0;  // 3,637,248 + 32,768
    QTest::newRow("no flash, full = 4 fwd") << false << Recompute::Full << 4849664.0;  // 4*1,212,416
    // Flash: forward 1,196,032, core 16,384.
    QTest::newRow("flash, none") << true << Recompute::None << 3588096.0;  // 3*1,196,032
    QTest::newRow("flash, selective") << true << Recompute::Selective << 3604480.0;  // + 16,384
    QTest::newRow("flash, full") << true << Recompute::Full << 4784128.0;  // 4*1,196,032
}

void TestTransformerMath::trainingFlops()
{
    QFETCH(bool, flash);
    QFETCH(Recompute, recompute);
    QTEST(TransformerMath::layerTrainingFlops(tiny(), 2, 8, flash, recompute), "expected");
}

void TestTransformerMath::outputTrainingFlops()
{
    // 3 * 2*b*s*h*V = 6*2*8*64*1000 = 6,144,000
    QCOMPARE(TransformerMath::outputTrainingFlops(tiny(), 2, 8), 6144000.0);
}

// Korthikanti et al. 2022, Eq. 7: model FLOPs per iteration of a GPT model
//   F = 72*B*L*s*h^2 * (1 + s/(6h) + V/(12hL)).
// Expressed as a ModelSpec: a*d = h, g = a (MHA), a GeLU MLP of f = 4h
// (2*h*4h = 8h^2); no flash (Eq. 7 counts the full s^2 core). Derivation of agreement: per layer GEMMs are 4h^2 (attention) +
// 8h^2 (MLP) = 12h^2, forward 2*B*s*12h^2 = 24Bsh^2, times 3 for training =
// 72Bsh^2; the core 4*B*s^2*h times 3 = 12Bs^2h = 72Bsh^2 * s/(6h); logits
// 3*2*B*s*h*V = 6BshV = 72BLsh^2 * V/(12hL). The RMSNorm weights (2h per
// layer) carry no GEMM FLOPs and are excluded from layerForwardFlops, and the
// embedding lookup has none either, so the two agree exactly; the brief's 1%
// is the user-facing contract, 1e-9 is the hand-derived expectation.
void TestTransformerMath::matchesKorthikantiEq7_data()
{
    QTest::addColumn<int>("L");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("a");
    QTest::addColumn<int>("V");
    QTest::addColumn<int>("s");
    QTest::addColumn<int>("B");
    // GPT-3 175B (Korthikanti Table 3): L=96 h=12288 a=96 V=51200 s=2048.
    // F(B=1) = 72*96*2048*12288^2*(1 + 2048/73728 + 51200/14155776) = 2.2046e15
    QTest::newRow("GPT-3 175B, B=1") << 96 << 12288 << 96 << 51200 << 2048 << 1;
    // A 1.5B-sized GPT: h=1536 (f=4096), L=24, a=12, V=51200, s=1024, B=4.
    QTest::newRow("GPT 1.5B-like, B=4") << 24 << 1536 << 12 << 51200 << 1024 << 4;
}

void TestTransformerMath::matchesKorthikantiEq7()
{
    QFETCH(int, L);
    QFETCH(int, h);
    QFETCH(int, a);
    QFETCH(int, V);
    QFETCH(int, s);
    QFETCH(int, B);
    ModelSpec m;
    m.numLayers = L;
    m.hidden = h;
    m.heads = a;
    m.headDim = h / a;
    m.queryGroups = a;
    m.ffnHidden = 4 * h;
    m.mlp = memx::MlpKind::Gelu;
    m.vocab = V;
    const double hd = h, sd = s;
    const double eq7 = 72.0 * B * L * sd * hd * hd * (1.0 + sd / (6.0 * hd) + double(V) / (12.0 * hd * L));
    const double ours = L * TransformerMath::layerTrainingFlops(m, B, s, false, Recompute::None)
        + TransformerMath::outputTrainingFlops(m, B, s);
    const double rel = std::fabs(ours - eq7) / eq7;
    QVERIFY2(rel < 0.01, qPrintable(QString("ours %1 vs Eq.7 %2").arg(ours, 0, 'g', 12).arg(eq7, 0, 'g', 12)));
    QVERIFY2(rel < 1e-9, qPrintable(QString("relative difference %1").arg(rel)));
    if (L == 96)  // the hand-evaluated GPT-3 number in the _data comment
        QVERIFY(near(ours, 2.2046e15, 1e-4));
}

void TestTransformerMath::activationBytes_data()
{
    QTest::addColumn<int>("t");
    QTest::addColumn<bool>("flash");
    QTest::addColumn<Recompute>("recompute");
    QTest::addColumn<double>("expected");
    // tiny, b=2 s=8 (sb = 16). Per token 12h + 4gd + 6f = 768 + 128 + 768 = 1,664 bytes
    //   -> 16*1,664 = 26,624; softmax output 2*a*s^2*b = 2*4*64*2 = 1,024.
    QTest::newRow("t1 none no-flash keeps softmax") << 1 << false << Recompute::None << 27648.0;  // 26,624+1,024
    QTest::newRow("t1 none flash") << 1 << true << Recompute::None << 26624.0;
    QTest::newRow("t1 selective drops s^2 term") << 1 << false << Recompute::Selective << 26624.0;
    QTest::newRow("t1 selective flash") << 1 << true << Recompute::Selective << 26624.0;
    QTest::newRow("t1 full keeps layer input") << 1 << false << Recompute::Full << 2048.0;  // 2*16*64
    // Sequence parallelism with TP=t divides every term by t.
    QTest::newRow("t2 none no-flash") << 2 << false << Recompute::None << 13824.0;  // 27,648/2
    QTest::newRow("t2 selective") << 2 << false << Recompute::Selective << 13312.0;  // 26,624/2
    QTest::newRow("t4 full") << 4 << false << Recompute::Full << 512.0;  // 2,048/4
    QTest::newRow("t4 none flash") << 4 << true << Recompute::None << 6656.0;  // 26,624/4
}

void TestTransformerMath::activationBytes()
{
    QFETCH(int, t);
    QFETCH(bool, flash);
    QFETCH(Recompute, recompute);
    QTEST(TransformerMath::layerActivationBytes(tiny(), 2, 8, t, flash, recompute), "expected");
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models": a GPT layer (f = 4h, MHA, attention and hidden dropout,
// unfused attention) keeps sbh(34 + 5as/h) bytes (Eq. 1); with TP t and no
// sequence parallelism sbh(10 + 24/t + 5as/(ht)) (Eq. 2); with sequence
// parallelism sbh/t (34 + 5as/h) (Eq. 4); selective recomputation with
// sequence parallelism 34 sbh/t (Table 2); full recomputation 2sbh/t.
// Model: h = 64, a = 4, g = 4, f = 256, GeLU; b = 2, s = 8: sbh = 1,024 and
// 5as/h = 5*4*8/64 = 2.5.
void TestTransformerMath::dropoutMatchesKorthikanti_data()
{
    QTest::addColumn<int>("t");
    QTest::addColumn<bool>("sp");
    QTest::addColumn<bool>("flash");
    QTest::addColumn<bool>("attentionDropout");
    QTest::addColumn<bool>("hiddenDropout");
    QTest::addColumn<Recompute>("recompute");
    QTest::addColumn<double>("expected");
    const Recompute none = Recompute::None;
    QTest::newRow("Eq. 1: 34 + 5as/h") << 1 << true << false << true << true << none << 1024.0 * 36.5;
    QTest::newRow("Eq. 2, t=2: 10 + 24/t + 5as/(ht)")
        << 2 << false << false << true << true << none << 1024.0 * (10 + 12 + 1.25);
    QTest::newRow("Eq. 4, t=2: (34 + 5as/h)/t") << 2 << true << false << true << true << none << 1024.0 * 36.5 / 2;
    QTest::newRow("Table 2 selective + SP, t=2: 34/t")
        << 2 << true << false << true << true << Recompute::Selective << 1024.0 * 34 / 2;
    QTest::newRow("full + SP, t=2: 2/t") << 2 << true << false << true << true << Recompute::Full << 1024.0;
    // Without attention dropout the unfused core keeps only the softmax
    // output 2as^2b (2/5 of 5as^2b: 1,024 bytes here).
    QTest::newRow("hidden dropout only") << 1 << true << false << false << true << none << 1024.0 * 34 + 1024;
    // FlashAttention keeps no s^2 term and draws its dropout mask in the
    // kernel: 34sbh with hidden dropout, 32sbh without.
    QTest::newRow("flash, both dropouts") << 1 << true << true << true << true << none << 1024.0 * 34;
    QTest::newRow("flash, attention dropout only") << 1 << true << true << true << false << none << 1024.0 * 32;
}

void TestTransformerMath::dropoutMatchesKorthikanti()
{
    QFETCH(int, t);
    QFETCH(bool, sp);
    QFETCH(bool, flash);
    QFETCH(bool, attentionDropout);
    QFETCH(bool, hiddenDropout);
    QFETCH(Recompute, recompute);
    ModelSpec m = tiny();
    m.mlp = memx::MlpKind::Gelu;
    m.queryGroups = 4;
    m.ffnHidden = 256;
    QCOMPARE(m.heads, 4);
    QCOMPARE(m.hidden, 64);
    const memx::Dropout d{attentionDropout, hiddenDropout};
    QTEST(TransformerMath::layerActivationBytes(m, 2, 8, t, flash, recompute, sp, memx::Precision::Bf16, d),
          "expected");
}

void TestTransformerMath::logitsAndBoundaryBytes_data()
{
    QTest::addColumn<int>("t");
    QTest::addColumn<double>("logits");
    QTest::addColumn<double>("boundary");
    // tiny b=2 s=8: logits (2 + 4)*s*b*V/t = 6*16*1000/t = 96,000/t;
    // boundary 2*s*b*h/t = 2*16*64/t = 2,048/t.
    QTest::newRow("t1") << 1 << 96000.0 << 2048.0;
    QTest::newRow("t2") << 2 << 48000.0 << 1024.0;
    QTest::newRow("t8") << 8 << 12000.0 << 256.0;
}

void TestTransformerMath::logitsAndBoundaryBytes()
{
    QFETCH(int, t);
    QTEST(TransformerMath::logitsBytes(tiny(), 2, 8, t), "logits");
    QTEST(TransformerMath::boundaryActivationBytes(tiny(), 2, 8, t), "boundary");
}

void TestTransformerMath::modelStateBytesPerParam_data()
{
    QTest::addColumn<int>("dp");
    QTest::addColumn<bool>("distributed");
    QTest::addColumn<double>("expected");
    // Megatron docs: 18 bytes/param without the distributed optimizer, 6 + 12/d with it.
    QTest::newRow("plain Adam, dp 1") << 1 << false << 18.0;
    QTest::newRow("plain Adam, dp 8 (not sharded)") << 8 << false << 18.0;
    QTest::newRow("distributed, dp 1") << 1 << true << 18.0;  // 6 + 12/1
    QTest::newRow("distributed, dp 4") << 4 << true << 9.0;  // 6 + 12/4
    QTest::newRow("distributed, dp 8") << 8 << true << 7.5;  // 6 + 12/8
}

void TestTransformerMath::modelStateBytesPerParam()
{
    QFETCH(int, dp);
    QFETCH(bool, distributed);
    QCOMPARE(TransformerMath::weightBytesPerParam(), 2.0);
    QCOMPARE(TransformerMath::gradBytesPerParam(), 4.0);
    const double total = TransformerMath::weightBytesPerParam() + TransformerMath::gradBytesPerParam()
        + TransformerMath::optimizerBytesPerParam(dp, distributed);
    QTEST(total, "expected");
}

void TestTransformerMath::wgradBuffers_data()
{
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("groups");
    QTest::addColumn<int>("ffn");
    QTest::addColumn<bool>("gelu");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("bytes");
    // LLaMA-3 405B (h 16384, 128 heads of 128, 8 KV groups, SwiGLU 53248):
    // QKV [(16384 + 2 * 1024) / t, 16384], projection [16384, 16384 / t],
    // FC1 [2 * 53248 / t, 16384], FC2 [16384, 53248 / t]:
    // (18432 + 16384 + 106496 + 53248) * 16384 = 3,187,671,040 elements / t,
    // 2 bytes each in bf16.
    QTest::newRow("405B bf16 t=1") << 16384 << 128 << 8 << 53248 << false << 1 << int(memx::Precision::Bf16)
                                   << 6375342080.0;
    QTest::newRow("405B bf16 t=8") << 16384 << 128 << 8 << 53248 << false << 8 << int(memx::Precision::Bf16)
                                   << 6375342080.0 / 8;
    // GPT (h 1024, 16 heads of 64, GeLU 4096), t = 1: QKV [3072, 1024],
    // projection [1024, 1024], FC1 [4096, 1024], FC2 [1024, 4096], all
    // distinct: 12,288 * 1024 = 12,582,912 elements; fp32 weights, 4 bytes.
    QTest::newRow("GPT fp32 t=1") << 1024 << 16 << 16 << 4096 << true << 1 << int(memx::Precision::Fp32) << 50331648.0;
    // The same at t = 4: FC1 [1024, 1024] and FC2 [1024, 1024] have one
    // shape and share one buffer: 786,432 + 262,144 + 1,048,576 elements.
    // fp8 through Transformer Engine keeps bf16 parameters: 2 bytes, as bf16.
    QTest::newRow("405B fp8 t=1") << 16384 << 128 << 8 << 53248 << false << 1 << int(memx::Precision::Fp8)
                                  << 6375342080.0;
    QTest::newRow("GPT bf16 t=4, FC1 = FC2")
        << 1024 << 16 << 16 << 4096 << true << 4 << int(memx::Precision::Bf16) << 4194304.0;
}

// Transformer Engine's cached placeholder weight gradients: one per distinct
// weight shape of a layer, at the weights' width.
void TestTransformerMath::wgradBuffers()
{
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, groups);
    QFETCH(int, ffn);
    QFETCH(bool, gelu);
    QFETCH(int, tp);
    QFETCH(int, precision);
    ModelSpec m;
    m.numLayers = 4;
    m.hidden = hidden;
    m.heads = heads;
    m.headDim = hidden / heads;
    m.queryGroups = groups;
    m.ffnHidden = ffn;
    m.mlp = gelu ? memx::MlpKind::Gelu : memx::MlpKind::SwiGlu;
    m.vocab = 128256;
    QTEST(TransformerMath::wgradBufferBytes(m, tp, static_cast<memx::Precision>(precision)), "bytes");
}

MEMX_TEST_APPLESS_MAIN(TestTransformerMath)
}  // namespace tst_transformer_math

#include "tst_transformer_math.moc"
