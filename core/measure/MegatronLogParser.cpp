// Over 600 lines: one parser over every line form of the logs it reads (iterations, memory, timers, dumps, starts),
// streamed.
#include "measure/MegatronLogParser.h"

#include "io/InputError.h"
#include "io/InputFile.h"
#include "measure/LogLinePrefixes.h"
#include "io/LogText.h"
#include "measure/MegatronLogLine.h"
#include "megatron/RankLayout.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <new>
#include <string_view>
#include <utility>

namespace memx {

namespace {

using sv = std::string_view;
using T = LogText;
using Kind = MegatronLogLine::Kind;

constexpr size_t kMaxWarnings = 100;
constexpr size_t kMaxWrappedLines = 8;  // continuation lines joined to a wrapped record
constexpr size_t kReadBytes = 1u << 20;  // a log is read this much at a time

enum class TimerMode { None, MinMax, Max, All };

struct TimerState {
    TimerMode mode = TimerMode::None;
    std::string allName;  // current timer of a "times across ranks" block
};

// A physical line, or one '\r'-separated piece of it (a redrawn progress bar).
struct Line {
    int number = 0;
    sv raw;
};

bool hasBinary(sv s)
{
    return std::any_of(s.begin(), s.end(), [](char ch) {
        const auto u = static_cast<unsigned char>(ch);
        return (u < 0x20 && u != '\t') || u == 0x7f;
    });
}

// Reads a log a piece at a time (feed), keeping only the lines not yet
// parsed: a record may continue on up to kMaxWrappedLines later lines, so a
// line is parsed once that many lines follow it, or at the end (finish).
class Parser {
public:
    Parser(const std::string& file, MegatronLogParser::Keep keep) : peaksOnly_(keep == MegatronLogParser::Keep::Peaks)
    {
        log_.file = file;
    }

    void feed(sv data)
    {
        buf_.append(data);
        parseBuffered(false);
    }

    MegatronLog finish()
    {
        parseBuffered(true);
        collectPeaks();
        log_.lineCount = nextNumber_ - 1;
        setIntervals();
        for (const auto& [reason, more] : repeats_)
            if (more > 0)
                log_.warnings.push_back(fileName() + ": " + std::to_string(more) + " more line(s) the same: " + reason);
        if (suppressed_ > 0)
            log_.warnings.push_back(fileName() + ": " + std::to_string(suppressed_) + " more warnings not shown");
        if (records_ == 0 && log_.arguments.empty()) {
            std::string reason = "no Megatron-LM iteration, memory or timer line found";
            if (!log_.warnings.empty())
                reason += " (" + std::to_string(log_.warnings.size())
                    + " malformed line(s); first: " + log_.warnings.front() + ")";
            throw InputError(log_.file, "", reason);
        }
        return std::move(log_);
    }

private:
    std::string fileName() const { return log_.file.empty() ? std::string("<input>") : log_.file; }

    void warn(int lineNo, const std::string& what)
    {
        // The same reason on line after line is said once, with a count at the end.
        if (const auto [it, fresh] = repeats_.try_emplace(reasonOf(what), 0); !fresh) {
            ++it->second;
            return;
        }
        if (log_.warnings.size() >= kMaxWarnings) {
            ++suppressed_;
            return;
        }
        log_.warnings.push_back(fileName() + ":" + std::to_string(lineNo) + ": " + what);
    }

    // Splits the whole lines of buf_ (at the end: all of it) into lines_,
    // parses those that have enough lines after them, and keeps in buf_ only
    // the text from the first line left unparsed.
    void parseBuffered(bool atEnd)
    {
        const sv all(buf_);
        size_t end = all.size();
        if (!atEnd) {
            const size_t nl = all.rfind('\n');
            if (nl == sv::npos)
                return;
            end = nl + 1;
        }
        lines_.clear();
        const int after = splitLines(all.substr(0, end), nextNumber_);
        const size_t lookahead = kMaxWrappedLines + 1;
        const size_t limit = atEnd ? lines_.size() : lines_.size() > lookahead ? lines_.size() - lookahead : 0;
        size_t i = 0;
        while (i < limit)
            i += parseLine(i);
        if (i >= lines_.size()) {
            buf_.erase(0, end);
            nextNumber_ = after;
        } else {  // from the line (or the '\r' piece of one) not parsed yet, with its number
            nextNumber_ = lines_[i].number;
            buf_.erase(0, static_cast<size_t>(lines_[i].raw.data() - buf_.data()));
        }
        lines_.clear();
    }

