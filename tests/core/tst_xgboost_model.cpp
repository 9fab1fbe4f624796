// XgboostModel and LearnedPredictor: the dual-output predictor of MemX section
// 3.2.2. One booster with a two-column label learns time and memory together;
// the learned predictor corrects the analytic model by a learnt ratio and so
// keeps its shape outside the measured range.
#include "hardware/GpuCatalog.h"
#include "hardware/GpuType.h"
#include "predict/AnalyticPredictor.h"
#include "predict/LearnedPredictor.h"
#include "predict/StageFeatures.h"
#include "predict/XgboostModel.h"

#include "TestMain.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tst_xgboost_model {

using memx::LearnedPredictor;
using memx::StageFeatures;
using memx::StagePrediction;
using memx::StageQuery;
using memx::XgboostModel;

namespace {

// By construction: t = 3x + y, m = x * y over a 21 x 21 grid on [0,1]^2, plus a
// third column z of pure noise that neither target depends on.
struct Synthetic {
    std::vector<float> features;  // rows x 3
    std::vector<float> labels;  // rows x 2
    std::size_t rows = 0;
};

Synthetic synthetic()
{
    Synthetic s;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> noise(0.0f, 1.0f);
    for (int i = 0; i <= 20; ++i)
        for (int j = 0; j <= 20; ++j) {
            const float x = static_cast<float>(i) / 20.0f, y = static_cast<float>(j) / 20.0f;
            s.features.insert(s.features.end(), {x, y, noise(rng)});
            s.labels.insert(s.labels.end(), {3 * x + y, x * y});
            ++s.rows;
        }
    return s;
}

// Trained once in initTestCase, freed in cleanupTestCase: a booster must not
// outlive main() (XGBoost's own statics are gone by then).
std::optional<XgboostModel> trainedModel;

const XgboostModel& syntheticModel() { return *trainedModel; }

const memx::GpuType& gpu(const char* name)
{
    const memx::GpuType* g = memx::GpuCatalog::builtin().find(name);
    if (!g)
        qFatal("GPU type %s missing from the built-in catalog", name);
    return *g;
}

StageQuery stage(const memx::GpuType& g, int layers, int mbs, int seq, int tp)
{
    StageQuery q;
    q.gpu = &g;
    q.tp = tp;
    q.dp = 2;
    q.layers = layers;
    q.microBatch = mbs;
    q.seqLen = seq;
    q.hidden = 4096;
    q.heads = 32;
    q.headDim = 128;
    q.queryGroups = 32;
    q.ffnHidden = 11008;
    q.vocab = 32000;
    q.inflight = 4;
    q.tpLinkGBps = 240;
    q.tpLatencyUs = 3;
    return q;
}

// Measured = analytic x a known factor per GPU type.
constexpr double kTimeFactorA = 1.3, kTimeFactorB = 0.8;
constexpr double kMemFactorA = 1.1, kMemFactorB = 0.9;

}  // namespace

class TestXgboostModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        const Synthetic s = synthetic();
        trainedModel.emplace(XgboostModel::train(s.features, s.rows, 3, s.labels, XgboostModel::TrainParams()));
    }

    void cleanupTestCase() { trainedModel.reset(); }

    void schemaIsConsistent()
    {
        const auto names = StageFeatures::names();
        QCOMPARE(names.size(), StageFeatures::count());
        QCOMPARE(names.front(), std::string("gpu_type_index"));
        QCOMPARE(names.back(), std::string("distributed_optimizer"));
        std::vector<float> row(StageFeatures::count(), -1.0f);
        StagePrediction prior;
        prior.timeMs = 12.5;
        prior.memory.weightsMiB = 1000;
        prior.memory.activationsMiB = 250;
        prior.hostShare = 0.25f;
        StageQuery q = stage(gpu("A100-80GB"), 4, 1, 2048, 2);
        q.mlp = memx::MlpKind::Gelu;
        q.flashAttention = false;
        q.dropout.hidden = true;
        StageFeatures::encode(q, prior, row.data());
        for (float v : row)
            QVERIFY(std::isfinite(v));
        auto at = [&](const char* name) {
            return row[static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin())];
        };
        QCOMPARE(at("analytic_time_ms"), 12.5f);
        QCOMPARE(at("analytic_memory_mib"), 1250.0f);  // no allocator or reserve terms set
        QCOMPARE(at("activation_share"), 0.2f);  // 250 of 1250
        QCOMPARE(at("analytic_host_share"), 0.25f);
        QCOMPARE(at("precision"), 3.0f);  // bf16
        QCOMPARE(at("tokens_per_gpu"), 1024.0f);  // mbs 1 x seq 2048 / TP 2
        QCOMPARE(at("analytic_ms_per_layer"), 3.125f);  // 12.5 ms over 4 layers
        // The block and the setup, 0/1.
        QCOMPARE(at("mlp_gelu"), 1.0f);
        QCOMPARE(at("tied_embeddings"), 0.0f);
        QCOMPARE(at("flash_attention"), 0.0f);
        QCOMPARE(at("attention_dropout"), 0.0f);
        QCOMPARE(at("hidden_dropout"), 1.0f);
        QCOMPARE(at("sequence_parallel"), 1.0f);
        QCOMPARE(at("distributed_optimizer"), 1.0f);
        QVERIFY(StageFeatures::gpuTypeIndex("A100-80GB") != StageFeatures::gpuTypeIndex("H100-SXM"));
    }

    void oneBoosterLearnsBothTargets()
    {
        const XgboostModel& model = syntheticModel();
        QCOMPARE(model.numFeatures(), std::size_t(3));
        // One booster, two targets: the saved model says num_target 2.
        QVERIFY(model.saveJson().find("\"num_target\":\"2\"") != std::string::npos);
        // Off-grid points inside the range.
        double worstT = 0, worstM = 0;
        for (float x = 0.025f; x < 1.0f; x += 0.1f)
            for (float y = 0.025f; y < 1.0f; y += 0.1f) {
                const float row[3] = {x, y, 0.5f};
                float out[2];
                model.predict(row, 1, 3, out);
                worstT = std::max(worstT, std::abs(static_cast<double>(out[0]) - (3 * x + y)));
                worstM = std::max(worstM, std::abs(static_cast<double>(out[1]) - x * y));
            }
        qInfo("worst absolute error: time %.4f (range 0..4), memory %.4f (range 0..1)", worstT, worstM);
        QVERIFY(worstT < 0.15);
        QVERIFY(worstM < 0.06);
    }

    void batchEqualsRowByRow()
    {
        const XgboostModel& model = syntheticModel();
        const Synthetic s = synthetic();
        std::vector<float> batch(2 * s.rows);
        model.predict(s.features.data(), s.rows, 3, batch.data());
        for (std::size_t r = 0; r < s.rows; ++r) {
            float one[2];
            model.predict(&s.features[3 * r], 1, 3, one);
            QCOMPARE(one[0], batch[2 * r]);
            QCOMPARE(one[1], batch[2 * r + 1]);
        }
    }

    void saveLoadIsBitIdentical()
    {
        const XgboostModel& model = syntheticModel();
        const XgboostModel loaded = XgboostModel::loadJson(model.saveJson());
        const Synthetic s = synthetic();
        std::vector<float> a(2 * s.rows), b(2 * s.rows);
        model.predict(s.features.data(), s.rows, 3, a.data());
        loaded.predict(s.features.data(), s.rows, 3, b.data());
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        QCOMPARE(loaded.saveJson(), model.saveJson());
    }

    void gainImportanceRanksInformativeFeatureFirst()
    {
        const auto imp = syntheticModel().gainImportance({"x", "y", "noise"});
        QCOMPARE(imp.size(), std::size_t(3));
        qInfo("gain: x %.4g, y %.4g, noise %.4g", imp.at("x"), imp.at("y"), imp.at("noise"));
        QVERIFY(imp.at("x") > imp.at("y"));
        QVERIFY(imp.at("x") > imp.at("noise"));
        QVERIFY(imp.at("y") > imp.at("noise"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, syntheticModel().gainImportance({"x"}));
    }

    void concurrentPredictionsAgree()
    {
        // Predictor contract: safe to call from several threads at once.
        const XgboostModel& model = syntheticModel();
        const Synthetic s = synthetic();
        std::vector<float> want(2 * s.rows);
        model.predict(s.features.data(), s.rows, 3, want.data());
        std::vector<std::vector<float>> got(4, std::vector<float>(2 * s.rows));
        std::vector<std::thread> threads;
        for (auto& g : got)
            threads.emplace_back([&] {
                for (int rep = 0; rep < 20; ++rep)
                    model.predict(s.features.data(), s.rows, 3, g.data());
            });
        for (auto& t : threads)
            t.join();
        for (const auto& g : got)
            QVERIFY(std::memcmp(g.data(), want.data(), want.size() * sizeof(float)) == 0);
    }

    void errorsBecomeExceptions()
    {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, XgboostModel::loadJson("{not a model"));
        try {
            (void)XgboostModel::loadJson("{not a model");
        } catch (const std::runtime_error& e) {
            QVERIFY(std::string(e.what()).find("XGBoosterLoadModelFromBuffer") != std::string::npos);
        }
        const float row[2] = {0, 0};
        float out[2];
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, syntheticModel().predict(row, 1, 2, out));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 XgboostModel::train({1, 2, 3}, 1, 3, {1}, XgboostModel::TrainParams()));
    }

    void learnedPredictorRecoversPerTypeFactor()
    {
        const memx::GpuType& a = gpu("A100-80GB");
        const memx::GpuType& b = gpu("H100-SXM");
        const memx::AnalyticPredictor analytic;
        std::vector<StageQuery> train;
        for (const memx::GpuType* g : {&a, &b})
            for (int layers = 1; layers <= 8; ++layers)
                for (int mbs : {1, 2, 4})
                    for (int seq : {2048, 4096})
                        for (int tp : {1, 2, 4})
                            train.push_back(stage(*g, layers, mbs, seq, tp));
        std::vector<StagePrediction> prior(train.size());
        analytic.predict(train, prior);
        std::vector<double> t(train.size()), m(train.size());
        for (std::size_t i = 0; i < train.size(); ++i) {
            const bool isA = train[i].gpu == &a;
            t[i] = prior[i].timeMs * (isA ? kTimeFactorA : kTimeFactorB);
            m[i] = prior[i].memoryMiB() * (isA ? kMemFactorA : kMemFactorB);
        }
        const LearnedPredictor learned = LearnedPredictor::fit(train, t, m);
        QCOMPARE(learned.name(), std::string("learned"));

        auto check = [&](const std::vector<StageQuery>& qs, double tol, double minUncertainty, double maxUncertainty,
                         double& worst) {
            std::vector<StagePrediction> got(qs.size()), base(qs.size());
            learned.predict(qs, got);  // one batch, one XGBoost call
            analytic.predict(qs, base);
            worst = 0;
            for (std::size_t i = 0; i < qs.size(); ++i) {
                const bool isA = qs[i].gpu == &a;
                const double wantT = base[i].timeMs * (isA ? kTimeFactorA : kTimeFactorB);
                const double wantM = base[i].memoryMiB() * (isA ? kMemFactorA : kMemFactorB);
                const double eT = std::abs(got[i].timeMs / wantT - 1), eM = std::abs(got[i].memoryMiB() / wantM - 1);
                worst = std::max({worst, eT, eM});
                if (eT > tol || eM > tol)
                    qWarning("query %zu: time %.3f vs %.3f, memory %.1f vs %.1f", i, got[i].timeMs, wantT,
                             got[i].memoryMiB(), wantM);
                QVERIFY(eT <= tol);
                QVERIFY(eM <= tol);
                QCOMPARE(got[i].provenance, memx::Provenance::Learned);
                QVERIFY(got[i].uncertainty >= minUncertainty - 1e-12);
                QVERIFY(got[i].uncertainty <= maxUncertainty + 1e-12);
            }
        };

        // Inside the measured range (off-grid in tp/seq combinations already seen,
        // and every training point): within 5%, in-range uncertainty.
        double inside = 0;
        check(train, 0.05, 0.10, 0.10, inside);
        if (QTest::currentTestFailed())
            return;
        // Just outside: more layers than any measured stage (10 and 12 vs at most 8).
        std::vector<StageQuery> outside;
        for (const memx::GpuType* g : {&a, &b})
            for (int layers : {10, 12})
                for (int mbs : {1, 4})
                    for (int tp : {1, 4})
                        outside.push_back(stage(*g, layers, mbs, 4096, tp));
        double beyond = 0;
        check(outside, 0.10, 0.10 + 1e-6, 0.30, beyond);
        if (QTest::currentTestFailed())
            return;
        qInfo("learned vs analytic x factor: worst %.2f%% inside, %.2f%% outside (layers 10-12, trained 1-8)",
              100 * inside, 100 * beyond);
    }
};

MEMX_TEST_APPLESS_MAIN(TestXgboostModel)
}  // namespace tst_xgboost_model

#include "tst_xgboost_model.moc"
