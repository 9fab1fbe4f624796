#include "search/MemoryBudget.h"

#include "io/Text.h"
#include "predict/PredictionCache.h"
#include "search/SearchSample.h"
#include "search/StageRowCache.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memx {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Shares of the budget left after the top-K lists.
constexpr double kSampleShare = 0.3;
constexpr double kFrontShare = 0.3;
constexpr double kPlotShare = 0.1;
constexpr double kCacheShare = 0.2;
constexpr double kRowShare = 0.1;

// Below these the search still runs but says little: medians from fewer than
// 20,000 candidates move by percents, fronts and plots of fewer than 200
// points show no shape, and a cache of fewer than 4,096 answers is emptied
// several times within one skeleton.
constexpr std::size_t kMinSample = 20'000;
constexpr std::size_t kMinFront = 200;
constexpr std::size_t kMinPlot = 200;
constexpr std::size_t kMinCache = 4096;
// A stage-row cache of 1 MiB holds a few hundred rows: a uniform search's
// distinct stages, though a per-type search then rebuilds rows it had.
constexpr double kMinRowBytes = 1024.0 * 1024.0;

// Without a budget each worker's prediction cache still stops at this: it
// holds an answer per stage kind, layer count and level, so a model of 10^4
// layers would otherwise keep gigabytes of answers the split never asks
// again (a full cache starts over; issue #37). An ordinary search keeps
// under 200,000 answers, far below it.
constexpr double kDefaultCacheBytes = 128.0 * kMiB;

// A sample entry, in the workers' vectors and again in the merged one, with
// vector slack on both.
constexpr double kSampleEntryBytes = 4.0 * sizeof(SearchSample::Entry);

}  // namespace

double MemoryBudget::planBytes(const Problem& problem)
{
    const int stages = std::max(1, std::min(problem.setup.maxPipelineStages, problem.model.numLayers));
    const double perStage = sizeof(StagePlan) + 2 * 32.0 /* group name and type outside the short-string buffer */
        + 2 * sizeof(int) /* the groups list */ + sizeof(double) /* a pipeline hop */;
    return sizeof(Plan) + stages * perStage + problem.cluster.deviceCount() * double(sizeof(int));
}

MemoryBudget::Sizes MemoryBudget::sizes(const SearchOptions& o, const Problem& problem, int threads,
                                        std::size_t rankedProfiles)
{
    Sizes s;
    s.sampleBudget = o.sampleBudget;
    s.estimateSamples = o.estimateSamples;
    s.frontCapacity = o.frontCapacity;
    s.plotPoints = o.plotPoints;
    s.cacheEntries = static_cast<std::size_t>(kDefaultCacheBytes / double(PredictionCache::bytesPerEntry()));
    s.rowCacheBytes = StageRowCache::kDefaultBytes;
    s.planBytes = planBytes(problem);
    const double copies = threads + 1.0;  // one per worker, one merged
    const double listed = 2.0 * o.topK + double(std::max<std::size_t>(rankedProfiles, 1) - 1) * o.compareTopK;
    s.fixedMiB = copies * listed * s.planBytes / kMiB;
    if (!(o.maxMemoryMiB > 0))
        return s;
    const double frontPlanBytes = copies * 2 * s.planBytes;  // two fronts
    const double plotPlanBytes = copies * s.planBytes;
    const double cacheEntryBytes = threads * double(PredictionCache::bytesPerEntry());
    const double least = s.fixedMiB
        + std::max({kMinSample * kSampleEntryBytes / kSampleShare, kMinFront * frontPlanBytes / kFrontShare,
                    kMinPlot * plotPlanBytes / kPlotShare, kMinCache * cacheEntryBytes / kCacheShare,
                    threads * kMinRowBytes / kRowShare})
            / kMiB;
    if (o.maxMemoryMiB < least)
        throw std::invalid_argument(
            "a memory budget of " + Text::fmt("%g", o.maxMemoryMiB) + " MiB is below the least this search works in, "
            + Text::fmt("%.0f", std::ceil(least)) + " MiB (" + std::to_string(threads) + " threads, plans of up to "
            + Text::fmt("%.1f", s.planBytes / 1024) + " KiB on this cluster)");
    const double bytes = (o.maxMemoryMiB - s.fixedMiB) * kMiB;
    auto count = [](double share, double budget, double unit) {
        return static_cast<std::size_t>(std::floor(share * budget / unit));
    };
    const std::size_t sample = count(kSampleShare, bytes, kSampleEntryBytes);
    s.sampleBudget = std::min(o.sampleBudget, sample);
    s.estimateSamples = std::min(o.estimateSamples, sample);
    s.frontCapacity = std::min(o.frontCapacity, count(kFrontShare, bytes, frontPlanBytes));
    s.plotPoints = std::min(o.plotPoints, count(kPlotShare, bytes, plotPlanBytes));
    s.cacheEntries = count(kCacheShare, bytes, cacheEntryBytes);
    s.rowCacheBytes = std::min(s.rowCacheBytes, count(kRowShare, bytes, double(threads)));
    return s;
}

std::string MemoryBudget::describe(const SearchOptions& o, const Sizes& s)
{
    auto item = [](const char* what, std::size_t kept, std::size_t def) {
        return std::string(what) + " " + std::to_string(kept)
            + (kept < def ? " (default " + std::to_string(def) + ")" : "");
    };
    return "memory budget " + Text::fmt("%g", o.maxMemoryMiB)
        + " MiB: " + item("sample", s.estimateSamples, o.estimateSamples) + " candidates, exact up to "
        + std::to_string(s.sampleBudget) + ", " + item("fronts of", s.frontCapacity, o.frontCapacity) + " plans, "
        + item("plot sample", s.plotPoints, o.plotPoints) + ", prediction caches of " + std::to_string(s.cacheEntries)
        + " answers and stage rows of " + Text::fmt("%.1f", double(s.rowCacheBytes) / kMiB) + " MiB per thread";
}

}  // namespace memx