    // Appends the lines of `text` to lines_, numbered from `number`; returns
    // the number after the last.
    int splitLines(sv text, int number)
    {
        sv rest = text;
        while (!rest.empty()) {
            const size_t nl = rest.find('\n');
            sv line = rest.substr(0, nl);
            rest = nl == sv::npos ? sv() : rest.substr(nl + 1);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            bool any = false;
            for (size_t cr; (cr = line.find('\r')) != sv::npos; line = line.substr(cr + 1))
                if (cr > 0) {
                    lines_.push_back({number, line.substr(0, cr)});
                    any = true;
                }
            if (!line.empty() || !any)
                lines_.push_back({number, line});
            ++number;
        }
        return number;
    }

    // Parses lines_[i] (and the lines a wrapped record continues on); returns the lines used.
    size_t parseLine(size_t i)
    {
        const int lineNo = lines_[i].number;
        const StrippedLogLine st = LogLinePrefixes::strip(lines_[i].raw);
        const sv c = st.content;
        const sv t = T::trim(c);
        TimerState& ts = timerStates_[st.source];
        if (t.empty()) {
            ts.mode = TimerMode::None;
            return 1;
        }
        if (parseDumpLine(st, t, lineNo))
            return 1;
        if (parseTimerHeader(t, ts))
            return 1;
        if (const size_t used = parseStep(i, st)) {
            ts.mode = TimerMode::None;
            return used;
        }
        // Timer entries are indented; a block ends at the first other line
        // of the same stream. Memory lines of other ranks may interleave with
        // a timer block in unprefixed logs: they do not end the block.
        if (ts.mode != TimerMode::None && T::isSpace(c.front()) && t.find("memory (") == sv::npos) {
            parseTimerEntry(t, ts, lineNo);
            return 1;
        }
        if (const size_t used = parseMemory(i, st))
            return used;
        ts.mode = TimerMode::None;
        if (T::startsWith(t, "time (ms)")) {
            parseLegacyTimers(t, lineNo);
        } else if (MegatronLogLine::marksStart(t)) {
            markStart(lineNo);
        } else if (const auto v = MegatronLogLine::paddedVocab(t, lineNo)) {
            log_.paddedVocab = *v;
        } else if (hasBinary(c)) {
            warn(lineNo, "line holds binary or control bytes; ignored");
        }
        return 1;
    }

    void markStart(int lineNo)
    {
        if (!pendingStart_)
            log_.startLines.push_back(lineNo);
        pendingStart_ = true;
    }

    // Argument banners, and argument lines while a dump is open (from the
    // stream that printed its banner).
    bool parseDumpLine(const StrippedLogLine& st, sv t, int lineNo)
    {
        if (MegatronArguments::isStartBanner(t)) {
            log_.arguments.emplace_back(log_.file, lineNo);
            dumpOpen_ = true;
            dumpSource_ = st.source;
            markStart(lineNo);
            return true;
        }
        if (MegatronArguments::isEndBanner(t)) {
            if (dumpOpen_)
                log_.arguments.back().finish(lineNo);
            dumpOpen_ = false;
            return true;
        }
        if (dumpOpen_ && MegatronLogLine::beginsRecord(t))
            dumpOpen_ = false;  // a dump cut without its end banner: it stays incomplete
        return dumpOpen_ && st.source == dumpSource_ && log_.arguments.back().addLine(t, lineNo);
    }

