#pragma once

#include "search/ProgressEstimate.h"
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
// thread): the bar and the time left come from ProgressEstimate, fed with
// when each item starts and finishes, over all the passes of one pool.
class WorkerPool {
public:
    using Body = std::function<void(int worker, std::size_t item)>;
    using ProgressFn = std::function<void(const SearchProgress&)>;
    using CancelFn = std::function<bool()>;
    using Decorate = std::function<void(SearchProgress&)>;  // adds counts and the live front

    // background: the worker threads yield to interactive threads (SCHED_BATCH on Linux).
    WorkerPool(int threads, ProgressFn progress, CancelFn cancelled, bool background = false);

    // Runs `body` for items order[0], order[1], ... (items[item]: its size
    // and class for the estimate; `pass`: what the estimate may say). A body
    // that throws stops the pass; once every worker has ended, the first
    // exception is thrown again here, on the calling thread.
    void run(int phase, const std::vector<std::size_t>& order, const std::vector<ProgressEstimate::Item>& items,
             const ProgressEstimate::Pass& pass, const Body& body, const Decorate& decorate = {});

    int threads() const { return threads_; }
    bool stopped() const { return stop_.load(std::memory_order_relaxed); }
    const std::atomic<bool>& stopFlag() const { return stop_; }
    double elapsedS() const;
    // Items of the last pass whose body ran to its end before the stop flag
    // was raised (a body cut short by the stop is not counted).
    std::size_t lastPassCompleted() const { return completed_.load(); }

private:
    void report(int phase, const Decorate& decorate);

    int threads_;
    int lastPhase_ = 0;
    bool background_;
    ProgressFn progress_;
    CancelFn cancelled_;
    std::atomic<bool> stop_{false};
    std::atomic<std::size_t> completed_{0};
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point lastReport_;
    ProgressEstimate estimate_;
};

}  // namespace memx
