// Bayesian optimisation (MemX 3.2.2: the predictor's hyper-parameters are
// tuned by a GP with expected improvement over cross-validated MAPE). The
// objectives here are analytic with known optima, so every expectation is
// exact; budgets are small to keep the test fast.
#include "learn/BayesianOptimizer.h"

#include "TestMain.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace tst_bayesian_optimizer {

using namespace memx;
using Dim = BayesianOptimizer::Dimension;
using Objective = std::function<double(const std::vector<double>&)>;

}  // namespace tst_bayesian_optimizer
Q_DECLARE_METATYPE(std::vector<tst_bayesian_optimizer::Dim>)
Q_DECLARE_METATYPE(tst_bayesian_optimizer::Dim)
namespace tst_bayesian_optimizer {

namespace {

// (x-0.7)^2 + (y+1.3)^2 + 0.25 (n-4)^2 on [-5,5]^2 x {0..10}: minimum 0 at (0.7, -1.3, 4).
double shiftedSphereMixed(const std::vector<double>& v)
{
    return (v[0] - 0.7) * (v[0] - 0.7) + (v[1] + 1.3) * (v[1] + 1.3) + 0.25 * (v[2] - 4) * (v[2] - 4);
}

// Continuous shifted sphere on [-5,5]^3, minimum 0 at (1, -2, 0.5).
double shiftedSphere3(const std::vector<double>& v)
{
    return (v[0] - 1) * (v[0] - 1) + (v[1] + 2) * (v[1] + 2) + (v[2] - 0.5) * (v[2] - 0.5);
}

// Branin on [-5,10] x [0,15]: global minimum 0.397887 at (-pi, 12.275),
// (pi, 2.275) and (9.42478, 2.475).
double branin(const std::vector<double>& v)
{
    const double pi = std::numbers::pi;
    const double a = 1, b = 5.1 / (4 * pi * pi), c = 5 / pi, r = 6, s = 10, t = 1 / (8 * pi);
    const double x = v[0], y = v[1];
    return a * std::pow(y - b * x * x + c * x - r, 2) + s * (1 - t) * std::cos(x) + s;
}

double randomSearchBest(const std::vector<Dim>& dims, const Objective& f, int budget, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < budget; ++i) {
        std::vector<double> x(dims.size());
        for (std::size_t d = 0; d < dims.size(); ++d)
            x[d] = BayesianOptimizer::fromUnit(dims[d], u(rng));
        best = std::min(best, f(x));
    }
    return best;
}

}  // namespace

class TestBayesianOptimizer : public QObject {
    Q_OBJECT
private slots:
    void quadratic1d_data();
    void quadratic1d();
    void knownOptimum_data();
    void knownOptimum();
    void beatsRandomSearch();
    void deterministicForSeed();
    void historyIsConsistent();
    void stopEndsTheSearchWithTheBestSoFar_data();
    void stopEndsTheSearchWithTheBestSoFar();
    void gpInterpolatesTrainingPoints_data();
    void gpInterpolatesTrainingPoints();
    void gpErrors();
    void unitMapping_data();
    void unitMapping();
    void invalidDimensions_data();
    void invalidDimensions();
};

void TestBayesianOptimizer::quadratic1d_data()
{
    QTest::addColumn<quint64>("seed");
    for (quint64 seed : {0ULL, 1ULL, 2ULL, 7ULL, 42ULL})
        QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
}

// (x - 0.3)^2 on [0, 1]: within 0.05 of 0.3 after 20 evaluations.
void TestBayesianOptimizer::quadratic1d()
{
    QFETCH(quint64, seed);
    BayesianOptimizer::Options o;
    o.initialPoints = 5;
    o.iterations = 15;
    o.seed = seed;
    int calls = 0;
    const auto r = BayesianOptimizer::minimise(
        {{"x", 0, 1, false, false}},
        [&](const std::vector<double>& v) {
            ++calls;
            return (v[0] - 0.3) * (v[0] - 0.3);
        },
        o);
    QCOMPARE(calls, 20);
    QCOMPARE(r.best.size(), std::size_t(1));
    QVERIFY2(std::abs(r.best[0] - 0.3) < 0.05, qPrintable(QString::number(r.best[0])));
    QCOMPARE(r.bestValue, (r.best[0] - 0.3) * (r.best[0] - 0.3));
}

