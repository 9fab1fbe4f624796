#include "search/ExploreSink.h"

#include "search/PlanBuilder.h"
#include "search/SearchResult.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace memx::engine {

void ExploreSink::onLeaf(const Leaf& leaf)
{
    std::optional<Plan> plan;
    auto built = [&]() -> const Plan& {
        if (!plan)
            plan = PlanBuilder::build(r_.problem.cluster, sk_, w_.tables, leaf, r_.problem.setup.globalBatch);
        return *plan;
    };
    if (w_.fastest.accepts(leaf.timeMs, leaf.key))
        w_.fastest.insert(leaf.timeMs, built());
    if (w_.tv.accepts(leaf.timeMs, leaf.variance, leaf.key))
        w_.tv.insert(leaf.timeMs, leaf.variance, built());
    if (w_.tm.accepts(leaf.timeMs, leaf.maxMemMiB, leaf.key))
        w_.tm.insert(leaf.timeMs, leaf.maxMemMiB, built());
    if (!plan)
        return;
    std::lock_guard<std::mutex> lock(shared_.mutex);
    auto& heap = shared_.fastest;
    if (heap.size() < shared_.k || leaf.timeMs < heap.front()) {
        heap.push_back(leaf.timeMs);
        std::push_heap(heap.begin(), heap.end());
        if (heap.size() > shared_.k) {
            std::pop_heap(heap.begin(), heap.end());
            heap.pop_back();
        }
    }
    shared_.tv.insert(leaf.timeMs, leaf.variance);
    shared_.tm.insert(leaf.timeMs, leaf.maxMemMiB);
    shared_.version.fetch_add(1, std::memory_order_release);
}

unsigned ExploreSink::aliveWithoutVariance(const LeafBound& b, unsigned ask) const
{
    refresh();
    unsigned out = 0;
    if ((ask & 1) && !(b.timeMs > std::min(w_.fastest.threshold(), w_.fastestSeen)))
        out |= 1;
    if ((ask & 2) && !w_.tvSeen.covers(b.timeMs, 0.0))
        out |= 2;
    if ((ask & 4) && !w_.tmSeen.covers(b.timeMs, b.maxMemMiB))
        out |= 4;
    return out;
}

unsigned ExploreSink::alive(const LeafBound& b, unsigned ask) const
{
    unsigned out = aliveWithoutVariance(b, ask);
    if ((out & 2) && w_.tvSeen.covers(b.timeMs, b.variance))
        out &= ~2u;
    return out;
}

unsigned ExploreSink::aliveAtAnyVariance(const LeafBound& b, unsigned ask) const
{
    refresh();
    // No point of the (T, V) front is as fast: nothing covers it, whatever its V.
    if ((ask & 2) && !w_.tvSeen.covers(b.timeMs, std::numeric_limits<double>::infinity()))
        return 2;
    return 0;
}

void ExploreSink::refresh() const
{
    if (shared_.version.load(std::memory_order_acquire) == w_.seenVersion)
        return;
    std::lock_guard<std::mutex> lock(shared_.mutex);
    w_.tvSeen = shared_.tv;
    w_.tmSeen = shared_.tm;
    w_.fastestSeen
        = shared_.fastest.size() < shared_.k ? std::numeric_limits<double>::infinity() : shared_.fastest.front();
    w_.seenVersion = shared_.version.load(std::memory_order_relaxed);
}

}  // namespace memx::engine
