#pragma once

#include "search/SearchWorker.h"
#include "search/SplitSearch.h"

#include <atomic>

namespace memx::engine {

// Sample: (T, M, V) with weights for the medians, and the plot sample.
class SampleSink final : public LeafSink {
public:
    SampleSink(Worker& w, const SearchRequest& r, const Skeleton& sk, double weight, const std::atomic<bool>& stop)
        : w_(w)
        , r_(r)
        , sk_(sk)
        , weight_(weight)
        , stop_(stop)
        , shape_(shapeHash(sk))
    {
    }
    void onLeaf(const Leaf& leaf) override;
    bool stopRequested() const override { return stop_.load(std::memory_order_relaxed); }

private:
    Worker& w_;
    const SearchRequest& r_;
    const Skeleton& sk_;
    double weight_;
    const std::atomic<bool>& stop_;
    std::uint64_t shape_;
};

}  // namespace memx::engine
