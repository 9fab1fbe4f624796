#include "profile/MegatronLogParser.h"

#include "io/InputError.h"
#include "profile/RankLayout.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

namespace memx {

namespace {

using sv = std::string_view;

constexpr size_t kMaxWarnings = 100;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

sv ltrim(sv s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    return s;
}
sv rtrim(sv s)
{
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}
sv trim(sv s) { return rtrim(ltrim(s)); }

bool startsWith(sv s, sv p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }

// A whole token as a finite double (locale-independent).
bool toDouble(sv s, double& out)
{
    s = trim(s);
    if (s.empty())
        return false;
    if (s.front() == '+')
        s.remove_prefix(1);
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return false;
    out = v;
    return true;
}

template <typename Int>
bool toInt(sv s, Int& out)
{
    s = trim(s);
    if (s.empty())
        return false;
    Int v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size())
        return false;
    out = v;
    return true;
}

// Consumes leading digits of s into out; returns the digit count (0: none).
size_t takeDigits(sv s, long long& out)
{
    size_t n = 0;
    out = 0;
    while (n < s.size() && isDigit(s[n]) && n < 12) {
        out = out * 10 + (s[n] - '0');
        ++n;
    }
    return n;
}

// "key: value" fields between '|' separators. A piece without ':' (or with an
// empty key) is reported in `bad`.
struct Fields {
    std::vector<std::pair<std::string, std::string>> kv;
    std::vector<std::string> bad;
};

Fields splitFields(sv rest)
{
    Fields f;
    while (!rest.empty()) {
        const size_t bar = rest.find('|');
        const sv piece = trim(rest.substr(0, bar));
        rest = bar == sv::npos ? sv() : rest.substr(bar + 1);
        if (piece.empty())
            continue;
        const size_t colon = piece.find(':');
        const sv key = colon == sv::npos ? sv() : trim(piece.substr(0, colon));
        if (key.empty()) {
            f.bad.emplace_back(piece);
            continue;
        }
        f.kv.emplace_back(std::string(key), std::string(trim(piece.substr(colon + 1))));
    }
    return f;
}

// Removes launcher/logger prefixes and a leading timestamp. `source` names the
// stream the line came from ("5" for srun -l, "default0" for torchrun --tee),
// so that timer blocks of interleaved ranks are followed separately.
struct Stripped {
    sv content;
    std::string source;
    std::string timestamp;
};

Stripped stripPrefixes(sv line)
{
    Stripped out;
    for (int round = 0; round < 8; ++round) {
        const sv l = ltrim(line);
        // srun -l: "5: " (right-aligned numbers for wide jobs).
        {
            long long n = 0;
            const size_t d = takeDigits(l, n);
            if (d > 0 && d < l.size() && l[d] == ':' && (d + 1 == l.size() || l[d + 1] == ' ')) {
                out.source += std::string(l.substr(0, d)) + "/";
                line = l.substr(std::min(l.size(), d + 2));
                continue;
            }
        }
        // torchrun --tee: "[default0]:"; PyTorch: "[rank0]:".
        if (!l.empty() && l.front() == '[') {
            size_t i = 1;
            while (i < l.size() && isAlpha(l[i]))
                ++i;
            const size_t letters = i - 1;
            while (i < l.size() && isDigit(l[i]))
                ++i;
            if (letters > 0 && i > letters + 1 && i + 1 < l.size() && l[i] == ']' && l[i + 1] == ':') {
                out.source += std::string(l.substr(1, i - 1)) + "/";
                line = l.substr(i + 2);
                if (!line.empty() && line.front() == ' ')
                    line.remove_prefix(1);
                continue;
            }
        }
        if (startsWith(l, "stdout: ") || startsWith(l, "stderr: ")) {
            line = l.substr(8);
            continue;
        }
        // Python logging: "INFO:megatron.core.timers:".
        bool logger = false;
        for (const sv level : {sv("INFO:"), sv("WARNING:"), sv("DEBUG:")}) {
            if (!logger && startsWith(l, level) && startsWith(l.substr(level.size()), "megatron")) {
                const size_t colon = l.find(':', level.size());
                const size_t space = l.find(' ', level.size());
                if (colon != sv::npos && (space == sv::npos || colon < space)) {
                    line = l.substr(colon + 1);
                    logger = true;
                }
            }
        }
        if (logger)
            continue;
        // "[2026-03-02 10:14:05.118204]"
        if (l.size() > 12 && l.front() == '[' && isDigit(l[1]) && isDigit(l[2]) && isDigit(l[3]) && isDigit(l[4])
            && l[5] == '-') {
            const size_t close = l.find(']');
            if (close != sv::npos && close < 40) {
                out.timestamp = std::string(l.substr(1, close - 1));
                line = l.substr(close + 1);
                continue;
            }
        }
        break;
    }
    out.content = line;
    return out;
}

enum class TimerMode { None, MinMax, Max, All };

struct TimerState {
    TimerMode mode = TimerMode::None;
    std::string allName;  // current timer of a "times across ranks" block
};

class Parser {
public:
    Parser(const std::string& text, const std::string& file)
        : text_(text)
    {
        log_.file = file;
    }