void TestBayesianOptimizer::knownOptimum_data()
{
    QTest::addColumn<std::vector<Dim>>("dims");
    QTest::addColumn<int>("objective");  // 0 mixed sphere, 1 Branin, 2 log-scale learning rate
    QTest::addColumn<int>("budget");
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<std::vector<double>>("optimum");  // empty: check the value only
    QTest::addColumn<std::vector<double>>("tolerance");
    QTest::addColumn<double>("valueTolerance");

    const std::vector<Dim> mixed{{"x", -5, 5, false, false}, {"y", -5, 5, false, false}, {"n", 0, 10, true, false}};
    for (quint64 seed : {0ULL, 3ULL, 11ULL})
        QTest::newRow(qPrintable(QStringLiteral("mixed sphere, seed %1").arg(seed)))
            << mixed << 0 << 40 << seed << std::vector<double>{0.7, -1.3, 4} << std::vector<double>{0.35, 0.35, 0.0}
            << 0.25;

    const std::vector<Dim> br{{"x", -5, 10, false, false}, {"y", 0, 15, false, false}};
    for (quint64 seed : {0ULL, 5ULL})
        QTest::newRow(qPrintable(QStringLiteral("Branin, seed %1").arg(seed)))
            << br << 1 << 40 << seed << std::vector<double>{} << std::vector<double>{} << 0.2;

    // (log10 lr + 2)^2 + (depth - 6)^2 / 4: a learning rate over four decades
    // and an integer tree depth, as in the predictor's search.
    const std::vector<Dim> hp{{"learningRate", 1e-4, 1, false, true}, {"depth", 2, 12, true, false}};
    for (quint64 seed : {0ULL, 9ULL})
        QTest::newRow(qPrintable(QStringLiteral("log-scale lr + depth, seed %1").arg(seed)))
            << hp << 2 << 25 << seed << std::vector<double>{0.01, 6} << std::vector<double>{0.004, 0.0} << 0.05;
}

void TestBayesianOptimizer::knownOptimum()
{
    QFETCH(std::vector<Dim>, dims);
    QFETCH(int, objective);
    QFETCH(int, budget);
    QFETCH(quint64, seed);
    QFETCH(std::vector<double>, optimum);
    QFETCH(std::vector<double>, tolerance);
    QFETCH(double, valueTolerance);

    Objective f;
    double fStar = 0;
    switch (objective) {
    case 0: f = shiftedSphereMixed; break;
    case 1:
        f = branin;
        fStar = 0.397887;
        break;
    default:
        f = [](const std::vector<double>& v) {
            return std::pow(std::log10(v[0]) + 2, 2) + (v[1] - 6) * (v[1] - 6) / 4;
        };
    }
    BayesianOptimizer::Options o;
    o.initialPoints = 5;
    o.iterations = budget - 5;
    o.seed = seed;
    const auto r = BayesianOptimizer::minimise(dims, f, o);
    QVERIFY2(r.bestValue - fStar < valueTolerance, qPrintable(QString::number(r.bestValue)));
    for (std::size_t i = 0; i < optimum.size(); ++i)
        QVERIFY2(std::abs(r.best[i] - optimum[i]) <= tolerance[i],
                 qPrintable(QStringLiteral("%1 = %2").arg(QString::fromStdString(dims[i].name)).arg(r.best[i])));
}

