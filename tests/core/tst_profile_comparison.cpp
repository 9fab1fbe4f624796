// How the winners of two weight profiles are compared in words (text report
// and the Profiles view): time and peak memory as percentages, memory
// variance, often near zero, as both values.
#include "search/ProfileComparison.h"
#include "space/Plan.h"

#include "TestMain.h"

namespace tst_profile_comparison {

using namespace memx;

}  // namespace tst_profile_comparison
Q_DECLARE_METATYPE(memx::Plan)
namespace tst_profile_comparison {

namespace {
constexpr double kGiB2 = 1024.0 * 1024.0;  // MiB^2 per GiB^2

// One stage: capacity 80 GiB, `usedGiB` of it taken (headroom = 1 - used / 80).
Plan planOf(std::uint64_t key, double ms, double peakMiB, double varMiB2, double usedGiB)
{
    Plan p;
    p.key = key;
    p.iterationMs = ms;
    p.maxMemMiB = peakMiB;
    p.varMem = varMiB2;
    StagePlan s;
    s.capacityMiB = 80 * 1024;
    s.memory.weightsMiB = usedGiB * 1024;
    p.stages.push_back(s);
    return p;
}
}  // namespace

class TestProfileComparison : public QObject {
    Q_OBJECT
private slots:
    void differences_data();
    void differences();
};

void TestProfileComparison::differences_data()
{
    QTest::addColumn<Plan>("base");
    QTest::addColumn<Plan>("other");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("expected");
    // The case: 0.13 -> 2.79 GiB^2 used to read "+2046%".
    // Time 20000 -> 21860 ms: +9.3%; peak 40960 -> 41820 MiB: +2.1%;
    // headroom 1 - 60/80 = 25% -> 1 - 40/80 = 50%.
    QTest::newRow("variance near zero")
        << planOf(1, 20000, 40960, 0.13 * kGiB2, 60) << planOf(2, 21860, 41820, 2.79 * kGiB2, 40)
        << int(VarianceMode::AbsoluteMiB)
        << QStringLiteral(
               "+9.3% time, memory variance 0.13 -> 2.79 GiB^2, +2.1% peak memory, lowest headroom 25% -> 50%");
    // 30000 -> 15000 ms: -50% (no decimals at 10% and above); peak equal; headroom 1 - 72/80.
    QTest::newRow("utilisation variance, faster")
        << planOf(1, 30000, 50000, 0.0012, 72) << planOf(2, 15000, 50000, 0.03, 72) << int(VarianceMode::Utilisation)
        << QStringLiteral(
               "-50% time, memory variance 0.0012 -> 0.03 (utilisation^2), same peak memory, lowest headroom 10% -> 10%");
    QTest::newRow("equal to three digits")
        << planOf(1, 1000, 100, 0.5 * kGiB2, 8) << planOf(2, 1000, 100, 0.5001 * kGiB2, 8)
        << int(VarianceMode::AbsoluteMiB)
        << QStringLiteral("same time, same memory variance, same peak memory, lowest headroom 90% -> 90%");
    QTest::newRow("one plan") << planOf(7, 1, 1, 1, 1) << planOf(7, 2, 2, 2, 2) << int(VarianceMode::AbsoluteMiB)
                              << QStringLiteral("the same plan");
}

void TestProfileComparison::differences()
{
    QFETCH(Plan, base);
    QFETCH(Plan, other);
    QFETCH(int, mode);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(ProfileComparison::differences(base, other, static_cast<VarianceMode>(mode))),
             expected);
}

MEMX_TEST_GUILESS_MAIN(TestProfileComparison)
}  // namespace tst_profile_comparison

#include "tst_profile_comparison.moc"