    MegatronLog run()
    {
        sv rest(text_);
        int lineNo = 0;
        while (!rest.empty() || lineNo == 0) {
            const size_t nl = rest.find('\n');
            sv line = rest.substr(0, nl);
            rest = nl == sv::npos ? sv() : rest.substr(nl + 1);
            ++lineNo;
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            parseLine(line, lineNo);
            if (rest.empty())
                break;
        }
        if (suppressed_ > 0)
            log_.warnings.push_back(fileName() + ": " + std::to_string(suppressed_) + " more warnings not shown");
        if (records_ == 0) {
            std::string reason = "no Megatron-LM iteration, memory or timer line found";
            if (!log_.warnings.empty())
                reason += " (" + std::to_string(log_.warnings.size()) + " malformed line(s); first: "
                    + log_.warnings.front() + ")";
            throw InputError(log_.file, "", reason);
        }
        return std::move(log_);
    }

private:
    std::string fileName() const { return log_.file.empty() ? std::string("<input>") : log_.file; }

    void warn(int lineNo, const std::string& what)
    {
        if (log_.warnings.size() >= kMaxWarnings) {
            ++suppressed_;
            return;
        }
        log_.warnings.push_back(fileName() + ":" + std::to_string(lineNo) + ": " + what);
    }

    static bool hasBinary(sv s)
    {
        return std::any_of(s.begin(), s.end(), [](char ch) {
            const auto u = static_cast<unsigned char>(ch);
            return (u < 0x20 && u != '\t') || u == 0x7f;
        });
    }

    void parseLine(sv raw, int lineNo)
    {
        const Stripped st = stripPrefixes(raw);
        const sv c = st.content;
        const sv t = trim(c);
        TimerState& ts = timerStates_[st.source];

        if (t.empty()) {
            ts.mode = TimerMode::None;
            return;
        }
        if (parseTimerHeader(t, ts))
            return;
        if (parseIteration(c, st.timestamp, lineNo)) {
            ts.mode = TimerMode::None;
            return;
        }
        // Timer entries are indented; a block ends at the first other line
        // of the same stream.
        if (ts.mode != TimerMode::None && isSpace(c.front()) && t.find("memory (MB)") == sv::npos) {
            parseTimerEntry(t, ts, lineNo);
            return;
        }
        // Memory lines of other ranks may interleave with a timer block in
        // unprefixed logs: they do not end the block.
        if (parseMemory(c, lineNo))
            return;
        ts.mode = TimerMode::None;
        if (startsWith(t, "time (ms)")) {
            parseLegacyTimers(t, lineNo);
            return;
        }
        if (hasBinary(raw))
            warn(lineNo, "line holds binary or control bytes; ignored");
    }

    bool parseTimerHeader(sv t, TimerState& ts)
    {
        TimerMode m = TimerMode::None;
        if (t == "(min, max) time across ranks (ms):")
            m = TimerMode::MinMax;
        else if (t == "max time across ranks (ms):")
            m = TimerMode::Max;
        else if (t == "times across ranks (ms):")
            m = TimerMode::All;
        if (m == TimerMode::None)
            return false;
        ts.mode = m;
        ts.allName.clear();
        return true;
    }

