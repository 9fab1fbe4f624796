// Memory calibration (issue #12, item 2): a GPU type's multiplier on the
// model's tensors and its framework buffers, fitted to measured stage peaks.
// Every expected number is worked out by hand in the row that uses it.
#include "learn/MemoryFit.h"

#include "TestMain.h"

#include <algorithm>

namespace tst_memory_fit {

using namespace memx;

namespace {

MemoryObservation obs(const char* config, double measured, double tensors, double slack = 0, double add = 0)
{
    MemoryObservation o;
    o.config = config;
    o.measuredMiB = measured;
    o.tensorsMiB = tensors;
    o.slack = slack;
    o.addMiB = add;
    return o;
}

bool has(const std::vector<std::string>& v, const char* s)
{
    return std::find(v.begin(), v.end(), std::string(s)) != v.end();
}

}  // namespace

}  // namespace tst_memory_fit
Q_DECLARE_METATYPE(std::vector<tst_memory_fit::MemoryObservation>)
namespace tst_memory_fit {

class TestMemoryFit : public QObject {
    Q_OBJECT
private slots:
    void fits_data();
    void fits();
    void keepsStartingValues_data();
    void keepsStartingValues();
    void predictedOfEachKind();
};

void TestMemoryFit::fits_data()
{
    QTest::addColumn<std::vector<MemoryObservation>>("observations");
    QTest::addColumn<double>("multiplier");
    QTest::addColumn<double>("frameworkMiB");
    QTest::addColumn<bool>("multiplierFitted");

    // Two configurations: only the buffers. 1500 - 1000 = 2500 - 2000 = 500.
    QTest::newRow("allocated, 2 configurations")
        << std::vector{obs("a", 1500, 1000), obs("b", 2500, 2000)} << 1.0 << 500.0 << false;
    // Device peaks: (T + c) x 1.1 + 1536 = M gives c = (3736 - 1536) / 1.1 - 1000 = 1000
    // and (4836 - 1536) / 1.1 - 2000 = 1000.
    QTest::newRow("device, slack and reserve")
        << std::vector{obs("a", 3736, 1000, 0.1, 1536), obs("b", 4836, 2000, 0.1, 1536)} << 1.0 << 1000.0 << false;
    // Three configurations of 1.2 T + 300: 1500, 2700, 5100 (1.2 is on the
    // multiplier grid, 0.5 + 280/400).
    QTest::newRow("multiplier and buffers")
        << std::vector{obs("a", 1500, 1000), obs("b", 2700, 2000), obs("c", 5100, 4000)} << 1.2 << 300.0 << true;
    // Five configurations of T + 400 and a sixth measured 3x that: the
    // median ignores it (a multiplier that reached it would miss the five).
    QTest::newRow("one odd run") << std::vector{obs("a", 1400, 1000), obs("b", 2400, 2000), obs("c", 3400, 3000),
                                                obs("d", 4400, 4000), obs("e", 5400, 5000), obs("f", 3 * 6400, 6000)}
                                 << 1.0 << 400.0 << false;
    // Repeats of a configuration are one configuration: with a and b twice,
    // 2 distinct, buffers only; the weighted median of 500, 520 (weights
    // 1/1500, 1/1520) and 500, 500 (1/2500 each) is 500.
    QTest::newRow("repeats") << std::vector{obs("a", 1500, 1000), obs("a", 1520, 1000), obs("b", 2500, 2000),
                                            obs("b", 2500, 2000)}
                             << 1.0 << 500.0 << false;
}

void TestMemoryFit::fits()
{
    QFETCH(std::vector<MemoryObservation>, observations);
    QFETCH(double, multiplier);
    QFETCH(double, frameworkMiB);
    QFETCH(bool, multiplierFitted);
    const MemoryFit::Result r = MemoryFit::fit(observations, 1.0, 0.0);
    QVERIFY2(std::abs(r.multiplier - multiplier) < 1e-9, qPrintable(QString::number(r.multiplier)));
    QVERIFY2(std::abs(r.frameworkMiB - frameworkMiB) < 1e-6, qPrintable(QString::number(r.frameworkMiB)));
    QVERIFY(has(r.fitted, "framework_mib"));
    QCOMPARE(has(r.fitted, "memory_multiplier"), multiplierFitted);
    QVERIFY(r.mapeAfter < r.mapeBefore);
    QCOMPARE(r.mapeAfter, MemoryFit::mape(observations, r.multiplier, r.frameworkMiB));
}

void TestMemoryFit::keepsStartingValues_data()
{
    QTest::addColumn<std::vector<MemoryObservation>>("observations");
    QTest::addColumn<QString>("reason");

    QTest::newRow("one configuration") << std::vector{obs("a", 1500, 1000), obs("a", 1510, 1000)}
                                       << "only 1 distinct configuration";
    QTest::newRow("contradicting repeats")
        << std::vector{obs("a", 1000, 1000), obs("a", 3500, 1000), obs("b", 2000, 2000)}
        << "differ 3.5x (1000 vs 3500 MiB)";
    // Both peaks below the model's tensors: the buffers cannot be negative,
    // so 0 is the best there is and nothing improves: 100 / 900 = 200 / 1800 = 11.1 %.
    QTest::newRow("model already too high") << std::vector{obs("a", 900, 1000), obs("b", 1800, 2000)}
                                            << "no fit lowers these peaks' error (11.1% with catalog values)";
}

void TestMemoryFit::keepsStartingValues()
{
    QFETCH(std::vector<MemoryObservation>, observations);
    QFETCH(QString, reason);
    const MemoryFit::Result r = MemoryFit::fit(observations, 1.0, 0.0);
    QVERIFY(r.fitted.empty());
    QCOMPARE(r.multiplier, 1.0);
    QCOMPARE(r.frameworkMiB, 0.0);
    QCOMPARE(r.mapeAfter, r.mapeBefore);
    QVERIFY2(QString::fromStdString(r.note).contains(reason), r.note.c_str());
}

void TestMemoryFit::predictedOfEachKind()
{
    // allocated: 1.1 x 1000 + 200 = 1300; reserved with 8 % slack: 1404;
    // device with 1536 MiB reserve on top: 2940.
    QCOMPARE(MemoryFit::predictedMiB(obs("a", 1, 1000), 1.1, 200), 1300.0);
    QCOMPARE(MemoryFit::predictedMiB(obs("a", 1, 1000, 0.08), 1.1, 200), 1404.0);
    QCOMPARE(MemoryFit::predictedMiB(obs("a", 1, 1000, 0.08, 1536), 1.1, 200), 2940.0);
}

MEMX_TEST_APPLESS_MAIN(TestMemoryFit)
}  // namespace tst_memory_fit

#include "tst_memory_fit.moc"
