#pragma once

#include <string>
#include <vector>

namespace memx {

// Small text helpers shared by the reports, exports and messages.
struct Text {
    // printf-style formatting of one number, e.g. Text::fmt("%.1f", 2.25) == "2.2".
    static std::string fmt(const char* format, double value);
    // The shortest digits that read back as exactly `value` ("0.1", "2", "1e-07").
    static std::string shortest(double value);
    // The same as Python's repr of a float: whole numbers end in ".0" ("0.0",
    // "2.0"); what Megatron prints and what its YAML and flags read.
    static std::string pyFloat(double value);
    // "1,2,4" (or with another separator).
    static std::string joinInts(const std::vector<int>& values, const char* separator = ",");
    static std::string join(const std::vector<std::string>& values, const char* separator = ", ");
    // Table cells: `s` padded with spaces to `width` on the right (left-aligned)
    // or on the left (right-aligned); longer text is kept whole.
    static std::string pad(std::string s, std::size_t width);
    static std::string rpad(std::string s, std::size_t width);
    // Offset of the first byte that is not part of well-formed UTF-8 (no
    // overlong forms, surrogates or code points above U+10FFFF), or
    // std::string::npos when all of `s` is; what JSON output needs.
    static std::size_t invalidUtf8(const std::string& s);
};

}  // namespace memx
