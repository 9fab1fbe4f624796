#include "measure/LogLinePrefixes.h"

#include "io/LogText.h"

#include <algorithm>
#include <array>

namespace memx {

namespace {

using sv = std::string_view;
using T = LogText;

constexpr std::array<sv, 7> kLevels = {"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "TRACE"};

bool isLevel(sv word) { return std::find(kLevels.begin(), kLevels.end(), word) != kLevels.end(); }

// Length of "YYYY-MM-DD[ T]HH:MM:SS[.,fraction][Z]" at the start of s; 0 if none.
size_t isoTimestampLength(sv s)
{
    static constexpr sv shape = "dddd-dd-dd?dd:dd:dd";
    if (s.size() < shape.size())
        return 0;
    for (size_t i = 0; i < shape.size(); ++i) {
        const char want = shape[i];
        const char c = s[i];
        const bool ok = want == 'd' ? T::isDigit(c) : want == '?' ? (c == ' ' || c == 'T') : c == want;
        if (!ok)
            return 0;
    }
    size_t n = shape.size();
    if (n < s.size() && (s[n] == '.' || s[n] == ',')) {
        size_t m = n + 1;
        while (m < s.size() && T::isDigit(s[m]))
            ++m;
        if (m > n + 1)
            n = m;
    }
    if (n < s.size() && s[n] == 'Z')
        ++n;
    return n;
}

// "5: " from srun -l.
bool stripSrunTask(sv l, sv& line, StrippedLogLine& out)
{
    long long n = 0;
    const size_t d = T::takeDigits(l, n);
    if (d == 0 || d >= l.size() || l[d] != ':' || (d + 1 < l.size() && l[d + 1] != ' '))
        return false;
    out.source += std::string(l.substr(0, d)) + "/";
    line = l.substr(std::min(l.size(), d + 2));
    return true;
}

// "[default0]:" from torchrun --tee, "[rank0]:" from PyTorch.
bool stripBracketedStream(sv l, sv& line, StrippedLogLine& out)
{
    if (l.empty() || l.front() != '[')
        return false;
    size_t i = 1;
    while (i < l.size() && T::isAlpha(l[i]))
        ++i;
    const size_t letters = i - 1;
    while (i < l.size() && T::isDigit(l[i]))
        ++i;
    if (letters == 0 || i == letters + 1 || i + 1 >= l.size() || l[i] != ']' || l[i + 1] != ':')
        return false;
    out.source += std::string(l.substr(1, i - 1)) + "/";
    line = l.substr(i + 2);
    if (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
    return true;
}

// "INFO:megatron.core.timers:" (Python logging's default format).
bool stripPythonLogger(sv l, sv& line)
{
    for (const sv level : {sv("INFO:"), sv("WARNING:"), sv("DEBUG:")}) {
        if (!T::startsWith(l, level) || !T::startsWith(l.substr(level.size()), "megatron"))
            continue;
        const size_t colon = l.find(':', level.size());
        const size_t space = l.find(' ', level.size());
        if (colon != sv::npos && (space == sv::npos || colon < space)) {
            line = l.substr(colon + 1);
            return true;
        }
    }
    return false;
}

// After a timestamp: DeepSpeed's " [INFO] [logging.py:96:log_dist]", one
// bracketed level or source location per round.
sv skipBracketedDecorations(sv rest)
{
    for (;;) {
        const sv l = T::ltrim(rest);
        if (l.empty() || l.front() != '[')
            return rest;
        const size_t close = l.find(']');
        if (close == sv::npos || close > 80)
            return rest;
        const sv inside = l.substr(1, close - 1);
        if (!isLevel(inside) && inside.find(".py:") == sv::npos)
            return rest;
        rest = l.substr(close + 1);
    }
}

// "[2026-03-02 10:14:05.118204]" (Megatron), "[2024-05-01 12:00:01,123]" (DeepSpeed).
bool stripBracketedTimestamp(sv l, sv& line, StrippedLogLine& out)
{
    if (l.size() < 2 || l.front() != '[')
        return false;
    const size_t n = isoTimestampLength(l.substr(1));
    if (n == 0 || 1 + n >= l.size() || l[1 + n] != ']')
        return false;
    out.timestamp = std::string(l.substr(1, n));
    line = skipBracketedDecorations(l.substr(n + 2));
    if (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
    return true;
}

// "2024-05-01 12:00:01,123 - INFO - ", "2024-05-01 12:00:01,123 - name - INFO - ",
// "2024-05-01 12:00:01 INFO ", "2024-05-01T12:00:01.123Z ".
bool stripBareTimestamp(sv l, sv& line, StrippedLogLine& out)
{
    const size_t n = isoTimestampLength(l);
    if (n == 0)
        return false;
    out.timestamp = std::string(l.substr(0, n));
    sv rest = l.substr(n);
    // Python logging: the level sits between " - " separators, after an optional logger name.
    const sv window = rest.substr(0, std::min<size_t>(rest.size(), 120));
    for (const sv level : kLevels) {
        const std::string sep = " - " + std::string(level) + " - ";
        const size_t at = window.find(sep);
        if (T::startsWith(rest, " - ") && at != sv::npos) {
            line = rest.substr(at + sep.size());
            return true;
        }
    }
    const sv word = T::ltrim(rest).substr(0, T::ltrim(rest).find(' '));
    if (isLevel(word))
        rest = T::ltrim(rest).substr(word.size());
    line = skipBracketedDecorations(rest);
    if (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
    return true;
}

// "[NeMo I 2024-10-09 10:48:44 nemo_logging:393] ".
bool stripNemoLogger(sv l, sv& line)
{
    if (!T::startsWith(l, "[NeMo "))
        return false;
    const size_t close = l.find(']');
    if (close == sv::npos)
        return false;
    line = l.substr(close + 1);
    if (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
    return true;
}

}  // namespace

std::string LogLinePrefixes::withoutAnsi(std::string_view line)
{
    std::string out;
    out.reserve(line.size());
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            size_t j = i + 2;
            while (j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e))
                ++j;
            if (j < line.size()) {
                i = j;  // the final byte
                continue;
            }
        }
        out += line[i];
    }
    return out;
}

StrippedLogLine LogLinePrefixes::strip(std::string_view raw)
{
    StrippedLogLine out;
    const std::string plain = withoutAnsi(raw);
    sv line(plain);
    for (int round = 0; round < 8; ++round) {
        const sv l = T::ltrim(line);
        if (stripSrunTask(l, line, out) || stripBracketedStream(l, line, out) || stripPythonLogger(l, line)
            || stripBracketedTimestamp(l, line, out) || stripBareTimestamp(l, line, out) || stripNemoLogger(l, line))
            continue;
        if (T::startsWith(l, "stdout: ") || T::startsWith(l, "stderr: ")) {
            line = l.substr(8);
            continue;
        }
        break;
    }
    out.content = std::string(line);
    return out;
}

}  // namespace memx
