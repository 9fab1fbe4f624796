#include "search/PerTypeSkeletons.h"

#include "search/SkeletonRules.h"
#include "space/MeshRules.h"
#include "space/Problem.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace memx {

namespace {

const char* ruleText(int r)
{
    switch (r) {
    case 0: return "global batch not divisible by DP x micro-batch";
    case 1: return "per-type meshes: a mesh's micro-batch dp0 x mbs / dp is not whole";
    case 2: return "more pipeline stages than --max-pp";
    case 3: return "fewer pipeline stages than --min-pp";
    case 4: return "more pipeline stages than layers";
    case 5:
        return "per-type meshes: tied embeddings need the first and last mesh's TP equal and, with the distributed "
               "optimizer, their DPs dividing one another";
    default: return "query groups incompatible with heads or TP";
    }
}

}  // namespace

PerTypeSkeletons::PerTypeSkeletons(const Problem& problem, const std::vector<int>& seqs, const std::vector<int>& qgs,
                                   std::size_t limit, const TimeBound& bound, SkeletonList& list)
    : problem_(problem)
    , setup_(problem.setup)
    , model_(problem.model)
    , seqs_(seqs)
    , qgs_(qgs)
    , limit_(limit)
    , bound_(bound)
    , list_(list)
{
}

void PerTypeSkeletons::run()
{
    if (!buildOptions())
        return;
    std::vector<int> order = types_;
    std::sort(order.begin(), order.end());
    do
        orders_.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
    for (orderIdx_ = 0; orderIdx_ < orders_.size(); ++orderIdx_) {
        order_ = orders_[orderIdx_];
        withOrder();
    }
    buildKept();
    report();
}

bool PerTypeSkeletons::buildOptions()
{
    const Cluster& cluster = problem_.cluster;
    const std::size_t nTypes = cluster.types().size();
    std::vector<int> typeGpus(nTypes, 0), typeMaxGroup(nTypes, 0);
    for (const auto& g : cluster.groups()) {
        const auto t = static_cast<std::size_t>(g.type);
        typeGpus[t] += static_cast<int>(g.devices.size());
        typeMaxGroup[t] = std::max(typeMaxGroup[t], static_cast<int>(g.devices.size()));
    }
    for (std::size_t t = 0; t < nTypes; ++t)
        if (typeGpus[t] > 0)
            types_.push_back(static_cast<int>(t));
    if (types_.size() < 2)
        return false;
    if (setup_.schedule == ScheduleMode::Interleaved) {
        list_.notes.push_back("per-type meshes need the 1F1B schedule (FlagScale's heterogeneous training has "
                              "no virtual pipeline); --schedule interleaved searched uniform plans only");
        return false;
    }
    options_.resize(nTypes);
    slots_ = std::make_shared<StageSlotSet>();
    for (int t : types_) {
        const auto ti = static_cast<std::size_t>(t);
        for (int tp : SkeletonRules::tpCandidates(problem_, typeMaxGroup[ti])) {
            if (tp < 1 || tp > typeMaxGroup[ti] || model_.heads % tp != 0)
                continue;
            for (int dp = 1; tp * dp <= typeGpus[ti]; ++dp) {
                Option o;
                o.tp = tp;
                o.dp = dp;
                for (auto& slot : StageSlots::of(cluster, tp * dp, tp).all)
                    if (slot.type == t)
                        o.slots.push_back(std::move(slot));
                if (o.slots.empty())
                    continue;
                o.idle = typeGpus[ti] - o.stages() * tp * dp;
                if (o.idle > 0 && !setup_.allowIdleGpus)
                    continue;
                o.firstSlot = static_cast<int>(slots_->all.size());
                slots_->all.insert(slots_->all.end(), o.slots.begin(), o.slots.end());
                options_[ti].push_back(std::move(o));
            }
        }
        if (options_[ti].empty()) {
            ++list_.excluded["per-type meshes: a GPU type has no TP x DP of its own that fits"];
            return false;
        }
    }
    return true;
}

void PerTypeSkeletons::withOrder()
{
    const std::size_t n = order_.size();
    pick_.assign(n, 0);
    total_.assign(n, 0);
    totalSuffix_.assign(n + 1, 1);
    for (std::size_t k = n; k-- > 0;) {
        total_[k] = options_[static_cast<std::size_t>(order_[k])].size();
        totalSuffix_[k] = mulSaturating(total_[k], totalSuffix_[k + 1]);
    }
    for (std::size_t o = 0; o < total_[0]; ++o)
        withFirst(o);
}

