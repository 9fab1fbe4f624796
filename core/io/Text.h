#pragma once

#include <string>
#include <vector>

namespace memx {

// Small text helpers shared by the reports, exports and messages.
struct Text {
    // printf-style formatting of one number, e.g. Text::fmt("%.1f", 2.25) == "2.2".
    static std::string fmt(const char* format, double value);
    // "1,2,4" (or with another separator).
    static std::string joinInts(const std::vector<int>& values, const char* separator = ",");
    static std::string join(const std::vector<std::string>& values, const char* separator = ", ");
};

}  // namespace memx
