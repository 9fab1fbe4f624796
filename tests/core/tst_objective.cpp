// Objective: the weighted-product score Phi (MemX Eq. 2) and its helpers.
// Numbers come from the paper (section 3.1.2) and the reading notes' worked
// example (memx-reading-notes-zh.txt), evaluated by hand.
#include "search/Objective.h"
#include "io/Statistics.h"

#include "TestMain.h"
#include "TestMetaTypes.h"

#include <cmath>
#include <stdexcept>

namespace tst_objective {

using memx::Objective;
using memx::References;
using memx::Statistics;
using memx::WeightProfile;
using memx::Weights;

}  // namespace tst_objective
Q_DECLARE_METATYPE(memx::EpsilonRule)
namespace tst_objective {

class TestObjective : public QObject {
    Q_OBJECT

private slots:
    void workedExamplePrefersBalancedConfig();
    void referenceConfigScoresOne();
    void profileWeights_data();
    void profileWeights();
    void normalisedCustomWeights_data();
    void normalisedCustomWeights();
    void normalisedRejectsBadWeights_data();
    void normalisedRejectsBadWeights();
    void epsilonKeepsZeroVarianceFromZeroingPhi();
    void epsilonRule_data();
    void epsilonRule();
    void spreadWithinUncertaintyIsNotToldApart();
    void weightsAreElasticities_data();
    void weightsAreElasticities();
    void median_data();
    void median();
    void variance_data();
    void variance();
    void profileNames_data();
    void profileNames();
    void unknownProfileNameIsRejected();
};

// Reading notes, section on Eq. 2: config A takes 1.1x the median time, has
// half the median variance and the median peak memory; config B equals the
// median everywhere. Default weights (0.4, 0.2, 0.4):
//   Phi(A) = 1.1^0.4 * 1^0.2 * 0.5^0.4 = 1.0389 * 0.7579 = 0.55^0.4 = 0.7873 (notes: ~0.79)
//   Phi(B) = 1. Lower is better, so A wins although it is 10% slower.
void TestObjective::workedExamplePrefersBalancedConfig()
{
    const References ref{/*time*/ 1000.0, /*memory*/ 40000.0, /*variance*/ 2.0e5, /*epsilon*/ 0.0};
    const Weights w = memx::weightsOf(WeightProfile::Default);
    const double phiA = Objective::phi(1100.0, 40000.0, 1.0e5, ref, w);
    const double phiB = Objective::phi(1000.0, 40000.0, 2.0e5, ref, w);
    QVERIFY2(std::fabs(phiA - 0.7873) < 1e-4, qPrintable(QString::number(phiA, 'g', 8)));
    QVERIFY(std::fabs(phiA - 0.79) < 0.005);  // the notes' rounded figure
    QCOMPARE(phiB, 1.0);
    QVERIFY(phiA < phiB);
}

void TestObjective::referenceConfigScoresOne()
{
    // At the references every factor is 1, whatever the weights and epsilon.
    const References ref{250.0, 7.0, 3.0, 0.03};
    for (auto p : {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst})
        QCOMPARE(Objective::phi(250.0, 7.0, 3.0, ref, memx::weightsOf(p)), 1.0);
}

// Paper section 3.1.2: default heterogeneous (0.4, 0.2, 0.4), safety-first
// (0.3, 0.5, 0.2), throughput-first (0.7, 0.2, 0.1). Custom/Auto fall back to
// the default weights (header contract).
void TestObjective::profileWeights_data()
{
    QTest::addColumn<WeightProfile>("profile");
    QTest::addColumn<double>("wT");
    QTest::addColumn<double>("wM");
    QTest::addColumn<double>("wV");
    QTest::newRow("default heterogeneous") << WeightProfile::Default << 0.4 << 0.2 << 0.4;
    QTest::newRow("safety-first") << WeightProfile::SafetyFirst << 0.3 << 0.5 << 0.2;
    QTest::newRow("throughput-first") << WeightProfile::ThroughputFirst << 0.7 << 0.2 << 0.1;
    QTest::newRow("custom falls back to default") << WeightProfile::Custom << 0.4 << 0.2 << 0.4;
    QTest::newRow("auto falls back to default") << WeightProfile::Auto << 0.4 << 0.2 << 0.4;
}

void TestObjective::profileWeights()
{
    QFETCH(WeightProfile, profile);
    const Weights w = memx::weightsOf(profile);
    QTEST(w.time, "wT");
    QTEST(w.memory, "wM");
    QTEST(w.variance, "wV");
    QCOMPARE(w.time + w.memory + w.variance, 1.0);  // the paper requires the weights to sum to 1
}

void TestObjective::normalisedCustomWeights_data()
{
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("m");
    QTest::addColumn<double>("v");
    QTest::addColumn<double>("nt");
    QTest::addColumn<double>("nm");
    QTest::addColumn<double>("nv");
    QTest::newRow("2:1:1 -> halves and quarters") << 2.0 << 1.0 << 1.0 << 0.5 << 0.25 << 0.25;
    QTest::newRow("already normalised stays") << 0.3 << 0.5 << 0.2 << 0.3 << 0.5 << 0.2;
    QTest::newRow("percentages 70/20/10") << 70.0 << 20.0 << 10.0 << 0.7 << 0.2 << 0.1;
    QTest::newRow("only variance") << 0.0 << 0.0 << 3.0 << 0.0 << 0.0 << 1.0;
    QTest::newRow("time and memory 1:3") << 1.0 << 3.0 << 0.0 << 0.25 << 0.75 << 0.0;
}

void TestObjective::normalisedCustomWeights()
{
    QFETCH(double, t);
    QFETCH(double, m);
    QFETCH(double, v);
    const Weights n = Objective::normalised({t, m, v});
    QTEST(n.time, "nt");
    QTEST(n.memory, "nm");
    QTEST(n.variance, "nv");
}

void TestObjective::normalisedRejectsBadWeights_data()
{
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("m");
    QTest::addColumn<double>("v");
    QTest::newRow("all zero") << 0.0 << 0.0 << 0.0;
    QTest::newRow("negative time") << -0.1 << 0.6 << 0.5;
    QTest::newRow("negative memory") << 0.5 << -0.2 << 0.7;
    QTest::newRow("negative variance") << 0.5 << 0.6 << -0.1;
}

void TestObjective::normalisedRejectsBadWeights()
{
    QFETCH(double, t);
    QFETCH(double, m);
    QFETCH(double, v);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Objective::normalised({t, m, v}));
}

