#include "CountText.h"

#include <QLocale>

#include <cmath>

namespace memx {

QString CountText::compact(std::uint64_t n)
{
    if (n < 1000000)
        return exact(n);
    return compact(static_cast<double>(n));
}

QString CountText::compact(double n)
{
    if (!std::isfinite(n) || n < 0)
        return QStringLiteral("-");
    if (n < 1e6)
        return QLocale().toString(static_cast<qlonglong>(std::llround(n)));
    int exponent = static_cast<int>(std::floor(std::log10(n)));
    double mantissa = n / std::pow(10.0, exponent);
    // 9.996e6 rounds to 10.00: carry into the exponent.
    if (std::round(mantissa * 100) >= 1000) {
        mantissa /= 10;
        ++exponent;
    }
    return QStringLiteral("%1e%2").arg(mantissa, 0, 'f', 2).arg(exponent);
}

QString CountText::exact(std::uint64_t n) { return QLocale().toString(static_cast<qulonglong>(n)); }

}  // namespace memx
