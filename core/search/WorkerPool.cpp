#include "search/WorkerPool.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace memx {

using Clock = std::chrono::steady_clock;

namespace {
// SCHED_BATCH for the calling thread only: Linux treats it as CPU-bound and
// lets an interactive thread that wakes up (the GUI's) preempt it, while its
// share of the CPU against other processes stays that of a normal thread. (A
// nice value of +10 did the first, but also let any other busy process, such
// as a compiler, take nine tenths of the cores from the search.) Elsewhere,
// or when refused, nothing happens.
void lowerThisThreadsPriority()
{
#if defined(__linux__)
    sched_param p{};
    p.sched_priority = 0;
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &p);
#endif
}
}  // namespace

WorkerPool::WorkerPool(int threads, ProgressFn progress, CancelFn cancelled, bool background)
    : threads_(std::max(1, threads))
    , background_(background)
    , progress_(std::move(progress))
    , cancelled_(std::move(cancelled))
    , start_(Clock::now())
    , lastReport_(Clock::now() - std::chrono::seconds(1))
{
}

double WorkerPool::elapsedS() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void WorkerPool::report(int phase, const Decorate& decorate)
{
    lastReport_ = Clock::now();
    lastPhase_ = phase;
    SearchProgress p;
    p.phase = phase;
    p.elapsedS = elapsedS();
    const ProgressEstimate::Reading r = estimate_.read(p.elapsedS);
    p.permille = r.permille;
    p.remainingS = r.remainingS;
    if (decorate)
        decorate(p);
    progress_(p);
}

void WorkerPool::run(int phase, const std::vector<std::size_t>& order, const std::vector<ProgressEstimate::Item>& items,
                     const ProgressEstimate::Pass& pass, const Body& body, const Decorate& decorate)
{
    const int n = std::max(1, std::min<int>(threads_, static_cast<int>(std::max<std::size_t>(1, order.size()))));
    std::vector<ProgressEstimate::Item> passItems(order.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos)
        passItems[pos] = items[order[pos]];
    estimate_.beginPass(std::move(passItems), pass, n, elapsedS());
    std::atomic<std::size_t> next{0};
    completed_ = 0;
    // A new phase is reported at once, so a front end sees the rank pass
    // begin however short it is; a stop asked for before the pass starts
    // keeps the pass from starting any item.
    if (progress_ && phase != lastPhase_)
        report(phase, decorate);
    if (cancelled_ && cancelled_())
        stop_ = true;
    std::atomic<int> running{0};
    std::mutex doneMutex;
    std::condition_variable doneCv;
    std::exception_ptr failure;  // the first body that threw (guarded by doneMutex)
    running = n;
    auto work = [&](int id) {
        if (background_)
            lowerThisThreadsPriority();
        try {
            for (;;) {
                if (stop_.load(std::memory_order_relaxed))
                    break;
                const std::size_t pos = next.fetch_add(1);
                if (pos >= order.size())
                    break;
                estimate_.started(pos, elapsedS());
                body(id, order[pos]);
                if (!stop_.load(std::memory_order_relaxed))
                    ++completed_;
                estimate_.finished(pos, elapsedS());
            }
        } catch (...) {
            // An exception leaving a thread ends the program (std::terminate):
            // the first one stops every worker and is thrown again on the
            // calling thread, e.g. std::bad_alloc on a model too large for memory.
            std::lock_guard<std::mutex> lock(doneMutex);
            if (!failure)
                failure = std::current_exception();
            stop_ = true;
        }
        {
            std::lock_guard<std::mutex> lock(doneMutex);
            running.fetch_sub(1);
        }
        doneCv.notify_all();
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < n; ++i)
        pool.emplace_back(work, i);
    while (running.load() > 0) {
        {
            std::unique_lock<std::mutex> lock(doneMutex);
            doneCv.wait_for(lock, std::chrono::milliseconds(20), [&] { return running.load() == 0; });
        }
        if (running.load() == 0)
            break;
        if (cancelled_ && cancelled_())
            stop_ = true;
        if (progress_ && Clock::now() - lastReport_ >= std::chrono::milliseconds(100))
            report(phase, decorate);
    }
    for (auto& t : pool)
        t.join();
    if (failure)
        std::rethrow_exception(failure);
    if (cancelled_ && cancelled_())
        stop_ = true;
}

}  // namespace memx
