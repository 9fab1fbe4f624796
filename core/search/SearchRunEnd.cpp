// SearchRun's ends: a search cut short by the time limit or a stop, cancelled, or finished.
#include "search/SearchRun.h"

#include <cmath>
#include <cstdio>

#include "io/Text.h"

#include <algorithm>

namespace memx::engine {

std::string SearchRun::limitText() const
{
    return stoppedOnRequest_ ? "a request to stop early"
                             : "the time limit (" + Text::fmt("%g", req_.options.timeLimitS) + " s)";
}

SearchResult SearchRun::stoppedWhileCounting()
{
    const std::size_t counted = pool_->lastPassCompleted();
    fastest_ = TopPlans(req_.options.topK);
    tv_ = ParetoFront(req_.options.frontCapacity);
    tm_ = ParetoFront(req_.options.frontCapacity);
    for (auto& w : workers_) {
        fastest_.merge(w->greedyFastest);
        tv_.merge(w->greedyTv);
        tm_.merge(w->greedyTm);
        sample_.append(w->greedySample);
    }
    if (fastest_.size() == 0)
        return stoppedBeforeAnyPlan("counting", counted);
    anyFeasible();  // the counted skeletons' feasible candidates (a lower bound)
    chooseReferencesAndProfile();
    TopPlans leanest(req_.options.topK);
    for (auto& w : workers_)
        leanest.merge(w->greedyLeanest);
    const std::vector<Plan> lean = leanest.sorted();
    std::vector<const Plan*> extra;
    extra.reserve(lean.size());
    for (const Plan& p : lean)
        extra.push_back(&p);
    rankKnownPlans(extra);
    collectCacheStats();
    result_.stats.sampleFraction = feasible_ > 0
        ? std::min(0.999999, static_cast<double>(static_cast<long double>(sample_.size()) / feasible_))
        : 0;
    result_.incomplete = limitText() + cutText() + " in the counting pass with " + std::to_string(counted) + " of "
        + std::to_string(passItems_)
        + " skeletons counted; each counted skeleton's greedy plan (the layer split "
          "whose slowest stage is fastest) was ranked by Phi ("
        + std::to_string(knownPlans_)
        + " kept), with medians from those plans: the best plans found so far, not the search's";
    result_.referencesOf = "the greedy plans of " + std::to_string(sample_.size()) + " counted skeletons";
    result_.notes.insert(result_.notes.begin(), "incomplete: " + result_.incomplete);
    if (std::none_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->best[0].size() > 0; })) {
        result_.error = result_.incomplete + "; no plan found so far meets the constraints";
        return finish();
    }
    result_.error.clear();
    assignRanks();
    if (result_.profileUsed == WeightProfile::Balanced)
        pickTheKnee();
    return finish();
}

SearchResult SearchRun::stoppedBeforeAnyPlan(const std::string& pass, std::size_t done)
{
    result_.incomplete = limitText() + cutText() + " in the " + pass + " pass with " + std::to_string(done) + " of "
        + std::to_string(passItems_) + " skeletons finished";
    result_.error = result_.incomplete + ", before any plan was evaluated; allow more time";
    return finish();
}

void SearchRun::describeIncomplete(bool exploreCut)
{
    if (exploreCut) {
        result_.incomplete = limitText() + cutText() + " in the explore pass with " + std::to_string(exploreDone_)
            + " of " + std::to_string(exploreItems_) + " skeletons finished; the " + std::to_string(knownPlans_)
            + " plans found so far (the fastest, the Pareto fronts and the plot's sample) were ranked by Phi, and the medians come "
              "from a partial sample";
        result_.stats.sampleFraction = feasible_ > 0
            ? std::min(0.999999, static_cast<double>(static_cast<long double>(sample_.size()) / feasible_))
            : 0;
    } else {
        result_.incomplete = limitText() + cutText() + " in the Phi ranking pass with "
            + std::to_string(pool_->lastPassCompleted()) + " of " + std::to_string(passItems_)
            + " skeletons finished (the most promising first), and the " + std::to_string(knownPlans_)
            + " plans explore found joined the ranking; the fastest plans, the fronts and the medians are complete";
    }
    result_.notes.insert(result_.notes.begin(), "incomplete: " + result_.incomplete);
    if (result_.error.empty()
        && std::none_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->best[0].size() > 0; }))
        result_.error = result_.incomplete + "; no plan found so far meets the constraints";
}

SearchResult SearchRun::cancel()
{
    result_.cancelled = true;
    return finish();
}

SearchResult SearchRun::finish()
{
    claimFastestExact();
    result_.stats.wallS = pool_ ? pool_->elapsedS() : 0;
    result_.stats.candidatesPerS = result_.stats.wallS > 0 ? double(result_.stats.feasible) / result_.stats.wallS : 0;
    return std::move(result_);
}

// A capped per-type space whose left-out skeletons were bounded
// (SkeletonList::leftOutTimeBoundMs): when the K-th fastest plan found is
// faster than that bound, no plan left out belongs in the fastest list.
void SearchRun::claimFastestExact()
{
    const double bound = list_.leftOutTimeBoundMs;
    const std::size_t k = req_.options.topK;
    if (!std::isfinite(bound) || result_.fastest.size() < k || k == 0 || timedOut_ || userCancelled_)
        return;
    const double kth = result_.fastest[k - 1].iterationMs;
    if (result_.perTokenSeqLen > 0 || !(kth < bound))
        return;
    char text[320];
    std::snprintf(text, sizeof text,
                  "the fastest %zu plans are exact over the whole space: every skeleton the cap left out takes at "
                  "least %.0f ms, the %zu-th fastest plan %.1f ms",
                  k, bound, k, kth);
    result_.notes.emplace_back(text);
}

}  // namespace memx::engine
