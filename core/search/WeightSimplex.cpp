#include "search/WeightSimplex.h"

#include "search/SearchResult.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace memx {

const SimplexMap::Point& SimplexMap::at(const Weights& w) const
{
    const int i = static_cast<int>(std::lround(w.time * steps));
    const int j = static_cast<int>(std::lround(w.memory * steps));
    // Rows by i = steps..0, each with j = steps - i..0.
    std::size_t index = 0;
    for (int r = steps; r > i; --r)
        index += static_cast<std::size_t>(steps - r + 1);
    index += static_cast<std::size_t>((steps - i) - std::clamp(j, 0, steps - i));
    return points.at(index);
}

SimplexMap WeightSimplex::map(const std::vector<Plan>& candidates, const References& ref, int steps)
{
    if (steps < 1)
        throw std::invalid_argument("the simplex grid needs at least one step");
    std::vector<const Plan*> plans;
    std::set<std::uint64_t> seen;
    for (const Plan& p : candidates)
        if (seen.insert(p.key).second)
            plans.push_back(&p);
    if (plans.empty())
        throw std::invalid_argument("no plan to place on the weight simplex");
    SimplexMap out;
    out.steps = steps;
    out.candidates = plans.size();
    std::map<std::uint64_t, std::size_t> winners;  // key -> index among winners, in order of first win
    std::vector<const Plan*> winnerPlans;
    for (int i = steps; i >= 0; --i)
        for (int j = steps - i; j >= 0; --j) {
            const Weights w{double(i) / steps, double(j) / steps, double(steps - i - j) / steps};
            const Plan* best = nullptr;
            double bestPhi = std::numeric_limits<double>::infinity();
            for (const Plan* p : plans) {
                const double phi = Objective::phi(p->rankMs(), p->maxMemMiB, p->varMem, ref, w);
                if (phi < bestPhi || (phi == bestPhi && best && p->key < best->key)) {
                    best = p;
                    bestPhi = phi;
                }
            }
            const auto [it, added] = winners.emplace(best->key, winnerPlans.size());
            if (added)
                winnerPlans.push_back(best);
            out.points.push_back({w, it->second, bestPhi});
        }
    // Winners fastest first; the points follow.
    std::vector<std::size_t> order(winnerPlans.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return winnerPlans[a]->rankMs() < winnerPlans[b]->rankMs(); });
    std::vector<std::size_t> newIndex(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        newIndex[order[k]] = k;
        out.plans.push_back(*winnerPlans[order[k]]);
    }
    out.regionSize.assign(out.plans.size(), 0);
    for (auto& pt : out.points) {
        pt.winner = newIndex[pt.winner];
        ++out.regionSize[pt.winner];
    }
    return out;
}

std::vector<Plan> WeightSimplex::keptCandidates(const SearchResult& r)
{
    std::vector<Plan> out;
    // Several tasks each ranked on its own (TaskSearch): the references, the
    // fronts and the sample are the lead task's, and so are the plans here.
    const Plan* lead = r.tasks.empty() || r.best.empty() ? nullptr : &r.best.front();
    auto add = [&](const Plan& p) {
        if (lead && (p.seqLen != lead->seqLen || p.queryGroups != lead->queryGroups))
            return;
        if (r.constraints.admits(p))
            out.push_back(p);
    };
    for (const Plan& p : r.best)
        add(p);
    for (const Plan& p : r.fastest)
        add(p);
    for (const auto& pb : r.profilePicks) {
        add(pb.plan);
        for (const Plan& p : pb.ranking)
            add(p);
    }
    for (const auto& pt : r.paretoTimeVariance.points())
        add(pt.plan);
    for (const auto& pt : r.paretoTimeMemory.points())
        add(pt.plan);
    for (const Plan& p : r.plotSample)
        add(p);
    return out;
}

}  // namespace memx
