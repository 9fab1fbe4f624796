#pragma once

#include "hardware/Topology.h"
#include "predict/Predictor.h"
#include "search/ExploreSink.h"
#include "search/ParetoFront.h"
#include "search/ProgressEstimate.h"
#include "search/RankSink.h"
#include "search/SearchEngine.h"
#include "search/SearchSample.h"
#include "search/SearchWorker.h"
#include "search/Skeleton.h"
#include "search/TopPlans.h"
#include "search/WorkerPool.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace memx::engine {

// One search: the passes of SearchEngine::run, in order, over one shared
// state. SearchRun.cpp checks the request, enumerates the skeletons, counts
// and explores them; SearchRunRanking.cpp chooses the references and ranks by
// Phi; SearchRunEnd.cpp says what a search cut short or ended can still say.
class SearchRun {
public:
    SearchRun(SearchRequest req, const SearchEngine::ProgressFn& progress, const SearchEngine::CancelFn& cancelled)
        : req_(std::move(req))
        , progress_(progress)
        , cancelled_(cancelled)
        , topo_(req_.problem.cluster)
    {
    }

    SearchResult run();

private:
    // Measured: 0.04-0.19 on searches of 32 and 128 GPUs (tests/data/progress/).
    static constexpr double kRankShareOfExplore = 0.1;
    static std::uint64_t saturate(CandidateCount c)
    {
        return c > static_cast<CandidateCount>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(c);
    }

    bool validate();

    // TaskCompare::PerToken: every skeleton's time counts per token, scaled
    // to the largest task's tokens per iteration (the global batch is the
    // same for every task, so the tokens go with the sequence length).
    void scaleTimesPerToken();
    bool enumerate();
    bool startWorkers();

    // Tables of skeleton `idx` into the worker; false when it cannot run.
    bool prepare(Worker& w, std::size_t idx, bool firstPass);
    void exchangeRateNotes(Worker& w, const Skeleton& sk);
    std::vector<std::size_t> indexOrder() const;
    void decorate(SearchProgress& p, bool front);

    // ---- Count: feasible candidates of every skeleton ----
    void count();

    // Each baseline's candidate on this skeleton, kept when the baseline prefers it.
    void offerToBaselines(Worker& w, const Skeleton& sk, std::size_t idx);

    // ---- Explore and sample: fastest plans, both fronts, the (T, M, V) sample ----
    // Up to sampleBudget feasible candidates every one is visited once and
    // feeds all of them; above it the fronts come from the branch and bound
    // and the sample is taken by rank.
    void exploreAndSample();
    bool anyFeasible();
    void mergeExplore();

    // eV (Objective::epsilon): the uncertainty rule reads u and the fullest
    // GPU's utilisation off the plans the explore pass kept (the fastest list
    // and both fronts), whose predictions are the search's own.
    void chooseEpsilon(References& ref);
    void chooseReferencesAndProfile();

    // ---- Phase 3: rank by Phi, most promising skeletons first ----
    void rank();

    // What the constraints set aside, and the reason when they leave nothing.
    void countConstraints();
    void collectCacheStats();

    // ---- Balanced: the knee of the time-variance front ----
    // Among the front's plans that meet the constraints; the table lists them
    // by their distance from the line between the ends, knee first.
    void pickTheKnee();

    // ---- Ranks of the reported plans, from the sample ----
    void assignRanks();
    // Each ranked profile's pick and ranking (the requested one's is `best`).
    void collectProfilePicks();
    // The fronts and the plot sample into the result, each plan `finish`ed.
    void keepFrontsAndPlot(const std::function<void(Plan&)>& finish);

    // ---- The baselines' picks, ranked like the reported plans ----
    void reportBaselines();

    // ---- The time limit: what a search cut short can still say ----
    std::string limitText() const;
    std::string cutText() const { return stoppedOnRequest_ ? " came" : " ran out"; }

    // Cut while counting: the greedy candidates of the skeletons counted
    // (one each, the split whose slowest stage is fastest) are the plans the
    // search has; they are ranked by Phi with medians of their own.
    SearchResult stoppedWhileCounting();
    SearchResult stoppedBeforeAnyPlan(const std::string& pass, std::size_t done);

    // The search was cut short: the plans explore found (the fastest, both
    // fronts and the plot's sample) join the ranking by Phi under every profile, with the
    // constraints applied as the rank pass applies them, so a cut rank pass
    // still offers them and a cut explore pass has a ranking at all.
    // The plot's sample, stratified: the first candidate (plotLess order) of
    // every (TP, PP, DP) shape with feasible plans, up to half the plot, then
    // every worker's candidates in plotLess order up to plotPoints. Without
    // the first part a shape with a small share of the space (PP = 1 beside
    // 10^8 pipelined plans) never reached the plot. A plan a worker kept but
    // the merge drops is not one the user is shown, so a cut search does not
    // rank it either.
    std::vector<std::pair<std::uint32_t, Plan>*> keptPlot();
    void rankKnownPlans(const std::vector<const Plan*>& extra = {});
    void describeIncomplete(bool exploreCut);
    SearchResult cancel();
    void claimFastestExact();
    SearchResult finish();
    SearchRequest req_;
    const SearchEngine::ProgressFn& progress_;
    const SearchEngine::CancelFn& cancelled_;
    const Topology topo_;
    std::shared_ptr<const Predictor> predictor_;
    SearchResult result_;
    SkeletonList list_;
    std::vector<SkeletonSummary> summary_;
    std::vector<double> weight_;
    std::vector<ProgressEstimate::Item> items_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::unique_ptr<WorkerPool> pool_;
    std::unique_ptr<ExploreShared> exploreShared_;
    std::atomic<std::uint64_t> feasibleSoFar_{0};
    std::atomic<bool> userCancelled_{false};
    std::atomic<bool> timedOut_{false};  // the time limit or stopEarly
    std::atomic<bool> stoppedOnRequest_{false};  // stopEarly
    std::size_t passItems_ = 0;  // skeletons handed to the current pass
    std::size_t exploreItems_ = 0, exploreDone_ = 0;
    std::size_t knownPlans_ = 0;  // plans ranked after a cut explore pass
    CandidateCount feasible_ = 0;
    bool exact_ = true;  // every feasible candidate visited (medians and ranks exact)
    bool keepGreedy_ = false;  // the count pass keeps greedy candidates as plans (a time limit is set)
    TopPlans fastest_;
    std::vector<Plan> fastestPlans_;
    ParetoFront tv_, tm_;
    SearchSample sample_;
    RankShared rank_;
    std::vector<WeightProfile> rankedKinds_;
};

}  // namespace memx::engine
