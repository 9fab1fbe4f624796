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
    auto before = [&](const std::pair<std::uint32_t, Plan>& e) {
        return h < e.first || (h == e.first && leaf.key < e.second.key);
    };
    auto& plot = w_.plot;
    const bool take = plot.size() < cap || before(plot.front());
    auto first = w_.shapeFirst.find(shape_);
    const bool firstOfShape = first == w_.shapeFirst.end() || before(first->second);
    if (!take && !firstOfShape)
        return;
    Plan plan = PlanBuilder::build(r_.problem.cluster, sk_, w_.tables, leaf, r_.problem.setup.globalBatch);
    if (firstOfShape) {
        if (first == w_.shapeFirst.end())
            w_.shapeFirst.emplace(shape_, std::make_pair(h, plan));
        else
            first->second = {h, plan};
    }
    if (!take)
        return;
    plot.emplace_back(h, std::move(plan));
    std::push_heap(plot.begin(), plot.end(), plotLess);
    if (plot.size() > cap) {
        std::pop_heap(plot.begin(), plot.end(), plotLess);
        plot.pop_back();
    }
}

}  // namespace memx::engine
