#pragma once

#include "search/SearchWorker.h"
#include "search/SplitSearch.h"
#include "search/Staircase.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace memx::engine {

// Leaves any worker has entered into its fastest list or fronts, so that a
// subtree another worker has already beaten is cut everywhere. Insertions
// are rare; readers refresh a private copy when the version moves. Pruning
// against any set of real leaves is exact, so results do not depend on it.
struct ExploreShared {
    std::mutex mutex;
    std::atomic<std::uint64_t> version{0};
    std::vector<double> fastest;  // the K smallest times seen (max-heap)
    std::size_t k = 10;
    Staircase tv, tm;
};

// Explore: the fastest plans and both Pareto fronts.
class ExploreSink final : public LeafSink {
public:
    ExploreSink(Worker& w, ExploreShared& shared, const SearchRequest& r, const Skeleton& sk,
                const std::atomic<bool>& stop)
        : w_(w)
        , shared_(shared)
        , r_(r)
        , sk_(sk)
        , stop_(stop)
    {
    }
    void onLeaf(const Leaf& leaf) override;
    // Aims: 1 the fastest list, 2 the (T, V) front, 4 the (T, M) front. The
    // shared copies hold every leaf of this worker too (onLeaf), refreshed
    // after each of them.
    unsigned aims() const override { return aims_; }
    // One aim at a time (SearchEngine's explore pass): within one skeleton the
    // aims searched together visit far more than each alone (docs/SCALING.md).
    void setAims(unsigned aims) { aims_ = aims; }
    unsigned aliveWithoutVariance(const LeafBound& b, unsigned ask) const override;
    unsigned alive(const LeafBound& b, unsigned ask) const override;
    unsigned varianceAims() const override { return 2; }
    unsigned aliveAtAnyVariance(const LeafBound& b, unsigned ask) const override;
    bool stopRequested() const override { return stop_.load(std::memory_order_relaxed); }

private:
    void refresh() const;
    Worker& w_;
    ExploreShared& shared_;
    const SearchRequest& r_;
    const Skeleton& sk_;
    const std::atomic<bool>& stop_;
    unsigned aims_ = 7;
};

}  // namespace memx::engine