void PerTypeSkeletons::withFirst(std::size_t option)
{
    const std::size_t n = order_.size();
    pick_[0] = option;
    const Option& first = picked(0);
    uniformSuffix_.assign(n + 1, 1);
    for (std::size_t k = n; k-- > 1;) {
        const auto& opts = options_[static_cast<std::size_t>(order_[k])];
        const bool has = std::any_of(opts.begin(), opts.end(),
                                     [&](const Option& o) { return o.tp == first.tp && o.dp == first.dp; });
        uniformSuffix_[k] = has ? uniformSuffix_[k + 1] : 0;
    }
    for (mbsIdx_ = 0; mbsIdx_ < setup_.microBatchSizes.size(); ++mbsIdx_) {
        mbs_ = setup_.microBatchSizes[mbsIdx_];
        dp0_ = first.dp;
        if (mbs_ < 1 || setup_.globalBatch % (dp0_ * mbs_) != 0) {
            // Every completion but the uniform one (enumerated already).
            tally(GlobalBatch, totalSuffix_[1] - uniformSuffix_[1]);
            continue;
        }
        wholeCounts(dp0_, mbs_);
        choose(1, first.stages(), true);
    }
}

void PerTypeSkeletons::wholeCounts(int dp0, int mbs)
{
    const std::size_t n = order_.size();
    whole_.assign(n, 0);
    wholeSuffix_.assign(n + 1, 1);
    leastStagesSuffix_.assign(n + 1, 0);
    constexpr int kNone = 1 << 20;  // no whole option: more stages than any request
    for (std::size_t k = n; k-- > 1;) {
        int least = kNone;
        for (const Option& o : options_[static_cast<std::size_t>(order_[k])])
            if (MeshRules::meshMicroBatch(dp0, mbs, o.dp) > 0) {
                ++whole_[k];
                least = std::min(least, o.stages());
            }
        wholeSuffix_[k] = mulSaturating(whole_[k], wholeSuffix_[k + 1]);
        leastStagesSuffix_[k] = std::min(kNone, least + leastStagesSuffix_[k + 1]);
    }
}

void PerTypeSkeletons::choose(std::size_t k, int stages, bool uniform)
{
    const std::size_t n = order_.size();
    if (k == n) {
        if (!uniform)  // a uniform skeleton is enumerated already
            leaf(stages);
        return;
    }
    if (stages + leastStagesSuffix_[k] > setup_.maxPipelineStages) {
        // No completion fits --max-pp: counted, not visited.
        tally(NotWhole, totalSuffix_[k] - wholeSuffix_[k]);
        tally(MaxPp, wholeSuffix_[k] - (uniform ? uniformSuffix_[k] : 0));
        return;
    }
    const Option& first = picked(0);
    const auto& opts = options_[static_cast<std::size_t>(order_[k])];
    for (std::size_t j = 0; j < opts.size(); ++j) {
        const Option& o = opts[j];
        if (MeshRules::meshMicroBatch(dp0_, mbs_, o.dp) == 0) {
            tally(NotWhole, totalSuffix_[k + 1]);
            continue;
        }
        pick_[k] = j;
        choose(k + 1, stages + o.stages(), uniform && o.tp == first.tp && o.dp == first.dp);
    }
}

void PerTypeSkeletons::leaf(int stages)
{
    if (const char* why = SkeletonRules::stageCountRefusal(stages, setup_, model_)) {
        for (Rule r : {MaxPp, MinPp, Layers})
            if (std::strcmp(why, ruleText(r)) == 0)
                tally(r, 1);
        return;
    }
    const Option& first = picked(0);
    const Option& last = picked(order_.size() - 1);
    if (model_.tiedEmbeddings
        && !MeshRules::tiedEmbeddings(first.tp, last.tp, first.dp, last.dp, setup_.distributedOptimizer).empty()) {
        tally(Tied, 1);
        return;
    }
    if (bound_) {
        meshes_.clear();
        for (std::size_t k = 0; k < order_.size(); ++k) {
            const Option& o = picked(k);
            meshes_.push_back({order_[k], o.tp, o.dp, MeshRules::meshMicroBatch(dp0_, mbs_, o.dp), o.stages()});
        }
    }
    const int G = setup_.globalBatch / (dp0_ * mbs_);
    for (std::size_t s = 0; s < seqs_.size(); ++s)
        for (std::size_t q = 0; q < qgs_.size(); ++q) {
            const int qg = qgs_[q];
            bool qgOk = qg >= 1 && model_.heads % qg == 0;
            for (std::size_t k = 0; k < order_.size() && qgOk; ++k)
                qgOk = qg % picked(k).tp == 0 || picked(k).tp % qg == 0;
            if (!qgOk) {
                tally(QueryGroups, 1);
                continue;
            }
            offer(bound_ ? bound_(meshes_, G, seqs_[s], qg) : 0.0, s, q);
        }
}

