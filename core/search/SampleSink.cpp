#include "search/SampleSink.h"

#include "search/PlanBuilder.h"
#include "search/SearchResult.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace memx::engine {

void SampleSink::onLeaf(const Leaf& leaf)
{
    w_.sample.add({leaf.timeMs, leaf.maxMemMiB, leaf.variance, weight_});
    const std::size_t cap = r_.options.plotPoints;
    if (cap == 0)
        return;
    const std::uint32_t h = hash32(leaf.key);
    auto& plot = w_.plot;
    bool take = plot.size() < cap || h < plot.front().first
        || (h == plot.front().first && leaf.key < plot.front().second.key);
    if (!take)
        return;
    plot.emplace_back(h, PlanBuilder::build(r_.problem.cluster, sk_, w_.tables, leaf, r_.problem.setup.globalBatch));
    std::push_heap(plot.begin(), plot.end(), plotLess);
    if (plot.size() > cap) {
        std::pop_heap(plot.begin(), plot.end(), plotLess);
        plot.pop_back();
    }
}

}  // namespace memx::engine
