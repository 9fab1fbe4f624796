#pragma once

#include "search/SearchWorker.h"
#include "search/SplitSearch.h"

namespace memx::engine {

// Under a time limit, the count pass's greedy candidate of each skeleton
// (SplitSearch::greedy) joins the worker's greedy lists as a plan: what a
// search cut while counting offers.
class GreedySink final : public LeafSink {
public:
    GreedySink(Worker& w, const SearchRequest& r, const Skeleton& sk) : w_(w), r_(r), sk_(sk) { }
    void onLeaf(const Leaf& leaf) override;

private:
    Worker& w_;
    const SearchRequest& r_;
    const Skeleton& sk_;
};

}  // namespace memx::engine
