#pragma once

#include "search/Baseline.h"
#include "search/Objective.h"
#include "search/ParetoFront.h"
#include "space/Plan.h"
#include "space/Problem.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memx {

class Predictor;
class PredictionStore;

struct SearchOptions {
    int threads = 0;  // 0: all hardware threads
    std::size_t topK = 10;
    std::size_t compareTopK = 1;  // plans ranked under each compared profile (its own table)
    bool prune = true;  // false: brute force (for checking the pruning)
    // Medians and ranks are exact (every feasible candidate enumerated) when
    // the space holds at most sampleBudget candidates; otherwise they come
    // from a stratified sample of estimateSamples candidates.
    std::size_t sampleBudget = 2'000'000;
    std::size_t estimateSamples = 200'000;
    std::size_t plotPoints = 4000;  // plans kept for the scatter plot
    std::size_t frontCapacity = 20000;
    // Run the worker threads as batch threads (SCHED_BATCH on Linux: an
    // interactive thread that wakes preempts them; their CPU share against
    // other processes is unchanged), so that a front end sharing the cores
    // stays responsive; the workbench sets it, the command line does not.
    bool background = false;
    // Seconds of wall time after which the search stops and returns the best
    // plans found so far, marked incomplete (SearchResult::incomplete); 0: none.
    double timeLimitS = 0;
    // Polled like the cancel predicate (every ~20 ms, from the calling
    // thread): true stops the search the same way the time limit does, with
    // the best plans so far (a front end's "stop and keep" button). Empty: never.
    std::function<bool()> stopEarly;
    // Caps what the search keeps (sample, fronts, plot sample, prediction
    // caches) to about this many MiB; 0: the sizes above, caches unbounded.
    // See MemoryBudget.
    double maxMemoryMiB = 0;
    // Also pick the plan of each baseline planner (BaselineKind) on the same
    // space, predictor and memory model: SearchResult::baselines.
    bool baselines = false;
    // Per-type mesh skeletons searched at most (0: SkeletonEnumerator's
    // default); above it those of the lowest time bounds are kept and the
    // result says what was left out (SearchResult::spaceCut).
    std::size_t meshSkeletons = 0;
};

// Everything a search needs, by value: a front end copies its state in here
// before starting, and the search never reads anything else.
struct SearchRequest {
    Problem problem;
    ObjectiveSpec objective;
    SearchOptions options;
    std::shared_ptr<const Predictor> predictor;  // null: analytic
    // Predictions kept across searches (null: none). The search reads it and
    // adds its new predictions at the end; it empties it first when the GPU
    // types, model structure, global batch or predictor changed. One search
    // at a time per store.
    std::shared_ptr<PredictionStore> store;
    // Also rank under these profiles (best plan of each), e.g. for comparison.
    std::vector<WeightProfile> compareProfiles;
};

struct SearchProgress {
    int phase = 1;  // 1: explore (statistics), 2: rank by Phi
    int permille = 0;  // 0-1000 over both phases
    std::uint64_t explored = 0;
    std::uint64_t pruned = 0;
    std::uint64_t feasible = 0;
    double elapsedS = 0;
    double remainingS = -1;  // estimate; -1 unknown
    // Phase 1: the (iteration ms, memory variance) Pareto front found so far,
    // for a plot that fills in while the search runs. Sorted by time.
    std::vector<std::pair<double, double>> liveFront;
};

struct SearchStats {
    std::uint64_t skeletons = 0;  // (TP, DP, mbs, seq, groups, schedule, order) combinations
    std::uint64_t explored = 0;  // complete candidates composed by the explore pass
    std::uint64_t feasible = 0;  // feasible candidates of the space (counted, saturates at 2^64 - 1)
    std::uint64_t searchNodes = 0;  // nodes the branch and bound visited (both passes)
    std::map<std::string, std::uint64_t> prunedByRule;  // rule -> candidates cut
    std::uint64_t phase2Evaluated = 0;
    std::uint64_t phase2Pruned = 0;  // cut by the Phi lower bound (rule 3)
    std::uint64_t cacheHits = 0;
    std::uint64_t cacheMisses = 0;  // predictor calls (stage queries predicted)
    std::uint64_t storeHits = 0;  // part of cacheHits: answered from earlier searches
    std::uint64_t cacheResets = 0;  // full caches started over (SearchOptions::maxMemoryMiB)
    std::uint64_t rowHits = 0;  // stage rows shared across skeletons (StageRowCache)
    std::uint64_t rowMisses = 0;  // stage rows built
    std::uint64_t rowResets = 0;  // full row caches started over
    bool storeInvalidated = false;  // the store was emptied for this search
    std::size_t storeSize = 0;  // entries after the search
    double wallS = 0;
    double candidatesPerS = 0;  // feasible candidates covered per second of wall time
    int threads = 1;
    double sampleFraction = 1.0;  // < 1 when medians and ranks come from a sample
    std::size_t feasibleShapes = 0;  // (TP, PP, DP) shapes (each mesh's) with feasible plans
    std::size_t plotShapes = 0;  // of those, in the plot's sample
};

