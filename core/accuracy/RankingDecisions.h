#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace memx {

// What a ranking is worth when it is acted on: in each group of runs that
// compete for one job (same model, global batch, sequence length and GPUs),
// the planner would launch the run it predicts fastest. Did it pick the truly
// fastest one (top-1), was that among its 3 fastest (top-3), and how much
// slower is the run it picked (regret)? Pure functions; no I/O.
class RankingDecisions {
public:
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

    // One group's decision. Indices are into the group's vectors.
    struct Group {
        std::size_t runs = 0;
        // The run the prediction picks: the lowest predicted time; among runs
        // tied there, the one with the largest measured time (pessimistic,
        // the same rule as AccuracyMetrics::topKHit, so top1 <=> regretPct == 0).
        std::size_t picked = 0;
        // A truly fastest run: the lowest measured time; among runs tied
        // there, the one predicted fastest. Runs tied at the lowest measured
        // time are all "the fastest": picking any of them costs nothing.
        std::size_t fastest = 0;
        // 100 * (measured[picked] / measured[fastest] - 1), >= 0.
        double regretPct = 0;
        // Runs sharing the lowest predicted time (1: no tie). Runs of one
        // configuration measured several times tie; the pessimistic pick then
        // charges the spread of their measurements as regret. The expected
        // regret breaks the tie at random instead: the mean over the tied
        // runs of 100 * (measured / measured[fastest] - 1).
        std::size_t tiedAtPick = 1;
        double expectedRegretPct = 0;
        bool top1 = false, top3 = false;  // AccuracyMetrics::topKHit with k = 1 and k = 3
    };

    // Over the groups of >= 2 runs; groups of one run are no ranking decision
    // and are only counted. Shares are fractions in [0, 1]; NaN when no group
    // has >= 2 runs.
    struct Summary {
        std::size_t groups = 0;  // groups of >= 2 runs (scored)
        std::size_t singleRunGroups = 0;  // groups of one run (excluded)
        double hitTop1 = kNaN, hitTop3 = kNaN;
        double regretMedianPct = kNaN;  // median over groups (mean of the two middle ones when even)
        double regretMaxPct = kNaN;
        std::size_t tiedPicks = 0;  // groups whose pick is a tie (tiedAtPick >= 2)
        double expectedRegretMedianPct = kNaN;  // the same over expectedRegretPct
        double expectedRegretMaxPct = kNaN;
    };

    // Throws std::invalid_argument when the sizes differ, the input is empty,
    // a value is NaN or infinite, or the lowest measured time is not > 0.
    static Group decide(const std::vector<double>& predictedMs, const std::vector<double>& measuredMs);

    static Summary summarise(const std::vector<Group>& groups);
};

}  // namespace memx
