#include "search/RankSink.h"

#include "search/PlanBuilder.h"
#include "search/SearchResult.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>

namespace memx::engine {

void RankSink::onLeaf(const Leaf& leaf)
{
    ++w_.leaves2;
    if (leaf.timeMs > s_.timeLimitMs) {
        ++w_.tooSlow;
        return;
    }
    std::optional<Plan> plan;
    for (std::size_t k = 0; k < s_.weights.size(); ++k) {
        const double phi = Objective::phi(leaf.timeMs, leaf.maxMemMiB, leaf.variance, s_.ref, s_.weights[k]);
        TopPlans& top = w_.best[k];
        if (!top.accepts(phi, leaf.key))
            continue;
        if (!plan) {
            plan = PlanBuilder::build(r_.problem.cluster, sk_, w_.tables, leaf, r_.problem.setup.globalBatch);
            if (s_.minHeadroom > 0) {
                const double h = s_.headroomAtUpper ? plan->minHeadroomAtUpper() : plan->minHeadroom();
                if (h < s_.minHeadroom) {
                    ++w_.tooLittleHeadroom;
                    w_.bestRefusedHeadroom = std::max(w_.bestRefusedHeadroom, h);
                    return;
                }
            }
        }
        Plan p = *plan;
        p.phi = phi;
        top.insert(phi, std::move(p));
        const double th = top.threshold();
        double cur = s_.threshold[k].load(std::memory_order_relaxed);
        while (th < cur && !s_.threshold[k].compare_exchange_weak(cur, th, std::memory_order_relaxed)) { }
    }
}

double RankSink::priority(const LeafBound& b) const
{
    return Objective::phi(b.timeMs, b.maxMemMiB, b.variance, s_.ref, s_.weights[0]);
}

bool RankSink::hopelessFor(const LeafBound& b, const Worker& w, const RankShared& s)
{
    if (b.timeMs > s.timeLimitMs)
        return true;  // every plan below is slower than --max-slowdown allows
    for (std::size_t k = 0; k < s.weights.size(); ++k) {
        const double th = std::min(w.best[k].threshold(), s.threshold[k].load(std::memory_order_relaxed));
        if (!(Objective::phi(b.timeMs, b.maxMemMiB, b.variance, s.ref, s.weights[k]) > th))
            return false;
    }
    return true;
}

}  // namespace memx::engine
