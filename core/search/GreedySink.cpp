#include "search/GreedySink.h"

#include "search/PlanBuilder.h"

#include <optional>

namespace memx::engine {

void GreedySink::onLeaf(const Leaf& leaf)
{
    w_.greedySample.add({leaf.timeMs, leaf.maxMemMiB, leaf.variance, 1.0});
    std::optional<Plan> plan;
    auto built = [&]() -> const Plan& {
        if (!plan)
            plan = PlanBuilder::build(r_.problem.cluster, sk_, w_.tables, leaf, r_.problem.setup.globalBatch);
        return *plan;
    };
    if (w_.greedyFastest.accepts(leaf.timeMs, leaf.key))
        w_.greedyFastest.insert(leaf.timeMs, built());
    if (w_.greedyLeanest.accepts(leaf.maxMemMiB, leaf.key))
        w_.greedyLeanest.insert(leaf.maxMemMiB, built());
    if (w_.greedyTv.accepts(leaf.timeMs, leaf.variance, leaf.key))
        w_.greedyTv.insert(leaf.timeMs, leaf.variance, built());
    if (w_.greedyTm.accepts(leaf.timeMs, leaf.maxMemMiB, leaf.key))
        w_.greedyTm.insert(leaf.timeMs, leaf.maxMemMiB, built());
}

}  // namespace memx::engine