// Same budget (25 evaluations), five seeds: BO's mean best value is below
// random search's, by a clear factor.
void TestBayesianOptimizer::beatsRandomSearch()
{
    const std::vector<Dim> dims{{"a", -5, 5, false, false}, {"b", -5, 5, false, false}, {"c", -5, 5, false, false}};
    const int budget = 25;
    double bo = 0, random = 0;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
        BayesianOptimizer::Options o;
        o.initialPoints = 5;
        o.iterations = budget - 5;
        o.seed = seed;
        const auto r = BayesianOptimizer::minimise(dims, shiftedSphere3, o);
        QCOMPARE(int(r.history.size()), budget);
        bo += r.bestValue / 5;
        random += randomSearchBest(dims, shiftedSphere3, budget, 1000 + seed) / 5;
    }
    qInfo("mean best over 5 seeds: BO %.4f, random search %.4f", bo, random);
    QVERIFY2(bo < 0.5 * random, qPrintable(QStringLiteral("BO %1 vs random %2").arg(bo).arg(random)));
}

void TestBayesianOptimizer::deterministicForSeed()
{
    const std::vector<Dim> dims{{"x", -5, 10, false, false}, {"y", 0, 15, false, false}, {"k", 1, 64, true, true}};
    auto f = [](const std::vector<double>& v) { return branin(v) + std::log2(v[2]); };
    BayesianOptimizer::Options o;
    o.initialPoints = 4;
    o.iterations = 8;
    o.candidates = 500;
    o.seed = 1234;
    const auto a = BayesianOptimizer::minimise(dims, f, o);
    const auto b = BayesianOptimizer::minimise(dims, f, o);
    QCOMPARE(a.history.size(), b.history.size());
    for (std::size_t i = 0; i < a.history.size(); ++i) {
        QCOMPARE(a.history[i].first, b.history[i].first);
        QCOMPARE(a.history[i].second, b.history[i].second);
    }
    QCOMPARE(a.best, b.best);
    QCOMPARE(a.bestValue, b.bestValue);

    o.seed = 1235;
    const auto c = BayesianOptimizer::minimise(dims, f, o);
    QVERIFY(c.history.front().first != a.history.front().first);
}

// Points stay in the box, integers are integers, best is the history's minimum.
// A time limit: `stop` is asked before each evaluation after the first
// (design points included), so the search evaluates 1 + `allowed` points
// and keeps the best of those.
void TestBayesianOptimizer::stopEndsTheSearchWithTheBestSoFar_data()
{
    QTest::addColumn<int>("allowed");
    QTest::addColumn<int>("evaluations");
    QTest::addColumn<bool>("stopped");
    QTest::newRow("stop at once") << 0 << 1 << true;
    QTest::newRow("inside the design") << 3 << 4 << true;
    QTest::newRow("after 3 steps") << 8 << 9 << true;
    QTest::newRow("never") << 100 << 16 << false;
}

void TestBayesianOptimizer::stopEndsTheSearchWithTheBestSoFar()
{
    QFETCH(int, allowed);
    QFETCH(int, evaluations);
    QFETCH(bool, stopped);
    const std::vector<Dim> dims{{"x", -3, 3, false, false}};
    auto f = [](const std::vector<double>& v) { return (v[0] - 1) * (v[0] - 1); };
    BayesianOptimizer::Options o;
    o.initialPoints = 6;
    o.iterations = 10;
    int asked = 0;
    o.stop = [&] { return asked++ >= allowed; };
    const auto r = BayesianOptimizer::minimise(dims, f, o);
    QCOMPARE(int(r.history.size()), evaluations);
    QCOMPARE(r.stopped, stopped);
    double minValue = std::numeric_limits<double>::infinity();
    for (const auto& [x, y] : r.history)
        minValue = std::min(minValue, y);
    QCOMPARE(r.bestValue, minValue);
}

