// "Why this plan?": the chosen plan against the fastest, factor by factor.
// Every number below is worked out by hand from Phi's definition (MemX
// Eq. 2) with the default weights wT 0.4, wM 0.2, wV 0.4:
//   references Tref 20 s, Mref 20 GiB, Vref 1 GiB^2, eV = 1% of Vref;
//   chosen  T 21 s, M 20 GiB, V 0.03 GiB^2 -> Phi = 1.05^0.4 * 1 * (0.0400 / 1.01)^0.4 = 0.280;
//   fastest T 14 s, M 30 GiB, V 45 GiB^2   -> Phi = 0.7^0.4 * 1.5^0.2 * (45.01 / 1.01)^0.4 = 4.29;
//   fastest / chosen: time (14/21)^0.4 = 0.85, peak (30/20)^0.2 = 1.08,
//   variance (45.01 / 0.04)^0.4 = 16.61, all 15.32; chosen is 50% slower.
#include "search/PlanExplanation.h"
#include "search/SearchResult.h"

#include "TestMain.h"

namespace tst_plan_explanation {

using namespace memx;

namespace {
constexpr double kGiB2 = 1024.0 * 1024.0;

Plan planOf(std::uint64_t key, double ms, double peakGiB, double varGiB2, double phi)
{
    Plan p;
    p.key = key;
    p.tp = 2;
    p.pp = 4;
    p.dp = 1;
    p.iterationMs = ms;
    p.globalBatch = 128;  // with seq 4096: 524,288 tokens per iteration
    p.seqLen = 4096;
    p.maxMemMiB = peakGiB * 1024;
    p.varMem = varGiB2 * kGiB2;
    p.phi = phi;
    StagePlan s;
    s.capacityMiB = 80 * 1024;
    s.memory.weightsMiB = peakGiB * 1024;
    p.stages.push_back(s);
    return p;
}

SearchResult resultOf(const Plan& fastest)
{
    SearchResult r;
    r.weights = weightsOf(WeightProfile::Default);
    r.references.time = 20000;
    r.references.memory = 20 * 1024;
    r.references.variance = 1 * kGiB2;
    r.references.epsilon = 0.01 * kGiB2;
    r.profileUsed = WeightProfile::Default;
    r.profileReason = "requested";
    r.fastest = {fastest};
    return r;
}

QString joined(const std::vector<std::string>& lines)
{
    QStringList out;
    for (const auto& l : lines)
        out << QString::fromStdString(l);
    return out.join(QLatin1Char('\n'));
}
}  // namespace

class TestPlanExplanation : public QObject {
    Q_OBJECT
private slots:
    void balancedPlanAgainstTheFastest();
    void theFastestExplainsItself();
    void constraintsAreNamed();
};

void TestPlanExplanation::balancedPlanAgainstTheFastest()
{
    const Plan chosen = planOf(1, 21000, 20, 0.03, 0.2803);
    const Plan fastest = planOf(2, 14000, 30, 45, 0);
    const QString text = joined(PlanExplanation::lines(resultOf(fastest), chosen));
    QVERIFY2(text.contains(QStringLiteral("Phi = (T/Tref)^0.40 x (M/Mref)^0.20 x ((V+eV)/(Vref+eV))^0.40")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Tref 20.0 s, Mref 20.0 GiB, Vref 1 GiB^2")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral(
                 "This plan: T 21.0 s (24966 tokens/s), peak 20.0 GiB, V 0.03 GiB^2, lowest headroom 75%")),
             qPrintable(text));
    QVERIFY2(text.contains(
                 QStringLiteral("Fastest feasible plan: T 14.0 s (37449 tokens/s), peak 30.0 GiB, V 45 GiB^2")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("; Phi 0.28.")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("; Phi 4.29.")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("50% slower than the fastest")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral(
                 "x0.85 for time, x1.08 for peak memory and x16.61 for memory variance (x15.32 in all)")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("its memory imbalance outweighs its speed")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Profile default: default weighs time and memory balance most")),
             qPrintable(text));
}

void TestPlanExplanation::theFastestExplainsItself()
{
    const Plan fastest = planOf(2, 14000, 30, 45, 4.29);
    const QString text = joined(PlanExplanation::lines(resultOf(fastest), fastest));
    QVERIFY2(text.contains(QStringLiteral("It is also the fastest feasible plan.")), qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("slower")));
}

void TestPlanExplanation::constraintsAreNamed()
{
    const Plan fastest = planOf(2, 14000, 30, 45, 4.29);
    SearchResult r = resultOf(fastest);
    QVERIFY(!joined(PlanExplanation::lines(r, fastest)).contains(QStringLiteral("constraints")));
    r.constraints.minHeadroom = 0.10;
    r.constraints.headroomAtUpper = true;
    r.constraints.maxSlowdown = 0.05;
    const QString text = joined(PlanExplanation::lines(r, fastest));
    QVERIFY2(text.contains(
                 QStringLiteral("Only plans that meet the constraints were ranked: every GPU keeps at least 10% "
                                "of its memory free at the prediction's upper bound; at most 5% slower than the "
                                "fastest feasible plan.")),
             qPrintable(text));
}

MEMX_TEST_GUILESS_MAIN(TestPlanExplanation)
}  // namespace tst_plan_explanation

#include "tst_plan_explanation.moc"
