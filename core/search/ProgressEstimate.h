#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace memx {

// How far a search is and how long it has left, from the work it has done.
//
// A search runs passes over its skeletons (count, explore, rank). Each item
// of a pass has a size (a prior guess at its relative cost) and a class
// (skeletons alike in stages, layer units and micro-batch cost alike). Items
// report when they start and finish; the time left of a pass is the expected
// cost of the items not finished, over the threads:
//   - an item whose class has 3 finished items costs the mean of the last 16
//     of them (branch-and-bound items get cheaper as the incumbents tighten,
//     so old items say less about the next);
//   - any other item costs its size times the median cost per size of the
//     pass's finished items;
//   - a running item is credited the time it has run (at least a tenth of
//     its cost stays); one that has run past its cost is expected to run
//     half as long again (the items are heavy-tailed: a long one is not
//     about to end), and no thread finishes before the longest running one.
// Passes after the current one are a share of it (rank is about a tenth of
// explore on the measured 128-GPU search, tests/data/progress/).
//
// Nothing is said ("estimating", -1) during a pass that cannot be estimated
// (the count pass: the explore pass it precedes costs 4-8x as much and
// nothing before it measures that), or before max(4, 1%) of a pass's items
// have finished and 0.5 s has gone by, and the first estimates (the least
// certain: the first items of a pass run before any incumbent prunes) are
// smoothed for 0.5 s before one is shown. The estimate shown moves from the
// last one (counted down since) 30% of the way to the new value per 0.1 s,
// and up by at most 25% + 0.1 s per second: rather than go back in time it
// stands still a while. The bar is the time spent in the pass over that plus
// the estimate, and never goes back.
class ProgressEstimate {
public:
    struct Item {
        double size = 1;
        int cls = 0;
    };
    struct Pass {
        bool estimable = true;  // false: say nothing about time left
        double followingShare = 0;  // cost of the passes after this one, as a share of this one
        double shareOfPrevious = -1;  // prior cost of this pass as a share of the previous (-1: none)
        int toPermille = 1000;  // where the bar stands when a non-estimable pass ends
    };
    struct Reading {
        int permille = 0;
        double remainingS = -1;  // -1: estimating
    };

    // settleS: how long the first estimates are smoothed before one is shown.
    explicit ProgressEstimate(double settleS = 0.5) : settleS_(settleS) { }

    // A pass over `items` (indexed as the pool's items) begins at nowS
    // (seconds since the search began) on `threads` threads.
    void beginPass(std::vector<Item> items, const Pass& pass, int threads, double nowS);
    void started(std::size_t item, double nowS);
    void finished(std::size_t item, double nowS);
    // Thread-safe with started/finished; not with itself or beginPass.
    Reading read(double nowS);

private:
    // Expected seconds left of the current pass and those after it; -1 unknown.
    double rawRemaining(double nowS) const;
    double smoothed(double raw, double nowS);

    double settleS_;
    mutable std::mutex mutex_;
    std::vector<Item> items_;
    std::vector<double> startS_;  // -1: not started
    std::vector<double> costS_;  // -1: not finished
    std::vector<std::deque<double>> recentByClass_;
    std::vector<double> costPerSize_;
    std::size_t finished_ = 0;
    double finishedSize_ = 0, totalSize_ = 0;
    Pass pass_;
    int threads_ = 1;
    double passStartS_ = 0;
    double previousPassS_ = -1;
    int passFromPermille_ = 0;
    int permille_ = 0;
    double estimateS_ = -1;  // time left when last estimated
    double estimatedAtS_ = 0;
    double firstEstimateS_ = 0;
};

}  // namespace memx
