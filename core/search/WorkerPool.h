#pragma once

#include "search/SearchResult.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

namespace memx {

// Runs one body per item on a fixed number of threads, handing items out in
// a given order through an atomic counter. The calling thread runs the
// monitor: it polls the cancel predicate (a stop flag the bodies poll too)
// and reports throttled progress (at most every 100 ms, never from a worker
// thread) on a band of the 0-1000 scale that never goes back.
//
// Time left is elapsed x (1000 - permille) / permille, the permille being
// the skeletons done, weighted by their sizes, on bands fixed per pass.
// Unknown (-1, "estimating") until 2% and 0.5 s along; each report moves the
// estimate 30% of the way from the last one (counted down since) to the new
// value, and up by at most 25% + 0.1 s, so it does not jump about. Branch-and-bound costs per skeleton are
// not predictable from sizes: on a 128-GPU search the estimate can still be
// 2-3x off early in the explore pass (docs/SCALING.md).
class WorkerPool {
public:
    using Body = std::function<void(int worker, std::size_t item)>;
    using ProgressFn = std::function<void(const SearchProgress&)>;
    using CancelFn = std::function<bool()>;
    using Decorate = std::function<void(SearchProgress&)>;  // adds counts and the live front

    // background: the worker threads yield to interactive threads (SCHED_BATCH on Linux).
    WorkerPool(int threads, ProgressFn progress, CancelFn cancelled, bool background = false);

    // Runs `body` for items order[0], order[1], ... (weights[item]: relative
    // cost for progress). Progress goes from `fromPermille` to `toPermille`.
    void run(int phase, const std::vector<std::size_t>& order, const std::vector<double>& weights, int fromPermille,
             int toPermille, const Body& body, const Decorate& decorate = {});

    int threads() const { return threads_; }
    bool stopped() const { return stop_.load(std::memory_order_relaxed); }
    const std::atomic<bool>& stopFlag() const { return stop_; }
    double elapsedS() const;

private:
    // Time left (s), smoothed; -1 unknown.
    double remaining(int permille, double elapsedS, std::chrono::steady_clock::time_point now);

    int threads_;
    bool background_;
    ProgressFn progress_;
    CancelFn cancelled_;
    std::atomic<bool> stop_{false};
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastReport_;
    int lastPermille_ = 0;
    double estimateS_ = -1;  // time left when last estimated
    std::chrono::steady_clock::time_point estimatedAt_;
};

}  // namespace memx
