#include "io/Text.h"

#include <algorithm>
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
    for (int v : values)
        out += (out.empty() ? "" : separator) + std::to_string(v);
    return out;
}

std::string Text::join(const std::vector<std::string>& values, const char* separator)
{
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? separator : "") + values[i];
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
            if (c == 0xE0)
                lo = 0xA0;  // overlong
            if (c == 0xED)
                hi = 0x9F;  // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0)
                lo = 0x90;  // overlong
            if (c == 0xF4)
                hi = 0x8F;  // above U+10FFFF
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

namespace {

// Length in bytes of the control character at `i` (see Text::controlCharacter), or 0.
std::size_t controlAt(const std::string& s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x20 || c == 0x7F)
        return 1;
    if (c == 0xC2 && i + 1 < s.size() && b(i + 1) >= 0x80 && b(i + 1) <= 0x9F)
        return 2;  // U+0080-U+009F
    if (c == 0xE2 && i + 2 < s.size() && b(i + 1) == 0x80 && (b(i + 2) == 0xA8 || b(i + 2) == 0xA9))
        return 3;  // U+2028, U+2029
    return 0;
}

unsigned codePoint(const std::string& s, std::size_t i, std::size_t len)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(s[k])); };
    if (len == 1)
        return b(i);
    if (len == 2)
        return ((b(i) & 0x1Fu) << 6) | (b(i + 1) & 0x3Fu);
    return ((b(i) & 0x0Fu) << 12) | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
}

std::string escaped(unsigned cp)
{
    switch (cp) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02x" : "\\u%04x", cp);
    return buf;
}

}  // namespace

std::size_t Text::controlCharacter(const std::string& s)
{
    for (std::size_t i = 0; i < s.size(); ++i)
        if (controlAt(s, i) > 0)
            return i;
    return std::string::npos;
}

std::string Text::nameProblem(const std::string& s)
{
    const std::size_t at = controlCharacter(s);
    if (at == std::string::npos)
        return {};
    const unsigned cp = codePoint(s, at, controlAt(s, at));
    const char* what = cp == '\n' ? "a line feed"
        : cp == '\r'              ? "a carriage return"
        : cp == '\t'              ? "a tab"
        : cp == 0                 ? "a NUL byte"
        : cp == 0x2028            ? "a line separator"
        : cp == 0x2029            ? "a paragraph separator"
                                  : "a control character";
    char code[16];
    std::snprintf(code, sizeof code, "U+%04X", cp);
    return std::string("holds ") + what + " (" + code + ") at byte " + std::to_string(at)
        + "; names are one line of printable text (it would be copied into launch scripts and configs)";
}

std::string Text::oneLine(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = controlAt(s, i);
        if (n == 0) {
            out += s[i++];
            continue;
        }
        out += escaped(codePoint(s, i, n));
        i += n;
    }
    return out;
}

std::string Text::yamlQuoted(const std::string& s)
{
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = controlAt(s, i);
        if (n > 0) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "\\u%04x", codePoint(s, i, n));
            out += buf;
            i += n;
            continue;
        }
        const char c = s[i++];
        if (c == '"' || c == '\\')
            out += '\\';
        else if (c == '$' && i < s.size() && s[i] == '{')
            out += "\\\\";  // OmegaConf's escape, itself escaped for YAML
        out += c;
    }
    return out + "\"";
}

std::string Text::shellWord(const std::string& s)
{
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
            || c == '.' || c == '/' || c == ',' || c == '=' || c == ':';
    });
    if (plain)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string Text::safeName(const std::string& s)
{
    std::string out;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
            || c == '_' || c == '.';
        out += ok ? c : '_';
    }
    return out.empty() ? "_" : out;
}

}  // namespace memx
