#pragma once

#include "search/Objective.h"
#include "search/SearchWorker.h"
#include "search/SplitSearch.h"

#include <atomic>
#include <limits>
#include <memory>
#include <vector>

namespace memx::engine {

// Rank: the best plans under Phi for every ranked profile.
struct RankShared {
    References ref;
    std::vector<Weights> weights;
    // Constraints (ObjectiveSpec): plans slower than timeLimitMs, or keeping
    // less than minHeadroom free on a GPU, are not ranked.
    double timeLimitMs = std::numeric_limits<double>::infinity();
    double minHeadroom = 0;
    bool headroomAtUpper = false;
    std::unique_ptr<std::atomic<double>[]> threshold;  // per profile, best K-th Phi of any worker
};

class RankSink final : public LeafSink {
public:
    RankSink(Worker& w, const SearchRequest& r, const Skeleton& sk, RankShared& s, const std::atomic<bool>& stop)
        : w_(w)
        , r_(r)
        , sk_(sk)
        , s_(s)
        , stop_(stop)
    {
    }
    void onLeaf(const Leaf& leaf) override;
    unsigned alive(const LeafBound& b, unsigned ask) const override { return hopelessFor(b, w_, s_) ? 0 : ask; }
    double priority(const LeafBound& b) const override;
    bool stopRequested() const override { return stop_.load(std::memory_order_relaxed); }

    static bool hopelessFor(const LeafBound& b, const Worker& w, const RankShared& s);

private:
    Worker& w_;
    const SearchRequest& r_;
    const Skeleton& sk_;
    RankShared& s_;
    const std::atomic<bool>& stop_;
};

}  // namespace memx::engine