// Paper: eV is a small fraction of Vref "to prevent a zero-variance
// configuration from dominating the product". With eV = 0.01*Vref:
//   V factor = (0 + 0.01) / (1 + 0.01) = 0.0099010;  ^0.4 -> 0.15786
// so Phi stays positive (and finite ordering is kept), whereas eV = 0 gives 0.
void TestObjective::epsilonKeepsZeroVarianceFromZeroingPhi()
{
    const Weights w = memx::weightsOf(WeightProfile::Default);
    const References withEps{1.0, 1.0, 1.0, 0.01};
    const double phi = Objective::phi(1.0, 1.0, 0.0, withEps, w);
    QVERIFY(phi > 0);
    QVERIFY2(std::fabs(phi - 0.15786) < 1e-4, qPrintable(QString::number(phi, 'g', 8)));

    // A zero-variance config still has to be faster to beat a balanced one:
    // 2x time -> 2^0.4 = 1.3195 times more, 0.15786*1.3195 = 0.2083 > 0.15786.
    QVERIFY(Objective::phi(2.0, 1.0, 0.0, withEps, w) > phi);

    const References noEps{1.0, 1.0, 1.0, 0.0};
    QCOMPARE(Objective::phi(1.0, 1.0, 0.0, noEps, w), 0.0);
}

