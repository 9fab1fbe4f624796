#include "measure/MegatronLog.h"

#include "io/Text.h"

#include <algorithm>

namespace memx {

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fileName(const std::string& file) { return file.empty() ? std::string("<input>") : file; }

// Why the median rests on these lines, when it is worth saying.
std::string noteFor(const MegatronLog& log, const MegatronLogSummary& s, int skipWarmup)
{
    const std::string its
        = "iteration" + std::string(s.usedIterations.size() == 1 ? " " : "s ") + Text::joinInts(s.usedIterations, ", ");
    const std::string rule = "iterations <= " + std::to_string(skipWarmup) + " and the first line after each start";
    if (s.fromWarmup)
        return fileName(log.file) + ": no iteration line is left after the warm-up (" + rule + "); using the "
            + std::to_string(s.iterationsUsed) + " warm-up line(s) at " + its + " instead: the time may be overstated";
    if (s.iterationsUsed > 0 && s.iterationsUsed < MegatronLog::kSteadyLines)
        return fileName(log.file) + ": only " + std::to_string(s.iterationsUsed)
            + " iteration line(s) after the warm-up (" + its + "); the median rests on them";
    return {};
}

}  // namespace

MegatronLogSummary MegatronLog::summary(int skipWarmup) const
{
    MegatronLogSummary s;
    std::vector<double> used, standIn;
    std::vector<int> usedIts, standInIts;
    for (const IterationRecord& it : iterations) {
        if (it.clean() && !it.warmup(skipWarmup)) {
            used.push_back(it.elapsedMs);
            usedIts.push_back(it.iteration);
        } else if (it.clean() && it.firstIteration() > 1) {
            standIn.push_back(it.elapsedMs);
            standInIts.push_back(it.iteration);
        }
    }
    if (used.empty() && !standIn.empty()) {
        used = standIn;
        usedIts = standInIts;
        s.fromWarmup = true;
    }
    s.iterationsUsed = static_cast<int>(used.size());
    s.iterationsExcluded = static_cast<int>(iterations.size()) - s.iterationsUsed;
    s.usedIterations = usedIts;
    if (!used.empty())
        s.medianIterationMs = median(used);
    s.note = noteFor(*this, s, skipWarmup);
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

}  // namespace memx