    void addTimer(const std::string& name, TimerRecord r)
    {
        r.iteration = lastIteration_;
        log_.timers[name].push_back(r);
        ++records_;
    }

    void parseTimerEntry(sv t, TimerState& ts, int lineNo)
    {
        if (ts.mode == TimerMode::All) {
            if (startsWith(t, "rank")) {
                // "rank  0: 12.34"
                const size_t colon = t.find(':');
                int rank = -1;
                double v = 0.0;
                if (colon == sv::npos || !toInt(t.substr(4, colon - 4), rank) || rank < 0
                    || !toDouble(t.substr(colon + 1), v)) {
                    warn(lineNo, "malformed per-rank timer value (truncated?); skipped");
                    return;
                }
                if (ts.allName.empty()) {
                    warn(lineNo, "per-rank timer value without a timer name; skipped");
                    return;
                }
                TimerRecord r;
                r.rank = rank;
                r.minMs = r.maxMs = v;
                r.stat = TimerStat::PerRank;
                r.line = lineNo;
                addTimer(ts.allName, r);
                return;
            }
            if (t.back() == ':' && t.find(':') == t.size() - 1 && t.size() > 1) {
                ts.allName = std::string(trim(t.substr(0, t.size() - 1)));
                return;
            }
            warn(lineNo, "malformed entry in a 'times across ranks' block (truncated?); skipped");
            ts.allName.clear();
            return;
        }
        // "name ....................: (min, max)" or "name ....: max"
        const size_t colon = t.rfind(':');
        if (colon == sv::npos) {
            warn(lineNo, "malformed timer entry (truncated?); skipped");
            return;
        }
        sv name = t.substr(0, colon);
        while (!name.empty() && (name.back() == '.' || isSpace(name.back())))
            name.remove_suffix(1);
        const sv value = trim(t.substr(colon + 1));
        TimerRecord r;
        r.line = lineNo;
        bool ok = !name.empty() && !value.empty();
        if (ok && value.front() == '(') {
            const size_t comma = value.find(',');
            ok = value.back() == ')' && comma != sv::npos
                && toDouble(value.substr(1, comma - 1), r.minMs)
                && toDouble(value.substr(comma + 1, value.size() - comma - 2), r.maxMs);
            r.stat = TimerStat::MinMax;
        } else if (ok) {
            ok = toDouble(value, r.maxMs);
            r.minMs = r.maxMs;
            r.stat = TimerStat::MaxOnly;
        }
        if (!ok) {
            warn(lineNo, "malformed timer entry (truncated?); skipped");
            return;
        }
        addTimer(std::string(name), r);
    }