std::vector<int> PerTypeSkeletons::keyOf(std::size_t seqIdx, std::size_t qgIdx) const
{
    std::vector<int> key;
    key.reserve(order_.size() + 4);
    key.push_back(static_cast<int>(orderIdx_));
    for (std::size_t p : pick_)
        key.push_back(static_cast<int>(p));
    key.push_back(static_cast<int>(mbsIdx_));
    key.push_back(static_cast<int>(seqIdx));
    key.push_back(static_cast<int>(qgIdx));
    return key;
}

void PerTypeSkeletons::offer(double boundMs, std::size_t seqIdx, std::size_t qgIdx)
{
    if (kept_.size() < limit_) {
        kept_.push({boundMs, keyOf(seqIdx, qgIdx)});
        return;
    }
    capped_ = true;
    ++beyond_;
    if (kept_.empty() || boundMs > kept_.top().boundMs) {
        leftOutMs_ = std::min(leftOutMs_, boundMs);
        return;
    }
    Candidate c{boundMs, keyOf(seqIdx, qgIdx)};
    if (c < kept_.top()) {
        leftOutMs_ = std::min(leftOutMs_, kept_.top().boundMs);
        kept_.pop();
        kept_.push(std::move(c));
    } else {
        leftOutMs_ = std::min(leftOutMs_, boundMs);
    }
}

void PerTypeSkeletons::buildKept()
{
    std::vector<Candidate> kept;
    kept.reserve(kept_.size());
    while (!kept_.empty()) {
        kept.push_back(kept_.top());
        kept_.pop();
    }
    // Keys sort in enumeration order (type order, each mesh's option in
    // pipeline order, micro-batch, sequence, query groups): the list of a
    // space under the cap is the one an unbounded enumeration makes.
    std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
    for (const Candidate& c : kept)
        list_.skeletons.push_back(skeletonOf(c.key));
}

Skeleton PerTypeSkeletons::skeletonOf(const std::vector<int>& key) const
{
    const std::vector<int>& order = orders_[static_cast<std::size_t>(key[0])];
    const std::size_t n = order.size();
    const auto option = [&](std::size_t k) -> const Option& {
        return options_[static_cast<std::size_t>(order[k])][static_cast<std::size_t>(key[k + 1])];
    };
    const Option& first = option(0);
    Skeleton s;
    s.tp = first.tp;
    s.dp = first.dp;
    s.mbs = setup_.microBatchSizes[static_cast<std::size_t>(key[n + 1])];
    s.seq = seqs_[static_cast<std::size_t>(key[n + 2])];
    s.queryGroups = qgs_[static_cast<std::size_t>(key[n + 3])];
    s.schedule = Schedule::OneF1B;
    s.virtualStages = 1;
    s.microBatchCount = setup_.globalBatch / (first.dp * s.mbs);
    for (std::size_t k = 0; k < n; ++k) {
        const Option& o = option(k);
        s.idleGpus += o.idle;
        const int meshMbs = MeshRules::meshMicroBatch(first.dp, s.mbs, o.dp);
        for (int j = 0; j < o.stages(); ++j) {
            s.stageSlot.push_back(o.firstSlot + j);
            s.shapes.push_back({o.tp, o.dp, meshMbs});
        }
    }
    s.slotSet = slots_;
    return s;
}

void PerTypeSkeletons::report()
{
    for (int r = 0; r < RuleCount; ++r)
        if (tallies_[static_cast<std::size_t>(r)] > 0)
            list_.excluded[ruleText(r)] += tallies_[static_cast<std::size_t>(r)];
    if (!capped_)
        return;
    list_.notes.push_back("per-type mesh skeletons capped at " + std::to_string(limit_));
    list_.spaceCut += std::string(list_.spaceCut.empty() ? "" : "; ") + "per-type mesh skeletons capped at "
        + std::to_string(limit_) + ": " + std::to_string(beyond_);
    if (!bound_) {
        list_.spaceCut += " more (later type orders and mesh choices) were not searched";
        return;
    }
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.0f", leftOutMs_);
    list_.spaceCut += " more, those whose plans cannot be faster than " + std::string(ms)
        + " ms (a lower bound on each mesh choice's iteration time), were not searched";
    list_.leftOutTimeBoundMs = leftOutMs_;
}

}  // namespace memx
