#pragma once

#include <QString>

#include <cstdint>

namespace memx {

// Counts as people read them in a status line: exact, with the locale's
// digit grouping, up to a million ("987,654"); above it one significant
// mantissa of three digits and a power of ten ("1.01e18"), so that a count
// of 10^18 plans does not fill the status bar with 25 digits. The exact
// value belongs in a tooltip (exact()).
struct CountText {
    static QString compact(std::uint64_t n);
    static QString compact(double n);  // rates; negative and non-finite as "-"
    static QString exact(std::uint64_t n);
};

}  // namespace memx