void TestBayesianOptimizer::historyIsConsistent()
{
    const std::vector<Dim> dims{{"lr", 1e-3, 0.5, false, true},
                                {"depth", 2.5, 9.7, true, false},
                                {"rounds", 50, 800, true, true}};
    auto f = [](const std::vector<double>& v) {
        return std::abs(std::log(v[0] / 0.05)) + std::abs(v[1] - 5) + std::abs(std::log(v[2] / 200));
    };
    BayesianOptimizer::Options o;
    o.initialPoints = 6;
    o.iterations = 10;
    o.candidates = 500;
    const auto r = BayesianOptimizer::minimise(dims, f, o);
    QCOMPARE(int(r.history.size()), 16);
    double minValue = std::numeric_limits<double>::infinity();
    for (const auto& [x, y] : r.history) {
        QCOMPARE(x.size(), dims.size());
        QVERIFY(x[0] >= 1e-3 && x[0] <= 0.5);
        QVERIFY(x[1] >= 3 && x[1] <= 9);
        QCOMPARE(x[1], std::round(x[1]));
        QVERIFY(x[2] >= 50 && x[2] <= 800);
        QCOMPARE(x[2], std::round(x[2]));
        QCOMPARE(y, f(x));
        minValue = std::min(minValue, y);
    }
    QCOMPARE(r.bestValue, minValue);
    QCOMPARE(f(r.best), r.bestValue);

    // Latin hypercube design: the six initial points fall in six different
    // sixths of the (log-scaled) learning-rate axis.
    std::vector<int> strata;
    for (int i = 0; i < 6; ++i)
        strata.push_back(int(BayesianOptimizer::toUnit(dims[0], r.history[std::size_t(i)].first[0]) * 6));
    std::sort(strata.begin(), strata.end());
    QCOMPARE(strata, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

void TestBayesianOptimizer::gpInterpolatesTrainingPoints_data()
{
    QTest::addColumn<int>("dim");
    QTest::addColumn<int>("points");
    QTest::addColumn<double>("noise");
    QTest::newRow("1-D, 6 points") << 1 << 6 << 1e-6;
    QTest::newRow("2-D, 15 points") << 2 << 15 << 1e-6;
    QTest::newRow("4-D, 30 points") << 4 << 30 << 1e-8;
}

// With (almost) no noise the posterior mean at a training point is the
// observation and the posterior variance is ~0; away from the data the
// variance is larger.
void TestBayesianOptimizer::gpInterpolatesTrainingPoints()
{
    QFETCH(int, dim);
    QFETCH(int, points);
    QFETCH(double, noise);
    std::mt19937_64 rng(77);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (int i = 0; i < points; ++i) {
        std::vector<double> p(std::size_t(dim), 0.0);
        for (double& c : p)
            c = u(rng);
        double v = 3;
        for (std::size_t k = 0; k < p.size(); ++k)
            v += std::sin(5 * p[k] + double(k)) * 10;
        x.push_back(p);
        y.push_back(v);
    }
    GaussianProcess gp;
    gp.fit(x, y, noise);
    QVERIFY(gp.fitted());
    QVERIFY(gp.lengthScale() > 0);
    QVERIFY(std::isfinite(gp.logMarginalLikelihood()));
    double spread = 0;
    for (double v : y)
        spread = std::max(spread, std::abs(v - 3));
    for (int i = 0; i < points; ++i) {
        const auto p = gp.predict(x[std::size_t(i)]);
        QVERIFY2(std::abs(p.mean - y[std::size_t(i)]) < 1e-3 * spread,
                 qPrintable(QStringLiteral("%1 vs %2").arg(p.mean).arg(y[std::size_t(i)])));
        QVERIFY(p.variance >= 0);
        QVERIFY(p.variance < 1e-3 * spread * spread);
        // No improvement possible below a point's own value when it is certain.
        QVERIFY(gp.expectedImprovement(x[std::size_t(i)], y[std::size_t(i)] - spread) < 1e-6 * spread);
    }
    const auto far = gp.predict(std::vector<double>(std::size_t(dim), 3.0));
    QVERIFY(far.variance > 0.1 * gp.predict(x.front()).variance + 1e-6);
}

void TestBayesianOptimizer::gpErrors()
{
    GaussianProcess gp;
    QVERIFY_THROWS_EXCEPTION(std::logic_error, gp.predict({0.5}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({}, {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({{0.1}, {0.2}}, {1.0}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({{0.1}, {0.2, 0.3}}, {1.0, 2.0}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({{0.1}}, {std::numeric_limits<double>::quiet_NaN()}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({{0.1}}, {1.0}, 1e-6, {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.fit({{0.1}}, {1.0}, -1.0));
    gp.fit({{0.1}, {0.9}}, {1.0, 2.0});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, gp.predict({0.5, 0.5}));
    // Duplicate points with different values: still factorisable (noise/jitter).
    gp.fit({{0.4}, {0.4}, {0.6}}, {1.0, 1.2, 3.0});
    QVERIFY(std::isfinite(gp.predict({0.4}).mean));
}

void TestBayesianOptimizer::unitMapping_data()
{
    QTest::addColumn<Dim>("dim");
    QTest::addColumn<double>("u");
    QTest::addColumn<double>("value");
    QTest::newRow("linear mid") << Dim{"a", -2, 6, false, false} << 0.5 << 2.0;
    QTest::newRow("linear clamp") << Dim{"a", -2, 6, false, false} << 1.5 << 6.0;
    QTest::newRow("log mid") << Dim{"lr", 1e-4, 1, false, true} << 0.5 << 1e-2;
    QTest::newRow("integer rounds") << Dim{"d", 0, 10, true, false} << 0.33 << 3.0;
    QTest::newRow("integer inside fractional bounds") << Dim{"d", 0.5, 3.5, true, false} << 0.0 << 1.0;
    QTest::newRow("log integer") << Dim{"r", 1, 10000, true, true} << 0.75 << 1000.0;
}

void TestBayesianOptimizer::unitMapping()
{
    QFETCH(Dim, dim);
    QFETCH(double, u);
    QFETCH(double, value);
    const double v = BayesianOptimizer::fromUnit(dim, u);
    QVERIFY2(std::abs(v - value) <= 1e-9 * std::max(1.0, std::abs(value)), qPrintable(QString::number(v)));
    QVERIFY(std::abs(BayesianOptimizer::fromUnit(dim, BayesianOptimizer::toUnit(dim, v)) - v)
            <= 1e-9 * std::max(1.0, std::abs(v)));
}

void TestBayesianOptimizer::invalidDimensions_data()
{
    QTest::addColumn<std::vector<Dim>>("dims");
    QTest::addColumn<int>("iterations");
    QTest::newRow("no dimensions") << std::vector<Dim>{} << 5;
    QTest::newRow("lo == hi") << std::vector<Dim>{{"a", 1, 1, false, false}} << 5;
    QTest::newRow("lo > hi") << std::vector<Dim>{{"a", 2, 1, false, false}} << 5;
    QTest::newRow("infinite bound") << std::vector<Dim>{{"a", 0, std::numeric_limits<double>::infinity(), false, false}}
                                    << 5;
    QTest::newRow("NaN bound") << std::vector<Dim>{{"a", std::numeric_limits<double>::quiet_NaN(), 1, false, false}}
                               << 5;
    QTest::newRow("log with lo = 0") << std::vector<Dim>{{"a", 0, 1, false, true}} << 5;
    QTest::newRow("log with lo < 0") << std::vector<Dim>{{"a", -1, 1, false, true}} << 5;
    QTest::newRow("integer without integer") << std::vector<Dim>{{"a", 0.2, 0.8, true, false}} << 5;
    QTest::newRow("second dimension bad") << std::vector<Dim>{{"a", 0, 1, false, false}, {"b", 3, 2, true, false}} << 5;
    QTest::newRow("negative iterations") << std::vector<Dim>{{"a", 0, 1, false, false}} << -1;
}

void TestBayesianOptimizer::invalidDimensions()
{
    QFETCH(std::vector<Dim>, dims);
    QFETCH(int, iterations);
    BayesianOptimizer::Options o;
    o.iterations = iterations;
    int calls = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             BayesianOptimizer::minimise(
                                 dims,
                                 [&](const std::vector<double>&) {
                                     ++calls;
                                     return 0.0;
                                 },
                                 o));
    QCOMPARE(calls, 0);
}

MEMX_TEST_APPLESS_MAIN(TestBayesianOptimizer)
}  // namespace tst_bayesian_optimizer

#include "tst_bayesian_optimizer.moc"