// eV under each rule (issue #33): the uncertainty rule is (2 u X)^2, never
// below the paper's 0.01 x Vref. Units: MiB^2 (1 GiB^2 = 1048576 MiB^2) or
// utilisation^2.
void TestObjective::epsilonRule_data()
{
    QTest::addColumn<memx::EpsilonRule>("rule");
    QTest::addColumn<double>("fraction");
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("vref");
    QTest::addColumn<double>("u");
    QTest::addColumn<double>("fullest");
    QTest::addColumn<double>("expected");
    constexpr double kGiB2 = 1048576.0;
    using memx::EpsilonRule;
    // +-25% on a 40 GiB fullest GPU: (2 x 0.25 x 40960)^2 = 20480^2 MiB^2 = 400 GiB^2 > 0.01 x 100 GiB^2.
    QTest::newRow("analytic, 40 GiB") << EpsilonRule::Uncertainty << 0.01 << 0.0 << 100 * kGiB2 << 0.25 << 40960.0
                                      << 400 * kGiB2;
    // Utilisation: (2 x 0.10 x 0.8)^2 = 0.0256 > 0.01 x 0.04.
    QTest::newRow("learned, utilisation") << EpsilonRule::Uncertainty << 0.01 << 0.0 << 0.04 << 0.10 << 0.8 << 0.0256;
    // Measured memory (u = 0): the paper's 0.01 x Vref.
    QTest::newRow("no uncertainty") << EpsilonRule::Uncertainty << 0.01 << 0.0 << 100 * kGiB2 << 0.0 << 40960.0
                                    << kGiB2;
    // (2 x 0.01 x 1000)^2 = 400 < 0.01 x 1e8 = 1e6: the paper's floor.
    QTest::newRow("paper's floor") << EpsilonRule::Uncertainty << 0.01 << 0.0 << 1e8 << 0.01 << 1000.0 << 1e6;
    QTest::newRow("paper") << EpsilonRule::Fraction << 0.01 << 0.0 << 100 * kGiB2 << 0.25 << 40960.0 << kGiB2;
    QTest::newRow("--eps 0.05") << EpsilonRule::Fraction << 0.05 << 0.0 << 200.0 << 0.25 << 1.0 << 10.0;
    QTest::newRow("absolute") << EpsilonRule::Absolute << 0.01 << 123.0 << 200.0 << 0.25 << 1.0 << 123.0;
    // Every plan balanced and nothing uncertain: a tiny floor keeps V + eV > 0.
    QTest::newRow("all zero") << EpsilonRule::Uncertainty << 0.01 << 0.0 << 0.0 << 0.0 << 0.0 << 1e-12;
}

void TestObjective::epsilonRule()
{
    QFETCH(memx::EpsilonRule, rule);
    QFETCH(double, fraction);
    QFETCH(double, value);
    QFETCH(double, vref);
    QFETCH(double, u);
    QFETCH(double, fullest);
    QFETCH(double, expected);
    memx::ObjectiveSpec spec;
    spec.epsilonRule = rule;
    spec.epsilonFraction = fraction;
    spec.epsilonValue = value;
    const double got = Objective::epsilon(spec, vref, u, fullest);
    QVERIFY2(std::fabs(got - expected) <= 1e-9 * expected, qPrintable(QString::number(got, 'g', 12)));
}

// Two plans on two GPUs, both predicted +-25% with the fullest at 40 GiB:
// A = {40, 40} GiB (V = 0), B = {35, 45} GiB (V = 25 GiB^2), each GPU of B
// within 25% of A's. Under the uncertainty rule (eV = 400 GiB^2) their V
// terms differ by (25 + 400) / 400 = 1.0625, to the 0.4: 1.0245. Under the
// paper's (Vref = 100 GiB^2, eV = 1 GiB^2) by 26, to the 0.4: 3.68.
void TestObjective::spreadWithinUncertaintyIsNotToldApart()
{
    const Weights w = memx::weightsOf(WeightProfile::Default);
    References ref{1000.0, 40.0, 100.0, 400.0};  // GiB and GiB^2 throughout
    const double a = Objective::phi(1000.0, 40.0, 0.0, ref, w);
    const double b = Objective::phi(1000.0, 45.0, 25.0, ref, w);
    const double vTerm = std::pow(1.0625, 0.4);
    const double mTerm = std::pow(45.0 / 40.0, 0.2);
    QVERIFY2(std::fabs(b / a - vTerm * mTerm) < 1e-9, qPrintable(QString::number(b / a, 'g', 10)));
    QVERIFY(vTerm < 1.025);
    ref.epsilon = 1.0;
    const double paperRatio = Objective::phi(1000.0, 45.0, 25.0, ref, w) / Objective::phi(1000.0, 40.0, 0.0, ref, w);
    QVERIFY2(std::fabs(paperRatio - std::pow(26.0, 0.4) * mTerm) < 1e-9, qPrintable(QString::number(paperRatio)));
}

// Paper: "a one-percent increase in objective dimension i raises Phi by
// approximately w_i percent". 1.01^w - 1 is w*ln(1.01) + O(w^2 * 1e-4):
//   w=0.4 -> 0.3988%, w=0.7 -> 0.6990%, w=0.3 -> 0.2990%; all within 0.005 pp of w.
void TestObjective::weightsAreElasticities_data()
{
    QTest::addColumn<WeightProfile>("profile");
    QTest::addColumn<int>("dimension");  // 0 time, 1 memory, 2 variance
    QTest::newRow("default, +1% time") << WeightProfile::Default << 0;
    QTest::newRow("default, +1% memory") << WeightProfile::Default << 1;
    QTest::newRow("default, +1% variance") << WeightProfile::Default << 2;
    QTest::newRow("safety-first, +1% memory") << WeightProfile::SafetyFirst << 1;
    QTest::newRow("throughput-first, +1% time") << WeightProfile::ThroughputFirst << 0;
}

