#pragma once

#include "search/SplitSearch.h"

namespace memx::engine {

// Every leaf to both (when all candidates are visited anyway).
class BothSinks final : public LeafSink {
public:
    BothSinks(LeafSink& a, LeafSink& b) : a_(a), b_(b) { }
    void onLeaf(const Leaf& leaf) override
    {
        a_.onLeaf(leaf);
        b_.onLeaf(leaf);
    }
    bool stopRequested() const override { return a_.stopRequested(); }

private:
    LeafSink& a_;
    LeafSink& b_;
};

}  // namespace memx::engine
