// The error floor that repeated measurements set (issue #12, item 6: the
// Megatron-LM CI runs repeat a configuration with results up to 3x apart).
// Every expected number is worked out by hand in its row.
#include "accuracy/RepeatFloor.h"

#include "TestMain.h"

namespace tst_repeat_floor {

using namespace memx;

using Keyed = std::vector<std::pair<std::string, double>>;
}  // namespace tst_repeat_floor
Q_DECLARE_METATYPE(tst_repeat_floor::Keyed)
namespace tst_repeat_floor {

class TestRepeatFloor : public QObject {
    Q_OBJECT
private slots:
    void floor_data();
    void floor();
};

void TestRepeatFloor::floor_data()
{
    QTest::addColumn<Keyed>("measured");
    QTest::addColumn<int>("configurations");
    QTest::addColumn<int>("repeated");
    QTest::addColumn<double>("mapePct");

    QTest::newRow("nothing repeats") << Keyed{{"a", 100}, {"b", 200}} << 2 << 0 << 0.0;
    // 100 and 300: weights 1/100 and 1/300; the first alone holds 3/4 of the
    // weight, so the best answer is 100: errors 0 and 200/300, over 2 runs
    // 33.33 %.
    QTest::newRow("two repeats 3x apart") << Keyed{{"a", 100}, {"a", 300}} << 1 << 1 << 100.0 / 3.0;
    // a: 100, 110, 120 -> the weighted median is 110 (1/100 < half of the
    // total 0.0274, 1/100 + 1/110 > it): errors 0.1, 0, 10/120; b once (0).
    // Sum 0.18333 over 4 runs = 4.583 %.
    QTest::newRow("three repeats and a single")
        << Keyed{{"a", 100}, {"a", 110}, {"a", 120}, {"b", 50}} << 2 << 1 << 100.0 * (0.1 + 10.0 / 120) / 4;
    // Equal repeats cost nothing; values that are not positive are ignored.
    QTest::newRow("equal repeats") << Keyed{{"a", 80}, {"a", 80}, {"b", 0}, {"b", -5}} << 1 << 1 << 0.0;
}

void TestRepeatFloor::floor()
{
    QFETCH(Keyed, measured);
    QFETCH(int, configurations);
    QFETCH(int, repeated);
    QFETCH(double, mapePct);
    const RepeatFloor f = RepeatFloor::of(measured);
    QCOMPARE(int(f.configurations), configurations);
    QCOMPARE(int(f.repeated), repeated);
    QVERIFY2(std::abs(f.mapePct - mapePct) < 1e-9, qPrintable(QString::number(f.mapePct, 'g', 12)));
}

MEMX_TEST_APPLESS_MAIN(TestRepeatFloor)
}  // namespace tst_repeat_floor

#include "tst_repeat_floor.moc"
