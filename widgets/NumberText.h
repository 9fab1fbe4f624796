#pragma once
// Numbers as the views print them, and the unit they convert by; one copy for
// every view (the widgets compile as unity batches, where two sources' private
// copies of one name would meet).

#include <QString>

namespace memx {

inline constexpr double kMiBPerGiB = 1024.0;

// v with a fixed number of decimals: fixedNumber(12.345, 2) is "12.35".
inline QString fixedNumber(double v, int decimals) { return QString::number(v, 'f', decimals); }

}  // namespace memx
