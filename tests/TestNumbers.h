#pragma once
// Comparing numbers that may be NaN ("no value") in data-driven tests.

#include <QtTest/QtTest>

#include <cmath>
#include <limits>

namespace memx::test {

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

// QCOMPARE, except that an expected NaN asks for a NaN.
inline void compareMaybeNaN(double actual, double expected)
{
    if (std::isnan(expected))
        QVERIFY2(std::isnan(actual), qPrintable(QString("expected NaN, got %1").arg(actual)));
    else
        QCOMPARE(actual, expected);
}

}  // namespace memx::test
