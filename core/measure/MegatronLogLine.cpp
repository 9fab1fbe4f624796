#include "measure/MegatronLogLine.h"

#include "io/Ranges.h"

#include "io/LogText.h"

#include <array>
#include <cmath>

namespace memx {

namespace {

using sv = std::string_view;
using T = LogText;
using Kind = MegatronLogLine::Kind;

// Bytes / 1e9 (Megatron-Bridge's "gigabytes") in MiB (bytes / 2^20).
constexpr double kMiBPerGB = 1e9 / 1048576.0;

}  // namespace

MegatronLogLine::Fields MegatronLogLine::fields(std::string_view rest)
{
    Fields f;
    while (!rest.empty()) {
        const size_t bar = rest.find('|');
        const sv piece = T::trim(rest.substr(0, bar));
        rest = bar == sv::npos ? sv() : rest.substr(bar + 1);
        if (piece.empty())
            continue;
        const size_t colon = piece.find(':');
        const sv key = colon == sv::npos ? sv() : T::trim(piece.substr(0, colon));
        if (key.empty()) {
            f.bad.emplace_back(piece);
            continue;
        }
        f.kv.emplace_back(std::string(key), std::string(T::trim(piece.substr(colon + 1))));
    }
    return f;
}

namespace {

// Position just past "iteration N/" (whitespace allowed after "iteration"), and N; npos if none.
size_t findIterationSignature(sv c, long long& n)
{
    size_t pos = 0;
    while ((pos = c.find("iteration", pos)) != sv::npos) {
        pos += 9;
        sv after = c.substr(pos);
        if (after.empty() || !T::isSpace(after.front()))
            continue;
        const sv digits = T::ltrim(after);
        const size_t d = T::takeDigits(digits, n);
        if (d == 0 || d >= digits.size() || digits[d] != '/')
            continue;
        return c.size() - digits.size() + d + 1;
    }
    return sv::npos;
}

// "7,305.2" or "12,345": digits grouped by commas in threes.
bool hasThousandsSeparator(const std::string& value)
{
    const std::string v(T::trim(value));
    const std::size_t dot = v.find('.');
    const std::string whole = v.substr(0, dot);
    if (whole.find(',') == std::string::npos)
        return false;
    std::size_t group = 0;
    for (std::size_t i = whole.size(); i-- > 0;) {
        if (whole[i] == ',') {
            if (group != 3)
                return false;
            group = 0;
        } else if (whole[i] >= '0' && whole[i] <= '9') {
            ++group;
        } else {
            return false;
        }
    }
    return group >= 1 && group <= 3;
}

void readIterationField(const std::string& key, const std::string& value, IterationRecord& rec, bool& haveElapsed,
                        std::string& elapsedProblem)
{
    double v = 0.0;
    if (key == "elapsed time per iteration (ms)") {
        haveElapsed = T::toDouble(value, v);
        if (haveElapsed)
            elapsedProblem = ranges::timeMs.whyOutside(v, false, false);
        else if (hasThousandsSeparator(value))
            elapsedProblem = "has thousands separators (\"" + value
                + "\"), which Megatron-LM never prints: the log was reformatted (a locale or a tool); remove "
                  "the separators and import it again";
        haveElapsed = haveElapsed && elapsedProblem.empty();
        rec.elapsedMs = v;
    } else if (key == "throughput per GPU (TFLOP/s/GPU)" && T::toDouble(value, v)) {
        rec.tflopsPerGpu = v;
        rec.tflopsCountRecompute = false;
    } else if (key == "TFLOPs" && T::toDouble(value, v)) {
        rec.tflopsPerGpu = v;
        rec.tflopsCountRecompute = true;  // Megatron-DeepSpeed counts recomputation
    } else if (key == "samples per second" && T::toDouble(value, v)) {
        rec.samplesPerSecond = v;
    } else if (key == "lm loss" && T::toDouble(value, v)) {
        rec.lmLoss = v;
    } else if (key == "consumed samples") {
        long long cs = 0;
        if (T::toInt(value, cs))
            rec.consumedSamples = cs;
    } else if (key == "global batch size") {
        int g = 0;
        if (T::toInt(value, g))
            rec.globalBatchSize = g;
    } else if (key == "number of skipped iterations") {
        T::toInt(value, rec.skippedIterations);
    } else if (key == "number of nan iterations") {
        T::toInt(value, rec.nanIterations);
    }
}

// The number after `key` and '=' or ':' (NeMo progress fields); "" when absent or empty.
sv nemoValue(sv c, sv key)
{
    const size_t at = c.find(key);
    if (at == sv::npos)
        return {};
    sv rest = T::ltrim(c.substr(at + key.size()));
    if (rest.empty() || (rest.front() != '=' && rest.front() != ':'))
        return {};
    rest = T::ltrim(rest.substr(1));
    size_t end = 0;
    while (end < rest.size() && rest[end] != ',' && rest[end] != ']' && rest[end] != '|' && !T::isSpace(rest[end]))
        ++end;
    return rest.substr(0, end);
}

// The step count of Lightning's bar, "n/total" after "Epoch E:" (total may be "?").
bool barPosition(sv c, long long& n, long long& total)
{
    const size_t epoch = c.find("Epoch ");
    size_t pos = epoch == sv::npos ? sv::npos : c.find(':', epoch);
    while (pos != sv::npos && pos < c.size()) {
        const size_t slash = c.find('/', pos);
        if (slash == sv::npos)
            return false;
        size_t start = slash;
        while (start > 0 && T::isDigit(c[start - 1]))
            --start;
        if (start < slash && T::toInt(c.substr(start, slash - start), n)) {
            total = 0;
            T::takeDigits(c.substr(slash + 1), total);
            return true;
        }
        pos = slash + 1;
    }
    return false;
}

}  // namespace

Kind MegatronLogLine::iteration(std::string_view c, IterationRecord& rec, std::string& problem)
{
    long long n = 0;
    const size_t at = findIterationSignature(c, n);
    if (at == sv::npos)
        return Kind::None;
    // The signature "iteration N/" is there: from here on, a defect means a
    // damaged iteration line.
    rec.iteration = static_cast<int>(n);
    sv s = T::ltrim(c.substr(at));
    long long m = 0;
    const size_t dm = T::takeDigits(s, m);
    s = T::ltrim(s.substr(dm));
    if (dm == 0 || s.empty() || s.front() != '|' || T::rtrim(s).back() != '|') {
        problem = "truncated iteration line (iteration " + std::to_string(n) + "); skipped";
        return Kind::Damaged;
    }
    rec.totalIterations = static_cast<int>(m);
    bool haveElapsed = false;
    std::string elapsedProblem;
    for (const auto& [key, value] : fields(s.substr(1)).kv) {
        readIterationField(key, value, rec, haveElapsed, elapsedProblem);
    }
    if (!elapsedProblem.empty()) {
        problem
            = "iteration line " + std::to_string(n) + ": elapsed time per iteration: " + elapsedProblem + "; skipped";
        return Kind::Damaged;
    }
    if (!haveElapsed) {
        problem = "iteration line " + std::to_string(n) + " has no readable 'elapsed time per iteration (ms)'; skipped";
        return Kind::Damaged;
    }
    return Kind::Record;
}

Kind MegatronLogLine::nemoStep(std::string_view c, IterationRecord& rec, std::string& problem)
{
    if (c.find("train_step_timing in s") == sv::npos)
        return Kind::None;
    rec.nemo = true;
    double seconds = 0.0, step = 0.0, v = 0.0;
    if (!T::toDouble(nemoValue(c, "train_step_timing in s"), seconds) || seconds < 0.0) {
        problem = "NeMo progress line without a readable 'train_step_timing in s'; skipped";
        return Kind::Damaged;
    }
    if (const std::string why = ranges::timeMs.whyOutside(seconds * 1000.0, false, false); !why.empty()) {
        problem = "NeMo progress line: train_step_timing: " + why + "; skipped";
        return Kind::Damaged;
    }
    rec.elapsedMs = seconds * 1000.0;
    long long n = 0, total = 0;
    const size_t at = findIterationSignature(c, n);
    if (T::toDouble(nemoValue(c, "global_step"), step) && step >= 0.0) {
        rec.iteration = static_cast<int>(std::llround(step)) + 1;
    } else if (at != sv::npos) {
        rec.iteration = static_cast<int>(n) + 1;  // NeMo 2 prints the 0-based step
    } else if (barPosition(c, n, total)) {
        rec.iteration = static_cast<int>(n);
    } else {
        problem = "NeMo progress line without global_step or a step count; skipped";
        return Kind::Damaged;
    }
    if (at != sv::npos)
        T::takeDigits(T::ltrim(c.substr(at)), total);
    else
        barPosition(c, n, total);
    rec.totalIterations = static_cast<int>(total);
    if (T::toDouble(nemoValue(c, "reduced_train_loss"), v))
        rec.lmLoss = v;
    if (T::toDouble(nemoValue(c, "consumed_samples"), v))
        rec.consumedSamples = std::llround(v);
    if (T::toDouble(nemoValue(c, "global_batch_size"), v))
        rec.globalBatchSize = static_cast<int>(std::lround(v));
    return Kind::Record;
}

Kind MegatronLogLine::memory(std::string_view c, MemoryRecord& rec, std::string& problem)
{
    size_t at = c.find("memory (MB)");
    rec.gigabytes = at == sv::npos && (at = c.find("memory (GB)")) != sv::npos;
    if (at == sv::npos)
        return Kind::None;
    sv head = T::trim(c.substr(0, at));
    const size_t rk = head.find("[Rank ");
    if (rk != sv::npos) {
        const size_t close = head.find(']', rk);
        int r = -1;
        if (close == sv::npos || !T::toInt(head.substr(rk + 6, close - rk - 6), r) || r < 0) {
            problem = "memory line with an unreadable rank; skipped";
            return Kind::Damaged;
        }
        rec.rank = r;
        head = T::trim(head.substr(close + 1));
    }
    if (!head.empty() && head.front() == '(')
        head.remove_prefix(1);
    if (!head.empty() && head.back() == ')')
        head.remove_suffix(1);
    rec.when = std::string(T::trim(head));
    // iteration number: "after N iterations" or "... for iteration N"
    for (const sv key : {sv("after "), sv("iteration ")}) {
        const size_t k = head.find(key);
        long long n = 0;
        if (k != sv::npos && T::takeDigits(head.substr(k + key.size()), n) > 0) {
            rec.iteration = static_cast<int>(n);
            break;
        }
    }
    // MB names, their 2019-2020 "cached" spellings, and Megatron-Bridge's GB names.
    static const std::array<std::array<sv, 3>, 4> names = {{
        {"allocated", "allocated", "mem-allocated-gigabytes"},
        {"max allocated", "max allocated", "mem-max-allocated-gigabytes"},
        {"reserved", "cached", "mem-reserved-gigabytes"},
        {"max reserved", "max cached", "mem-max-reserved-gigabytes"},
    }};
    double* dst[4] = {&rec.allocatedMiB, &rec.maxAllocatedMiB, &rec.reservedMiB, &rec.maxReservedMiB};
    bool have[4] = {false, false, false, false};
    const double scale = rec.gigabytes ? kMiBPerGB : 1.0;
    for (const auto& [key, value] : fields(c.substr(at + 11)).kv) {
        for (size_t i = 0; i < 4; ++i)
            if (key == names[i][0] || key == names[i][1] || key == names[i][2])
                have[i] = T::toDouble(value, *dst[i]);
        double v = 0.0;
        if (key == "total device memory used" && T::toDouble(value, v))
            rec.totalDeviceUsedMiB = v;
    }
    for (size_t i = 0; i < 4; ++i) {
        const std::string where
            = "memory line" + (rec.rank >= 0 ? " of rank " + std::to_string(rec.rank) : std::string());
        const std::string name(names[i][rec.gigabytes ? 2 : 0]);
        if (!have[i]) {
            problem = where + " lacks a readable '" + name + "' (truncated?); skipped";
            return Kind::Damaged;
        }
        *dst[i] *= scale;
        // The peak becomes a measurement target (> 0); the others may be 0.
        const double v = *dst[i];
        const std::string why = i == 1 ? ranges::memoryMiB.whyOutside(v, false, false)
                                       : (v == 0.0 ? std::string() : ranges::memoryMiB.whyOutside(v, false, false));
        if (!why.empty()) {
            problem = where + ": '" + name + "': " + why + "; skipped";
            return Kind::Damaged;
        }
    }
    return Kind::Record;
}

std::optional<PaddedVocabLine> MegatronLogLine::paddedVocab(std::string_view c, int line)
{
    const size_t at = c.find("padded vocab (size: ");
    const size_t fresh = c.find("(new size: ");
    if (at == sv::npos || fresh == sv::npos)
        return std::nullopt;
    long long size = 0, padded = 0;
    if (T::takeDigits(c.substr(at + 20), size) == 0 || T::takeDigits(c.substr(fresh + 11), padded) == 0)
        return std::nullopt;
    return PaddedVocabLine{static_cast<int>(size), static_cast<int>(padded), line};
}

bool MegatronLogLine::marksStart(std::string_view c)
{
    const sv t = T::trim(c);
    return t == "training ..." || t == "Training ..." || T::startsWith(t, "[before the start of training step]")
        || T::startsWith(t, "[after training is done]") || t.find("loading checkpoint from") != sv::npos
        || t.find("loading distributed checkpoint from") != sv::npos
        || t.find("successfully loaded checkpoint from") != sv::npos;
}

bool MegatronLogLine::beginsRecord(std::string_view c)
{
    long long n = 0;
    const sv t = T::trim(c);
    return findIterationSignature(c, n) != sv::npos || c.find("memory (MB)") != sv::npos
        || c.find("memory (GB)") != sv::npos || c.find("train_step_timing in s") != sv::npos
        || T::startsWith(t, "[Rank ") || T::startsWith(t, "(min, max) time across ranks")
        || T::startsWith(t, "max time across ranks") || T::startsWith(t, "times across ranks")
        || T::startsWith(t, "time (ms)") || MegatronArguments::isStartBanner(t) || MegatronArguments::isEndBanner(t)
        || marksStart(t);
}

}  // namespace memx