    // The content of lines_[i] when it can continue a wrapped record printed
    // on stream `source`; empty when it cannot.
    std::string continuation(size_t i, const std::string& source) const
    {
        const StrippedLogLine st = LogLinePrefixes::strip(lines_[i].raw);
        if (st.source != source || T::trim(st.content).empty() || MegatronLogLine::beginsRecord(st.content))
            return {};
        return st.content;
    }

    // Joins the lines after lines_[i] to its content (as they are, then with a
    // space between) until `read` makes a record of it.
    template <typename Record, typename Read>
    Kind joinWrapped(size_t i, const StrippedLogLine& st, Record& rec, Read read, size_t& used) const
    {
        std::string tight = st.content, spaced = st.content;
        for (size_t k = 1; k <= kMaxWrappedLines && i + k < lines_.size(); ++k) {
            const std::string next = continuation(i + k, st.source);
            if (next.empty())
                break;
            tight += next;
            spaced += " " + next;
            for (const std::string* joined : {&tight, &spaced}) {
                Record r;
                std::string problem;
                if (read(*joined, r, problem) == Kind::Record) {
                    rec = std::move(r);
                    used = k + 1;
                    return Kind::Record;
                }
            }
        }
        return Kind::Damaged;
    }

    // An iteration line (Megatron) or a NeMo step line; returns the lines used, 0 if neither.
    size_t parseStep(size_t i, const StrippedLogLine& st)
    {
        IterationRecord rec;
        std::string problem;
        Kind kind = MegatronLogLine::nemoStep(st.content, rec, problem);
        if (kind == Kind::None)
            kind = MegatronLogLine::iteration(st.content, rec, problem);
        if (kind == Kind::None)
            return 0;
        if (rec.iteration > 0)
            lastIteration_ = rec.iteration;
        size_t used = 1;
        if (kind == Kind::Damaged && !rec.nemo)
            kind = joinWrapped(i, st, rec, MegatronLogLine::iteration, used);
        if (kind == Kind::Damaged) {
            warn(lines_[i].number, problem);
            return used;
        }
        rec.timestamp = st.timestamp;
        rec.line = lines_[i].number;
        addIteration(std::move(rec));
        return used;
    }

    void addIteration(IterationRecord rec)
    {
        ++records_;
        if (!log_.iterations.empty() && !pendingStart_) {
            const IterationRecord& prev = log_.iterations.back();
            if (rec.iteration == prev.iteration && rec.elapsedMs == prev.elapsedMs)
                return;  // a progress bar drawn again
            if (rec.iteration <= prev.iteration)
                markStart(rec.line);  // a restart that printed none of the start lines
        }
        if (pendingStart_) {
            rec.firstAfterStart = true;
            if (!log_.iterations.empty())
                ++run_;
            pendingStart_ = false;
        }
        rec.run = run_;
        log_.iterations.push_back(std::move(rec));
    }

    size_t parseMemory(size_t i, const StrippedLogLine& st)
    {
        MemoryRecord rec;
        std::string problem;
        Kind kind = MegatronLogLine::memory(st.content, rec, problem);
        if (kind == Kind::None)
            return 0;
        size_t used = 1;
        if (kind == Kind::Damaged)
            kind = joinWrapped(i, st, rec, MegatronLogLine::memory, used);
        if (kind == Kind::Damaged) {
            warn(lines_[i].number, problem);
            return used;
        }
        rec.line = lines_[i].number;
        keepMemory(std::move(rec));
        ++records_;
        return used;
    }

    // Keep::Peaks: of each rank's memory lines (and the rank-less ones) only
    // those holding its largest "max allocated" and its largest "max
    // reserved", the first of equals (collectPeaks puts them in log order);
    // Keep::All: every line.
    void keepMemory(MemoryRecord rec)
    {
        if (!peaksOnly_) {
            log_.memory.push_back(std::move(rec));
            return;
        }
        auto [it, fresh] = peakOf_.try_emplace(rec.rank);
        Peaks& p = it->second;
        if (fresh) {
            p.allocated = rec;
            p.reserved = std::move(rec);
            return;
        }
        if (rec.maxAllocatedMiB > p.allocated.maxAllocatedMiB)
            p.allocated = rec;
        if (rec.maxReservedMiB > p.reserved.maxReservedMiB)
            p.reserved = std::move(rec);
    }

