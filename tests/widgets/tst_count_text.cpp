// Status-line counts: exact up to a million, a three-digit mantissa and a
// power of ten above it (issue #35: "feasible 1,010,415,832,157,193,162").
#include "CountText.h"

#include "TestMain.h"

#include <limits>

namespace tst_count_text {

using memx::CountText;

class TestCountText : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void compactCounts_data()
    {
        QTest::addColumn<quint64>("n");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << quint64(0) << "0";
        QTest::newRow("grouped") << quint64(987654) << "987,654";
        QTest::newRow("just below a million") << quint64(999999) << "999,999";
        QTest::newRow("a million") << quint64(1000000) << "1.00e6";
        QTest::newRow("rounds up into the next power") << quint64(9996000) << "1.00e7";
        QTest::newRow("the issue's feasible count") << quint64(1010415832157193162ULL) << "1.01e18";
        QTest::newRow("largest") << std::numeric_limits<quint64>::max() << "1.84e19";
    }
    void compactCounts()
    {
        QFETCH(quint64, n);
        QFETCH(QString, text);
        QCOMPARE(CountText::compact(static_cast<std::uint64_t>(n)), text);
    }

    void rates_data()
    {
        QTest::addColumn<double>("rate");
        QTest::addColumn<QString>("text");
        QTest::newRow("small rate, whole") << 1234.4 << "1,234";
        QTest::newRow("the issue's rate") << 49473801748977256.0 << "4.95e16";
        QTest::newRow("negative") << -1.0 << "-";
        QTest::newRow("not a number") << std::numeric_limits<double>::quiet_NaN() << "-";
    }
    void rates()
    {
        QFETCH(double, rate);
        QFETCH(QString, text);
        QCOMPARE(CountText::compact(rate), text);
    }

    void exactKeepsEveryDigit()
    {
        QCOMPARE(CountText::exact(1010415832157193162ULL), QStringLiteral("1,010,415,832,157,193,162"));
    }
};

MEMX_TEST_APPLESS_MAIN(TestCountText)
}  // namespace tst_count_text

#include "tst_count_text.moc"
