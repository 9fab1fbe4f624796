#pragma once

#include <charconv>
#include <cmath>
#include <string_view>

namespace memx {

// Locale-independent string_view helpers shared by the log readers
// (MegatronLogParser, MegatronLogLine, MegatronArguments, LogLinePrefixes).
struct LogText {
    using sv = std::string_view;

    static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
    static bool isIdentifier(char c) { return isAlpha(c) || isDigit(c) || c == '_'; }

    static sv ltrim(sv s)
    {
        while (!s.empty() && isSpace(s.front()))
            s.remove_prefix(1);
        return s;
    }
    static sv rtrim(sv s)
    {
        while (!s.empty() && isSpace(s.back()))
            s.remove_suffix(1);
        return s;
    }
    static sv trim(sv s) { return rtrim(ltrim(s)); }
    static bool startsWith(sv s, sv p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }
    static bool endsWith(sv s, sv p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

    // A whole token as a finite double ("+1.5", "1e-05"; not "nan", not "1.5x").
    static bool toDouble(sv s, double& out)
    {
        s = trim(s);
        if (!s.empty() && s.front() == '+')
            s.remove_prefix(1);
        if (s.empty())
            return false;
        double v = 0.0;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
            return false;
        out = v;
        return true;
    }

    // A whole token as an integer.
    template <typename Int> static bool toInt(sv s, Int& out)
    {
        s = trim(s);
        if (!s.empty() && s.front() == '+')
            s.remove_prefix(1);
        if (s.empty())
            return false;
        Int v = 0;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || ptr != s.data() + s.size())
            return false;
        out = v;
        return true;
    }

    // Consumes leading digits of s (at most 12) into out; returns the digit count (0: none).
    static size_t takeDigits(sv s, long long& out)
    {
        size_t n = 0;
        out = 0;
        while (n < s.size() && isDigit(s[n]) && n < 12) {
            out = out * 10 + (s[n] - '0');
            ++n;
        }
        return n;
    }
};

}  // namespace memx