    void collectPeaks()
    {
        for (auto& [rank, p] : peakOf_) {
            const bool one = p.reserved.line == p.allocated.line;
            log_.memory.push_back(std::move(p.allocated));
            if (!one)
                log_.memory.push_back(std::move(p.reserved));
        }
        std::stable_sort(log_.memory.begin(), log_.memory.end(),
                         [](const MemoryRecord& a, const MemoryRecord& b) { return a.line < b.line; });
        peakOf_.clear();
    }

    // Iterations each line averages over: the dump's log_interval, else the
    // gap to the neighbouring line of the same run; NeMo lines are per step.
    void setIntervals()
    {
        int logInterval = 0;
        for (const MegatronArguments& a : log_.arguments) {
            try {
                logInterval = static_cast<int>(a.integer("log_interval").value_or(0));
            } catch (const InputError&) {
                logInterval = 0;
            }
            if (logInterval > 0)
                break;
        }
        auto& its = log_.iterations;
        for (size_t j = 0; j < its.size(); ++j) {
            IterationRecord& r = its[j];
            int gap = 0;
            if (j > 0 && its[j - 1].run == r.run)
                gap = r.iteration - its[j - 1].iteration;
            else if (j + 1 < its.size() && its[j + 1].run == r.run)
                gap = its[j + 1].iteration - r.iteration;
            r.interval = r.nemo ? 1 : logInterval > 0 ? logInterval : std::max(gap, 1);
        }
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
        if (!peaksOnly_)
            log_.timers[name].push_back(r);
        ++records_;
    }