    // " iteration       10/     200 | consumed samples: ... |"
    bool parseIteration(sv c, const std::string& timestamp, int lineNo)
    {
        size_t pos = 0;
        while ((pos = c.find("iteration", pos)) != sv::npos) {
            sv after = c.substr(pos + 9);
            pos += 9;
            if (after.empty() || !isSpace(after.front()))
                continue;
            after = ltrim(after);
            long long n = 0;
            const size_t d = takeDigits(after, n);
            if (d == 0 || d >= after.size() || after[d] != '/')
                continue;
            // The signature "iteration N/" is there: from here on, a defect
            // means a damaged iteration line.
            lastIteration_ = static_cast<int>(n);
            sv s = ltrim(after.substr(d + 1));
            long long m = 0;
            const size_t dm = takeDigits(s, m);
            s = ltrim(s.substr(dm));
            if (dm == 0 || s.empty() || s.front() != '|' || rtrim(s).back() != '|') {
                warn(lineNo, "truncated iteration line (iteration " + std::to_string(n) + "); skipped");
                return true;
            }
            const Fields f = splitFields(s.substr(1));
            IterationRecord rec;
            rec.iteration = static_cast<int>(n);
            rec.totalIterations = static_cast<int>(m);
            rec.timestamp = timestamp;
            rec.line = lineNo;
            bool haveElapsed = false;
            for (const auto& [key, value] : f.kv) {
                rec.fields[key] = value;
                double v = 0.0;
                if (key == "elapsed time per iteration (ms)") {
                    haveElapsed = toDouble(value, v) && v >= 0.0;
                    rec.elapsedMs = v;
                } else if (key == "throughput per GPU (TFLOP/s/GPU)" && toDouble(value, v)) {
                    rec.tflopsPerGpu = v;
                    rec.tflopsCountRecompute = false;
                } else if (key == "TFLOPs" && toDouble(value, v)) {
                    rec.tflopsPerGpu = v;
                    rec.tflopsCountRecompute = true;  // Megatron-DeepSpeed counts recomputation
                } else if (key == "lm loss" && toDouble(value, v)) {
                    rec.lmLoss = v;
                } else if (key == "consumed samples") {
                    long long cs = 0;
                    if (toInt(value, cs))
                        rec.consumedSamples = cs;
                } else if (key == "global batch size") {
                    int g = 0;
                    if (toInt(value, g))
                        rec.globalBatchSize = g;
                } else if (key == "number of skipped iterations") {
                    toInt(value, rec.skippedIterations);
                } else if (key == "number of nan iterations") {
                    toInt(value, rec.nanIterations);
                }
            }
            if (!haveElapsed) {
                warn(lineNo, "iteration line " + std::to_string(n)
                        + " has no readable 'elapsed time per iteration (ms)'; skipped");
                return true;
            }
            rec.warmup = rec.iteration == 1 || rec.skippedIterations > 0 || rec.nanIterations > 0;
            log_.iterations.push_back(std::move(rec));
            ++records_;
            return true;
        }
        return false;
    }

    // "[Rank 4] (after 1 iterations) memory (MB) | allocated: ... | max allocated: ... | reserved: ... | max reserved: ..."
    bool parseMemory(sv c, int lineNo)
    {
        const size_t at = c.find("memory (MB)");
        if (at == sv::npos)
            return false;
        MemoryRecord rec;
        rec.line = lineNo;
        sv head = trim(c.substr(0, at));
        const size_t rk = head.find("[Rank ");
        if (rk != sv::npos) {
            const size_t close = head.find(']', rk);
            int r = -1;
            if (close == sv::npos || !toInt(head.substr(rk + 6, close - rk - 6), r) || r < 0) {
                warn(lineNo, "memory line with an unreadable rank; skipped");
                return true;
            }
            rec.rank = r;
            head = trim(head.substr(close + 1));
        }
        if (!head.empty() && head.front() == '(')
            head.remove_prefix(1);
        if (!head.empty() && head.back() == ')')
            head.remove_suffix(1);
        rec.when = std::string(trim(head));
        // iteration number: "after N iterations" or "... for iteration N"
        for (const sv key : {sv("after "), sv("iteration ")}) {
            const size_t k = head.find(key);
            if (k == sv::npos)
                continue;
            long long n = 0;
            if (takeDigits(head.substr(k + key.size()), n) > 0) {
                rec.iteration = static_cast<int>(n);
                break;
            }
        }
        const Fields f = splitFields(c.substr(at + 11));
        bool have[4] = {false, false, false, false};
        double* dst[4] = {&rec.allocatedMiB, &rec.maxAllocatedMiB, &rec.reservedMiB, &rec.maxReservedMiB};
        static const sv names[4] = {"allocated", "max allocated", "reserved", "max reserved"};
        for (const auto& [key, value] : f.kv) {
            for (int i = 0; i < 4; ++i)
                if (key == names[i])
                    have[i] = toDouble(value, *dst[i]);
            double v = 0.0;
            if (key == "total device memory used" && toDouble(value, v))
                rec.totalDeviceUsedMiB = v;
        }
        for (int i = 0; i < 4; ++i) {
            if (!have[i]) {
                warn(lineNo, "memory line" + (rec.rank >= 0 ? " of rank " + std::to_string(rec.rank) : std::string())
                        + " lacks a readable '" + std::string(names[i]) + "' (truncated?); skipped");
                return true;
            }
        }
        log_.memory.push_back(std::move(rec));
        ++records_;
        return true;
    }

