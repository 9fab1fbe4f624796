#pragma once

#include "predict/PredictionCache.h"
#include "search/BaselinePartitioner.h"
#include "search/NearMiss.h"
#include "search/ParetoFront.h"
#include "search/SearchResult.h"
#include "search/SearchSample.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/StageRowCache.h"
#include "search/SplitSearch.h"
#include "search/Staircase.h"
#include "search/TopPlans.h"
#include "space/Plan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <set>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

// What SearchEngine's phases keep per skeleton and per worker thread, for
// SearchEngine.cpp and its leaf sinks only (namespace memx::engine):
// SkeletonSummary (what the explore pass learns about a skeleton), Worker
// (everything one thread accumulates), and hash32 / plotLess (the hashed,
// thread-count independent order of the plot sample).
namespace memx::engine {

inline std::uint32_t hash32(std::uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::uint32_t>(key >> 32);
}

// What the explore pass learns about a skeleton, for the later passes.
struct SkeletonSummary {
    CandidateCount feasible = 0;
    CandidateCount space = 0;
    std::vector<LeafBound> root;  // bounds over all of its candidates (one per class)
    std::uint64_t samples = 0;  // quota of the sample pass
    double sampleWeight = 1;  // candidates each sampled one stands for
};

// Everything one worker accumulates; merged in a fixed order at the end.
struct Worker {
    Worker(const Predictor& p, const SearchOptions& o, const PredictionStore* store)
        : cache(p, store)
        , fastest(o.topK)
        , tv(o.frontCapacity)
        , tm(o.frontCapacity)
        , greedyFastest(o.topK)
        , greedyLeanest(o.topK)
        , greedyTv(o.frontCapacity)
        , greedyTm(o.frontCapacity)
    {
    }
    PredictionCache cache;
    StageRowCache rows;
    SkeletonTables tables;
    TopPlans fastest;
    std::vector<TopPlans> best;  // per ranked profile; [0] is the requested one
    ParetoFront tv, tm;
    SearchSample sample;
    std::vector<std::pair<std::uint32_t, Plan>> plot;  // max-heap on (hash, key)
    // Per (TP, PP, DP) shape (shapeHash), its first candidate in plotLess
    // order: the plot holds one of every shape with feasible plans.
    std::unordered_map<std::uint64_t, std::pair<std::uint32_t, Plan>> shapeFirst;
    std::uint64_t leaves1 = 0, leaves2 = 0, nodes = 0;
    CandidateCount prunedExplore = 0, prunedRank = 0;
    std::uint64_t skeletonsCut = 0, scheduleRule = 0, unconnected = 0;
    // Rank pass: plans set aside by the constraints, and the most headroom
    // among those set aside for too little of it.
    std::uint64_t tooSlow = 0, tooLittleHeadroom = 0;
    double bestRefusedHeadroom = -1e300;
    NearMiss nearMiss;
    std::size_t nearMissSkeleton = 0;
    // What the other workers found, for pruning (see ExploreShared).
    Staircase tvSeen, tmSeen;
    double fastestSeen = std::numeric_limits<double>::infinity();
    std::uint64_t seenVersion = 0;
    std::vector<std::string> notes;
    // SearchOptions::baselines: each baseline's preferred candidate so far
    // and its plan, per BaselineKind (MemX excluded).
    struct BaselineBest {
        bool have = false;
        BaselineCandidate candidate;
        Plan plan;
    };
    std::array<BaselineBest, kBaselineKinds - 1> baselines;
    // Under a time limit, the count pass's greedy candidates (one per
    // skeleton) as plans: the fastest, the least peak memory and both
    // fronts, with their (T, M, V) for medians, so that a search cut while
    // counting still offers the best plans it has seen (GreedySink).
    TopPlans greedyFastest, greedyLeanest;
    ParetoFront greedyTv, greedyTm;
    SearchSample greedySample;
    std::set<std::string> unrunnable;  // why skeletons cannot run at all (no link joins ...)
    std::mutex publishedMutex;  // live (T, V) front for progress
    std::vector<std::pair<double, double>> published;
};

// The (TP, PP, DP) shape of a skeleton's plans, or of a plan, each mesh's
// for a per-mesh one: what the plot's sample is stratified by.
template <class ShapeOf> std::uint64_t shapeHashOf(int stages, bool perMesh, ShapeOf shapeOf)
{
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdULL;
    };
    mix(static_cast<std::uint64_t>(stages));
    for (int i = 0; i < (perMesh ? stages : std::min(stages, 1)); ++i) {
        const StageShape sh = shapeOf(i);
        mix(static_cast<std::uint64_t>(sh.tp) << 32 | static_cast<std::uint32_t>(sh.dp));
    }
    return h;
}
inline std::uint64_t shapeHash(const Skeleton& sk)
{
    return shapeHashOf(sk.stages(), sk.perMesh(), [&sk](int i) { return sk.shapeOf(i); });
}
inline std::uint64_t shapeHash(const Plan& p)
{
    return shapeHashOf(p.pp, p.perMesh(), [&p](int i) { return p.shapeOf(static_cast<std::size_t>(i)); });
}

inline bool plotLess(const std::pair<std::uint32_t, Plan>& a, const std::pair<std::uint32_t, Plan>& b)
{
    return a.first != b.first ? a.first < b.first : a.second.key < b.second.key;
}

}  // namespace memx::engine