    // "rank  0: 12.34" and "  name:" lines of a "times across ranks" block.
    void parsePerRankEntry(sv t, TimerState& ts, int lineNo)
    {
        if (T::startsWith(t, "rank")) {
            const size_t colon = t.find(':');
            int rank = -1;
            double v = 0.0;
            if (colon == sv::npos || !T::toInt(t.substr(4, colon - 4), rank) || rank < 0
                || !T::toDouble(t.substr(colon + 1), v)) {
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
            ts.allName = std::string(T::trim(t.substr(0, t.size() - 1)));
            return;
        }
        warn(lineNo, "malformed entry in a 'times across ranks' block (truncated?); skipped");
        ts.allName.clear();
    }

    void parseTimerEntry(sv t, TimerState& ts, int lineNo)
    {
        if (ts.mode == TimerMode::All) {
            parsePerRankEntry(t, ts, lineNo);
            return;
        }
        // "name ....................: (min, max)" or "name ....: max"
        const size_t colon = t.rfind(':');
        if (colon == sv::npos) {
            warn(lineNo, "malformed timer entry (truncated?); skipped");
            return;
        }
        sv name = t.substr(0, colon);
        while (!name.empty() && (name.back() == '.' || T::isSpace(name.back())))
            name.remove_suffix(1);
        const sv value = T::trim(t.substr(colon + 1));
        TimerRecord r;
        r.line = lineNo;
        bool ok = !name.empty() && !value.empty();
        if (ok && value.front() == '(') {
            const size_t comma = value.find(',');
            ok = value.back() == ')' && comma != sv::npos && T::toDouble(value.substr(1, comma - 1), r.minMs)
                && T::toDouble(value.substr(comma + 1, value.size() - comma - 2), r.maxMs);
            r.stat = TimerStat::MinMax;
        } else if (ok) {
            ok = T::toDouble(value, r.maxMs);
            r.minMs = r.maxMs;
            r.stat = TimerStat::MaxOnly;
        }
        if (!ok) {
            warn(lineNo, "malformed timer entry (truncated?); skipped");
            return;
        }
        addTimer(std::string(name), r);
    }

    // "time (ms) | forward-compute: 58.16 | backward-compute: 42.66 | ..."
    void parseLegacyTimers(sv t, int lineNo)
    {
        sv rest = T::ltrim(t.substr(9));
        if (rest.empty() || rest.front() != '|') {
            warn(lineNo, "malformed one-line timer line; skipped");
            return;
        }
        const MegatronLogLine::Fields f = MegatronLogLine::fields(rest.substr(1));
        bool damaged = !f.bad.empty();
        for (const auto& [key, value] : f.kv) {
            TimerRecord r;
            r.stat = TimerStat::Legacy;
            r.line = lineNo;
            if (!T::toDouble(value, r.maxMs)) {
                damaged = true;
                continue;
            }
            r.minMs = r.maxMs;
            addTimer(key, r);
        }
        if (damaged)
            warn(lineNo, "one-line timer line has unreadable fields (truncated?); those fields skipped");
    }

    std::string buf_;  // text not parsed yet, from the start of line nextNumber_ (or a '\r' piece of it)
    int nextNumber_ = 1;
    std::vector<Line> lines_;  // buf_'s lines while it is parsed
    MegatronLog log_;
    std::map<std::string, TimerState> timerStates_;
    bool dumpOpen_ = false;
    std::string dumpSource_;
    bool pendingStart_ = false;
    int run_ = 0;
    int lastIteration_ = -1;
    size_t records_ = 0;
    bool peaksOnly_ = false;
    struct Peaks {
        MemoryRecord allocated, reserved;
    };
    std::map<int, Peaks> peakOf_;  // Keep::Peaks: rank (-1: none) -> its peak records
    size_t suppressed_ = 0;
    std::map<std::string, size_t> repeats_;  // reason (line numbers left out) -> later lines with it

    // A warning without its iteration or line numbers, so that one cause
    // on many lines is one reason.
    static std::string reasonOf(const std::string& what)
    {
        std::string out;
        bool digits = false;
        for (char c : what) {
            const bool d = c >= '0' && c <= '9';
            if (d && !digits)
                out += '#';
            else if (!d)
                out += c;
            digits = d;
        }
        return out;
    }
};

}  // namespace

MegatronLog MegatronLogParser::parse(const std::string& text, const std::string& file, Keep keep)
{
    Parser parser(file, keep);
    parser.feed(text);
    return parser.finish();
}

MegatronLog MegatronLogParser::read(const std::string& file, Keep keep)
{
    try {
        Parser parser(file, keep);
        InputFile::readInPieces(
            file, InputFile::kMaxLogBytes, "a Megatron-LM log", [&](sv piece) { parser.feed(piece); }, kReadBytes);
        return parser.finish();
    } catch (const std::bad_alloc&) {
        throw InputError(file, "", "not enough memory for what this Megatron-LM log holds");
    }
}

std::vector<double> MegatronLogParser::stagePeakMiB(const MegatronLog& log, const RankLayout& layout)
{
    const double none = std::numeric_limits<double>::quiet_NaN();
    std::map<int, double> peak;  // rank -> max "max allocated"
    double rankless = none;
    for (const MemoryRecord& m : log.memory) {
        if (m.rank < 0) {
            rankless = std::isnan(rankless) ? m.maxAllocatedMiB : std::max(rankless, m.maxAllocatedMiB);
            continue;
        }
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
    std::vector<double> stages(static_cast<size_t>(layout.pp()), none);
    for (int s = 0; s < layout.pp(); ++s) {
        for (const int r : layout.ranksOfStage(s)) {
            const auto it = peak.find(r);
            if (it == peak.end())
                continue;
            double& v = stages[static_cast<size_t>(s)];
            v = std::isnan(v) ? it->second : std::max(v, it->second);
        }
    }
    if (std::isnan(stages.front()))
        stages.front() = rankless;
    return stages;
}

}  // namespace memx
