#pragma once

#include "hardware/BandwidthScenario.h"
#include "search/SearchResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memx {

// What-if bandwidth (issue #13 item 6, after Wu et al.): how the plans of a
// finished search fare when links are slower (or faster) than described, and
// which plan to choose then. Compute predictions come from the prediction
// store the nominal search filled, so only stage queries whose TP link
// changed reach the predictor; pipeline hops and gradient synchronisation
// are recomputed from the scaled topology.
struct BandwidthWhatIf {
    enum class Robust { None, Worst, Mean };
    struct Options {
        Robust robust = Robust::None;  // rank the kept plans by their worst (mean) time over the scenarios
        std::size_t topK = 10;  // robust plans reported
        bool replan = true;  // search each scenario (segment) again for its own best plan
        // Seconds the whole what-if may take (re-planning and the robust
        // ranking); 0: no limit. What it cuts is said (Result::incomplete).
        double timeLimitS = 0;
    };

    // One scenario: the nominal best plan under it, and the best plan when
    // re-planned for it (per segment for a time profile).
    struct SegmentPick {
        std::string description;  // "InfiniBand x0.4"
        double share = 1;  // of the scenario's time
        Plan plan;  // best under the request's objective on the scaled cluster
        bool samePlan = false;  // it is the nominal best plan
        double nominalBestMs = 0;  // the nominal best plan's time here
        double keepPhi = 0;  // the nominal best plan's Phi here (the re-planned search's references)
        std::uint64_t predictorCalls = 0;  // stage queries the store could not answer
        std::string error;  // the search found nothing
    };
    struct Scenario {
        std::string name;
        bool timeProfile = false;
        double nominalBestMs = 0;  // the nominal best plan, time-weighted over the segments
        double slowdown = 0;  // nominalBestMs / its nominal time - 1
        std::vector<SegmentPick> segments;  // replan: one per segment
    };
    // A kept plan's times under every scenario and its robust rank.
    struct RobustPlan {
        Plan plan;  // as planned (nominal T, M, V)
        std::vector<double> scenarioMs;  // per scenario, time-weighted over its segments
        double robustMs = 0;  // worst or mean of scenarioMs
        double robustPhi = 0;  // Phi with T = robustMs (M and V do not depend on the network)
        std::size_t worst = 0;  // scenario of the largest time
    };
    struct Result {
        std::vector<Scenario> scenarios;
        Robust robust = Robust::None;
        std::vector<RobustPlan> robustPlans;  // best first
        std::size_t candidates = 0;  // kept plans ranked robustly
        std::string error;  // why nothing could be said
        std::string incomplete;  // the time limit cut it: what was left out
        std::size_t replans = 0;  // searches run; segments alike in every link were planned once
    };

    // `request` and `result`: the nominal search (its store holds its
    // predictions; without one the predictor answers everything).
    static Result run(const SearchRequest& request, const SearchResult& result,
                      const std::vector<BandwidthScenario>& scenarios, const Options& options);
    // The plan's iteration time on `cluster` (the plan's own split, levels
    // and placement), ms; -1 when it cannot run there.
    static double retime(const SearchRequest& request, const Cluster& cluster, const Plan& plan);
    static const char* toString(Robust r);
};

}  // namespace memx