    // "time (ms) | forward-compute: 58.16 | backward-compute: 42.66 | ..."
    void parseLegacyTimers(sv t, int lineNo)
    {
        sv rest = ltrim(t.substr(9));
        if (rest.empty() || rest.front() != '|') {
            warn(lineNo, "malformed one-line timer line; skipped");
            return;
        }
        const Fields f = splitFields(rest.substr(1));
        bool damaged = !f.bad.empty();
        for (const auto& [key, value] : f.kv) {
            TimerRecord r;
            r.stat = TimerStat::Legacy;
            r.line = lineNo;
            if (!toDouble(value, r.maxMs)) {
                damaged = true;
                continue;
            }
            r.minMs = r.maxMs;
            addTimer(key, r);
        }
        if (damaged)
            warn(lineNo, "one-line timer line has unreadable fields (truncated?); those fields skipped");
    }

    const std::string& text_;
    MegatronLog log_;
    std::map<std::string, TimerState> timerStates_;
    int lastIteration_ = -1;
    size_t records_ = 0;
    size_t suppressed_ = 0;
};

}  // namespace

MegatronLogSummary MegatronLog::summary(int skipWarmup) const
{
    MegatronLogSummary s;
    std::vector<double> used;
    for (size_t i = 0; i < iterations.size(); ++i) {
        const IterationRecord& it = iterations[i];
        if (static_cast<long long>(i) < skipWarmup || it.warmup) {
            ++s.iterationsExcluded;
            continue;
        }
        used.push_back(it.elapsedMs);
    }
    s.iterationsUsed = static_cast<int>(used.size());
    if (!used.empty()) {
        std::sort(used.begin(), used.end());
        const size_t n = used.size();
        s.medianIterationMs = n % 2 == 1 ? used[n / 2] : 0.5 * (used[n / 2 - 1] + used[n / 2]);
    }
    for (const MemoryRecord& m : memory) {
        if (m.rank < 0)
            continue;
        auto [a, newA] = s.peakAllocatedMiB.try_emplace(m.rank, m.maxAllocatedMiB);
        if (!newA)
            a->second = std::max(a->second, m.maxAllocatedMiB);
        auto [r, newR] = s.peakReservedMiB.try_emplace(m.rank, m.maxReservedMiB);
        if (!newR)
            r->second = std::max(r->second, m.maxReservedMiB);
    }
    return s;
}

MegatronLog MegatronLogParser::parse(const std::string& text, const std::string& file)
{
    return Parser(text, file).run();
}

MegatronLog MegatronLogParser::read(const std::string& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError(file, "", "cannot open the Megatron-LM log");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad())
        throw InputError(file, "", "cannot read the Megatron-LM log");
    return parse(buf.str(), file);
}

std::vector<double> MegatronLogParser::stagePeakMiB(const MegatronLog& log, const RankLayout& layout)
{
    std::map<int, double> peak;  // rank -> max "max allocated"
    for (const MemoryRecord& m : log.memory) {
        if (m.rank < 0)
            continue;
        if (m.rank >= layout.worldSize())
            throw InputError(log.file, "line " + std::to_string(m.line),
                             "rank " + std::to_string(m.rank) + " lies outside the layout's "
                                 + std::to_string(layout.worldSize()) + " ranks (TP " + std::to_string(layout.tp())
                                 + " x PP " + std::to_string(layout.pp()) + " x DP " + std::to_string(layout.dp())
                                 + " x CP " + std::to_string(layout.cp()) + "); the layout does not match the log");
        auto [it, fresh] = peak.try_emplace(m.rank, m.maxAllocatedMiB);
        if (!fresh)
            it->second = std::max(it->second, m.maxAllocatedMiB);
    }
    std::vector<double> stages(static_cast<size_t>(layout.pp()), std::numeric_limits<double>::quiet_NaN());
    for (int s = 0; s < layout.pp(); ++s) {
        for (const int r : layout.ranksOfStage(s)) {
            const auto it = peak.find(r);
            if (it == peak.end())
                continue;
            double& v = stages[static_cast<size_t>(s)];
            v = std::isnan(v) ? it->second : std::max(v, it->second);
        }
    }
    return stages;
}

}  // namespace memx