void TestObjective::weightsAreElasticities()
{
    QFETCH(WeightProfile, profile);
    QFETCH(int, dimension);
    const Weights w = memx::weightsOf(profile);
    const References ref{800.0, 30000.0, 4.0e5, 0.0};
    const double base[3] = {900.0, 32000.0, 3.0e5};
    double bumped[3] = {base[0], base[1], base[2]};
    bumped[dimension] *= 1.01;
    const double p0 = Objective::phi(base[0], base[1], base[2], ref, w);
    const double p1 = Objective::phi(bumped[0], bumped[1], bumped[2], ref, w);
    const double percent = (p1 / p0 - 1.0) * 100.0;
    const double weight = dimension == 0 ? w.time : dimension == 1 ? w.memory : w.variance;
    QVERIFY2(std::fabs(percent - weight) < 0.005, qPrintable(QString("%1% vs w=%2").arg(percent).arg(weight)));
}

void TestObjective::median_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<double>("expected");
    QTest::newRow("single") << QList<double>{5.0} << 5.0;
    QTest::newRow("odd, unsorted") << QList<double>{3.0, 1.0, 2.0} << 2.0;
    QTest::newRow("odd, robust to outlier") << QList<double>{1.0, 1000.0, 1.0} << 1.0;
    QTest::newRow("even, mean of middle two") << QList<double>{4.0, 1.0, 3.0, 2.0} << 2.5;  // (2+3)/2
    QTest::newRow("even, duplicates") << QList<double>{7.0, 7.0, 1.0, 9.0} << 7.0;  // (7+7)/2
    QTest::newRow("even, descending") << QList<double>{40.0, 30.0, 20.0, 10.0, 5.0, 0.0} << 15.0;  // (10+20)/2
}

void TestObjective::median()
{
    QFETCH(QList<double>, values);
    QTEST(Statistics::median(std::vector<double>(values.begin(), values.end())), "expected");
}

// Population variance (divide by n), as the paper's V over devices.
void TestObjective::variance_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<double>("expected");
    QTest::newRow("single value") << QList<double>{12.0} << 0.0;
    QTest::newRow("all equal") << QList<double>{3.0, 3.0, 3.0} << 0.0;
    // mean 2.5, squared deviations 2.25+0.25+0.25+2.25 = 5, /4 = 1.25 (sample variance would be 5/3)
    QTest::newRow("1..4 population not sample") << QList<double>{1.0, 2.0, 3.0, 4.0} << 1.25;
    // classic: mean 5, deviations^2 9+1+1+1+0+0+4+16 = 32, /8 = 4
    QTest::newRow("textbook 8 values") << QList<double>{2, 4, 4, 4, 5, 5, 7, 9} << 4.0;
    // per-GPU peaks in MiB: 70000 and 30000 -> mean 50000, each deviates 20000 -> 4e8
    QTest::newRow("two GPUs MiB") << QList<double>{70000.0, 30000.0} << 4.0e8;
}

void TestObjective::variance()
{
    QFETCH(QList<double>, values);
    QTEST(Statistics::variance(std::vector<double>(values.begin(), values.end())), "expected");
}

void TestObjective::profileNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<WeightProfile>("profile");
    QTest::newRow("default") << "default" << WeightProfile::Default;
    QTest::newRow("safety-first") << "safety-first" << WeightProfile::SafetyFirst;
    QTest::newRow("throughput-first") << "throughput-first" << WeightProfile::ThroughputFirst;
    QTest::newRow("custom") << "custom" << WeightProfile::Custom;
    QTest::newRow("auto") << "auto" << WeightProfile::Auto;
}

void TestObjective::profileNames()
{
    QFETCH(QString, name);
    QFETCH(WeightProfile, profile);
    WeightProfile parsed = WeightProfile::Auto == profile ? WeightProfile::Default : WeightProfile::Auto;
    QVERIFY(memx::parseProfile(name.toStdString(), parsed));
    QCOMPARE(parsed, profile);
    QCOMPARE(QString(memx::toString(profile)), name);  // round trip
}

void TestObjective::unknownProfileNameIsRejected()
{
    WeightProfile p = WeightProfile::SafetyFirst;
    QVERIFY(!memx::parseProfile("fastest", p));
    QVERIFY(!memx::parseProfile("", p));
    QCOMPARE(p, WeightProfile::SafetyFirst);  // left untouched on failure
}

MEMX_TEST_APPLESS_MAIN(TestObjective)
}  // namespace tst_objective

#include "tst_objective.moc"