struct SearchResult {
    bool cancelled = false;
    // Non-empty: SearchOptions::timeLimitS stopped the search; says which
    // pass it stopped in and how much of it ran. The plans are the best found
    // so far: real plans, but possibly not the best of the space.
    std::string incomplete;
    // Non-empty when the space was searched in part because a cap on its
    // skeletons (stage orders, per-type mesh choices) left some out: what it
    // left out. The plans are exact over the skeletons searched only.
    std::string spaceCut;
    // Non-empty when the references are not medians of the feasible plans
    // (a search cut while counting): what they are medians of.
    std::string referencesOf;
    std::string error;  // non-empty: no feasible plan, and why
    bool invalidRequest = false;  // the error is about the request itself, not the space
    std::vector<Plan> best;  // top K under Phi, best first
    std::vector<Plan> fastest;  // top K under iteration time
    ParetoFront paretoTimeVariance;
    ParetoFront paretoTimeMemory;
    std::vector<Plan> plotSample;  // a deterministic sample of feasible plans
    bool plotSampleComplete = false;  // true: plotSample holds every feasible plan
    References references;
    Weights weights;
    WeightProfile profileRequested = WeightProfile::Default;
    WeightProfile profileUsed = WeightProfile::Default;
    std::string profileReason;
    VarianceMode varianceMode = VarianceMode::AbsoluteMiB;
    // The constraints the picks meet (ObjectiveSpec), and the time limit
    // --max-slowdown came to.
    struct Constraints {
        double minHeadroom = 0;
        bool headroomAtUpper = false;
        double maxSlowdown = -1;
        double timeLimitMs = 0;
        bool any() const { return minHeadroom > 0 || maxSlowdown >= 0; }
        // The plan meets them (time within the limit, every GPU's headroom).
        bool admits(const Plan& p) const
        {
            if (maxSlowdown >= 0 && p.rankMs() > timeLimitMs)
                return false;
            return minHeadroom <= 0 || (headroomAtUpper ? p.minHeadroomAtUpper() : p.minHeadroom()) >= minHeadroom;
        }
    } constraints;
    std::vector<std::string> notes;  // policy decisions a user should know about
    SearchStats stats;
    std::string predictorName;

    // Best plan under the requested profile and each compared one; Phi and
    // ranks are under that profile's own weights.
    struct ProfilePick {
        WeightProfile kind = WeightProfile::Default;
        Weights weights;
        Plan plan;  // the profile's pick
        // Its top options.compareTopK plans, best first (Phi and rankPhi under
        // this profile); for the requested profile, see `best` above.
        std::vector<Plan> ranking;
    };
    std::vector<ProfilePick> profilePicks;

    // SearchOptions::baselines: each baseline's pick (BaselinePartitioner),
    // in kAllBaselines order, MemX last (the requested profile's best plan).
    // Phi and ranks are under the requested profile, like `best`.
    struct BaselinePick {
        BaselineKind kind = BaselineKind::MemX;
        Plan plan;
        bool fits = true;  // false: some GPU's predicted peak exceeds its memory (OOM)
        bool samePlanAsMemX = false;
    };
    std::vector<BaselinePick> baselines;

    // Several training tasks (sequence lengths x query groups) under
    // TaskCompare::PerTask: each task searched on its own, with its own
    // references, its best plan here and first in `best` (TaskSearch). The
    // fronts, sample, references and profile bests above are the first
    // task's that has a plan. Empty for one task, and under PerToken.
    struct TaskPick {
        int seqLen = 0, queryGroups = 0;
        std::string label;  // "seq 4096", "8 query groups", ...
        bool found = false;
        Plan plan;  // its best plan under the requested profile
        std::size_t bestIndex = 0;  // its position in `best`
        double fastestMs = 0;  // its fastest feasible plan's iteration time
        References references;  // its own; its Phi values are under them
        std::string error;  // why it has no plan (found false)
        std::string incomplete;  // its search was cut short
    };
    std::vector<TaskPick> tasks;
    TaskCompare compareTasks = TaskCompare::PerTask;
    // PerToken over several sequence lengths: the length whose tokens per
    // iteration the ranked times are scaled to (Plan::rankScale); 0 otherwise.
    int perTokenSeqLen = 0;
};

}  // namespace memx
