#include "search/WorkerPool.h"

#include <algorithm>
#include <condition_variable>
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

double WorkerPool::elapsedS() const
{
    return std::chrono::duration<double>(Clock::now() - start_).count();
}

double WorkerPool::remaining(int permille, double elapsedS, std::chrono::steady_clock::time_point now)
{
    if (permille <= 20 || elapsedS < 0.5)
        return -1;  // estimating: too little done to say
    const double raw = elapsedS * (1000 - permille) / permille;
    const double aged = estimateS_ < 0
        ? raw
        : std::max(0.0, estimateS_ - std::chrono::duration<double>(now - estimatedAt_).count());
    // Towards the new value by 30%, and up by at most a quarter per report:
    // an estimate that grows is the bar going backwards in time.
    estimateS_ = std::min(aged + 0.3 * (raw - aged), 1.25 * aged + 0.1);
    estimatedAt_ = now;
    return estimateS_;
}

void WorkerPool::run(int phase, const std::vector<std::size_t>& order, const std::vector<double>& weights,
                     int fromPermille, int toPermille, const Body& body, const Decorate& decorate)
{
    double totalWeight = 0;
    for (std::size_t item : order)
        totalWeight += weights[item];
    std::atomic<std::size_t> next{0};
    std::atomic<int> running{0};
    // Work done, in units of 1e-6 of the total (atomic doubles are not portable).
    std::atomic<std::uint64_t> done{0};
    std::mutex doneMutex;
    std::condition_variable doneCv;
    const int n = std::max(1, std::min<int>(threads_, static_cast<int>(std::max<std::size_t>(1, order.size()))));
    running = n;
    auto work = [&](int id) {
        if (background_)
            lowerThisThreadsPriority();
        for (;;) {
            if (stop_.load(std::memory_order_relaxed))
                break;
            const std::size_t pos = next.fetch_add(1);
            if (pos >= order.size())
                break;
            const std::size_t item = order[pos];
            body(id, item);
            if (totalWeight > 0)
                done += static_cast<std::uint64_t>(1e6 * weights[item] / totalWeight);
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
        const auto now = Clock::now();
        if (progress_ && now - lastReport_ >= std::chrono::milliseconds(100)) {
            lastReport_ = now;
            SearchProgress p;
            p.phase = phase;
            const double frac = std::min(1.0, double(done.load()) / 1e6);
            p.permille = std::max(lastPermille_, static_cast<int>(fromPermille + (toPermille - fromPermille) * frac));
            lastPermille_ = p.permille;
            p.elapsedS = elapsedS();
            p.remainingS = remaining(p.permille, p.elapsedS, now);
            if (decorate)
                decorate(p);
            progress_(p);
        }
    }
    for (auto& t : pool)
        t.join();
    if (cancelled_ && cancelled_())
        stop_ = true;
}

}  // namespace memx
