#include "io/Text.h"

#include <charconv>
#include <cstdio>

namespace memx {

std::string Text::shortest(double value)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, res.ptr);
}

std::string Text::pyFloat(double value)
{
    std::string s = shortest(value);
    if (s.find_first_of(".en") == std::string::npos)  // not 0.1, 1e-07, inf or nan
        s += ".0";
    return s;
}

std::string Text::fmt(const char* format, double value)
{
    char buf[128];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string Text::joinInts(const std::vector<int>& values, const char* separator)
{
    std::string out;
    for (int v : values) out += (out.empty() ? "" : separator) + std::to_string(v);
    return out;
}

std::string Text::join(const std::vector<std::string>& values, const char* separator)
{
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + values[i];
    return out;
}

std::size_t Text::invalidUtf8(const std::string& s)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t n = 0;
        unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0) lo = 0xA0;  // overlong
            if (c == 0xED) hi = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0) lo = 0x90;  // overlong
            if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
        } else {
            return i;
        }
        for (std::size_t k = 1; k <= n; ++k) {
            if (i + k >= s.size())
                return i;
            const unsigned char b = byte(i + k);
            if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
                return i;
        }
        i += n + 1;
    }
    return std::string::npos;
}

std::string Text::pad(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string Text::rpad(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.insert(0, width - s.size(), ' ');
    return s;
}

}  // namespace memx
