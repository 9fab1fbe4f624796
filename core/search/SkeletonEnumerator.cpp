#include "search/Skeleton.h"
#include "space/MeshRules.h"

#include "space/Problem.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>

namespace memx {

namespace {

// Every distinct ordering of a multiset of ids, in lexicographic order.
void multisetPermutations(std::vector<int> items, const std::function<void(const std::vector<int>&)>& visit,
                          std::size_t limit)
{
    std::sort(items.begin(), items.end());
    std::size_t n = 0;
    do {
        visit(items);
        if (++n >= limit)
            return;
    } while (std::next_permutation(items.begin(), items.end()));
}

std::vector<int> tpCandidates(const Problem& problem, int maxGroup)
{
    std::vector<int> out;
    if (!problem.setup.tensorParallel.empty()) {
        out = problem.setup.tensorParallel;
    } else {
        for (int t = 1; t <= maxGroup; t *= 2)
            out.push_back(t);
    }
    return out;
}

// Stage orders as slot indices: the slots of one GPU type are taken in
// cluster order; `typeOrders` says which type each pipeline position gets.
std::vector<std::vector<int>> stageOrders(const StageSlotSet& set, PlacementMode placement, std::size_t limit,
                                          bool& capped)
{
    std::vector<std::vector<int>> slotsOfType;
    for (std::size_t s = 0; s < set.all.size(); ++s) {
        const int t = set.all[s].type;
        if (static_cast<int>(slotsOfType.size()) <= t)
            slotsOfType.resize(static_cast<std::size_t>(t) + 1);
        slotsOfType[static_cast<std::size_t>(t)].push_back(static_cast<int>(s));
    }
    std::vector<int> items;
    for (std::size_t t = 0; t < slotsOfType.size(); ++t) {
        if (slotsOfType[t].empty())
            continue;
        if (placement == PlacementMode::Contiguous)
            items.push_back(static_cast<int>(t));
        else
            items.insert(items.end(), slotsOfType[t].size(), static_cast<int>(t));
    }
    std::vector<std::vector<int>> out;
    std::size_t visited = 0;
    multisetPermutations(
        items,
        [&](const std::vector<int>& typeOrder) {
            ++visited;
            std::vector<int> order;
            std::vector<std::size_t> next(slotsOfType.size(), 0);
            for (int t : typeOrder) {
                const auto& mine = slotsOfType[static_cast<std::size_t>(t)];
                if (placement == PlacementMode::Contiguous)
                    order.insert(order.end(), mine.begin(), mine.end());
                else
                    order.push_back(mine[next[static_cast<std::size_t>(t)]++]);
            }
            out.push_back(std::move(order));
        },
        limit);
    capped = visited >= limit;
    return out;
}

// Why a pipeline of `stages` stages is outside the request (--max-pp,
// --min-pp, more stages than layers); null when it is inside.
const char* stageCountRefusal(int stages, const TrainingSetup& setup, const ModelSpec& model)
{
    if (stages > setup.maxPipelineStages)
        return "more pipeline stages than --max-pp";
    if (stages < setup.minPipelineStages)
        return "fewer pipeline stages than --min-pp";
    if (stages > model.numLayers)
        return "more pipeline stages than layers";
    return nullptr;
}

// One GPU type's mesh candidate: its TP and DP and the stage slots they cut.
struct MeshOption {
    int tp = 1, dp = 1;
    std::vector<StageSlot> slots;
    int idle = 0;  // GPUs of the type no slot uses
};

// Per-type skeletons (FlagScale's process meshes): every GPU type's stages
// form one mesh of neighbouring stages with its own TP and DP; the first
// mesh's DP is the global DP and each mesh's micro-batch is dp0 x mbs / dp.
// Combinations where every mesh has the same TP and DP are the uniform
// skeletons, enumerated already, and are skipped here.
class PerTypeSkeletons {
public:
    using TimeBound = std::function<double(const std::vector<MeshTimeBound::Mesh>&, int, int, int)>;
    PerTypeSkeletons(const Problem& problem, const std::vector<int>& seqs, const std::vector<int>& qgs,
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

    void run()
    {
        if (!buildOptions())
            return;
        order_ = types_;  // the meshes' pipeline order: every permutation of the types
        std::sort(order_.begin(), order_.end());
        pick_.assign(problem_.cluster.types().size(), nullptr);
        do
            choose(0);
        while (std::next_permutation(order_.begin(), order_.end()));
        buildKept();
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

private:
    const MeshOption& picked(int type) const { return *pick_[static_cast<std::size_t>(type)]; }

    // Each type's candidates, cut by StageSlots for that type alone; false
    // when there are fewer than two types, the schedule is interleaved, or
    // a type has no candidate.
    bool buildOptions()
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
        for (int t : types_) {
            const auto ti = static_cast<std::size_t>(t);
            for (int tp : tpCandidates(problem_, typeMaxGroup[ti])) {
                if (tp < 1 || tp > typeMaxGroup[ti] || model_.heads % tp != 0)
                    continue;
                for (int dp = 1; tp * dp <= typeGpus[ti]; ++dp) {
                    MeshOption o;
                    o.tp = tp;
                    o.dp = dp;
                    for (auto& slot : StageSlots::of(cluster, tp * dp, tp).all)
                        if (slot.type == t)
                            o.slots.push_back(std::move(slot));
                    if (o.slots.empty())
                        continue;
                    o.idle = typeGpus[ti] - static_cast<int>(o.slots.size()) * tp * dp;
                    if (o.idle > 0 && !setup_.allowIdleGpus)
                        continue;
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

    // Chooses every type's option in pipeline order, the first mesh's fixing dp0.
    void choose(std::size_t k)
    {
        if (k == order_.size()) {
            combination();
            return;
        }
        for (const MeshOption& o : options_[static_cast<std::size_t>(order_[k])]) {
            pick_[static_cast<std::size_t>(order_[k])] = &o;
            choose(k + 1);
        }
    }

    // One option per type in one order: refused by the structural rules, or
    // its skeletons for every micro-batch size, sequence and query groups.
    void combination()
    {
        const MeshOption& first = picked(order_.front());
        const MeshOption& last = picked(order_.back());
        bool uniform = true;
        int stages = 0, idle = 0;
        for (int t : order_) {
            const MeshOption& o = picked(t);
            uniform = uniform && o.tp == first.tp && o.dp == first.dp;
            stages += static_cast<int>(o.slots.size());
            idle += o.idle;
        }
        if (uniform)
            return;  // a uniform skeleton
        if (const char* why = stageCountRefusal(stages, setup_, model_)) {
            ++list_.excluded[why];
            return;
        }
        if (model_.tiedEmbeddings
            && !MeshRules::tiedEmbeddings(first.tp, last.tp, first.dp, last.dp, setup_.distributedOptimizer).empty()) {
            ++list_.excluded["per-type meshes: tied embeddings need the first and last mesh's TP equal and, with "
                             "the distributed optimizer, their DPs dividing one another"];
            return;
        }
        Skeleton shape;
        shape.tp = first.tp;
        shape.dp = first.dp;
        shape.schedule = Schedule::OneF1B;
        shape.virtualStages = 1;
        shape.idleGpus = idle;
        if (!capped_ && !bound_) {  // beyond the cap skeletons are only counted; with a bound, built at the end
            auto set = std::make_shared<StageSlotSet>();
            for (int t : order_)
                for (const StageSlot& slot : picked(t).slots) {
                    shape.stageSlot.push_back(static_cast<int>(set->all.size()));
                    set->all.push_back(slot);
                }
            set->idleGpus = idle;
            shape.slotSet = std::move(set);
        }
        for (int mbs : setup_.microBatchSizes)
            withMicroBatch(shape, mbs);
    }

    void withMicroBatch(Skeleton shape, int mbs)
    {
        if (mbs < 1 || setup_.globalBatch % (shape.dp * mbs) != 0) {
            ++list_.excluded["global batch not divisible by DP x micro-batch"];
            return;
        }
        bool whole = true;
        for (int t : order_) {
            const MeshOption& o = picked(t);
            const int meshMbs = MeshRules::meshMicroBatch(shape.dp, mbs, o.dp);
            whole = whole && meshMbs > 0;
            for (std::size_t s = 0; s < o.slots.size(); ++s)
                shape.shapes.push_back({o.tp, o.dp, meshMbs});
        }
        if (!whole) {
            ++list_.excluded["per-type meshes: a mesh's micro-batch dp0 x mbs / dp is not whole"];
            return;
        }
        shape.mbs = mbs;
        shape.microBatchCount = setup_.globalBatch / (shape.dp * mbs);
        for (int seq : seqs_)
            for (int qg : qgs_) {
                bool qgOk = qg >= 1 && model_.heads % qg == 0;
                for (int t : order_)
                    qgOk = qgOk && (qg % picked(t).tp == 0 || picked(t).tp % qg == 0);
                if (!qgOk) {
                    ++list_.excluded["query groups incompatible with heads or TP"];
                    continue;
                }
                if (bound_) {
                    offer({order_, pickIndices(), mbs, seq, qg,
                           bound_(meshes(shape.dp, mbs), shape.microBatchCount, seq, qg)});
                    continue;
                }
                if (made_ >= limit_) {
                    // Counted, not built, so that the report can say how
                    // much of the space the cap left out.
                    capped_ = true;
                    ++beyond_;
                    continue;
                }
                Skeleton s = shape;
                s.seq = seq;
                s.queryGroups = qg;
                list_.skeletons.push_back(std::move(s));
                ++made_;
            }
    }

    // One skeleton of the bounded enumeration: the choice and its bound.
    struct Candidate {
        std::vector<int> order, pick;  // pick: each type's option index
        int mbs = 1, seq = 0, qg = 0;
        double boundMs = 0;
        std::uint64_t index = 0;  // in enumeration order
        bool operator<(const Candidate& o) const { return boundMs < o.boundMs; }  // a max-heap on the bound
    };

    std::vector<int> pickIndices() const
    {
        std::vector<int> out(pick_.size(), -1);
        for (int t : order_) {
            const auto& opts = options_[static_cast<std::size_t>(t)];
            out[static_cast<std::size_t>(t)] = static_cast<int>(pick_[static_cast<std::size_t>(t)] - opts.data());
        }
        return out;
    }

    std::vector<MeshTimeBound::Mesh> meshes(int dp0, int mbs) const
    {
        std::vector<MeshTimeBound::Mesh> out;
        for (int t : order_) {
            const MeshOption& o = picked(t);
            out.push_back({t, o.tp, o.dp, MeshRules::meshMicroBatch(dp0, mbs, o.dp), static_cast<int>(o.slots.size())});
        }
        return out;
    }

    // Keeps the `limit_` candidates of the lowest bounds; the least bound of
    // those left out is the bound of the whole rest.
    void offer(Candidate c)
    {
        c.index = offered_++;
        if (kept_.size() < limit_) {
            kept_.push(std::move(c));
            return;
        }
        capped_ = true;
        ++beyond_;
        if (!kept_.empty() && c.boundMs < kept_.top().boundMs) {
            leftOutMs_ = std::min(leftOutMs_, kept_.top().boundMs);
            kept_.pop();
            kept_.push(std::move(c));
        } else {
            leftOutMs_ = std::min(leftOutMs_, c.boundMs);
        }
    }

    // The kept candidates as skeletons, in enumeration order: the list of
    // a space under the cap is the one an unbounded enumeration makes.
    void buildKept()
    {
        std::vector<Candidate> kept;
        while (!kept_.empty()) {
            kept.push_back(kept_.top());
            kept_.pop();
        }
        std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) { return a.index < b.index; });
        for (const Candidate& c : kept) {
            order_ = c.order;
            for (int t : order_)
                pick_[static_cast<std::size_t>(t)]
                    = &options_[static_cast<std::size_t>(t)]
                               [static_cast<std::size_t>(c.pick[static_cast<std::size_t>(t)])];
            list_.skeletons.push_back(skeletonOf(c.mbs, c.seq, c.qg));
        }
    }

    // The skeleton of the picked options in order_ at one micro-batch size,
    // sequence and query groups (the rules already passed).
    Skeleton skeletonOf(int mbs, int seq, int qg) const
    {
        const MeshOption& first = picked(order_.front());
        Skeleton s;
        s.tp = first.tp;
        s.dp = first.dp;
        s.mbs = mbs;
        s.seq = seq;
        s.queryGroups = qg;
        s.schedule = Schedule::OneF1B;
        s.virtualStages = 1;
        s.microBatchCount = setup_.globalBatch / (first.dp * mbs);
        auto set = std::make_shared<StageSlotSet>();
        int idle = 0;
        for (int t : order_) {
            const MeshOption& o = picked(t);
            idle += o.idle;
            const int meshMbs = MeshRules::meshMicroBatch(first.dp, mbs, o.dp);
            for (const StageSlot& slot : o.slots) {
                s.stageSlot.push_back(static_cast<int>(set->all.size()));
                set->all.push_back(slot);
                s.shapes.push_back({o.tp, o.dp, meshMbs});
            }
        }
        set->idleGpus = idle;
        s.idleGpus = idle;
        s.slotSet = std::move(set);
        return s;
    }

    const Problem& problem_;
    const TrainingSetup& setup_;
    const ModelSpec& model_;
    const std::vector<int>& seqs_;
    const std::vector<int>& qgs_;
    std::size_t limit_;
    const TimeBound& bound_;
    SkeletonList& list_;
    std::priority_queue<Candidate> kept_;  // with a bound: the candidates kept so far
    double leftOutMs_ = std::numeric_limits<double>::infinity();
    std::uint64_t offered_ = 0;
    std::vector<int> types_, order_;
    std::vector<std::vector<MeshOption>> options_;
    std::vector<const MeshOption*> pick_;
    std::size_t made_ = 0;
    std::uint64_t beyond_ = 0;  // skeletons the cap left out, counted by the same rules
    bool capped_ = false;
};

// The schedules a uniform skeleton of `stages` stages and G micro-batches
// can run: 1F1B, and interleaving with each virtual-stage size that
// Megatron's rules allow (each refused one counted in `excluded`).
struct ScheduleVariant {
    Schedule s;
    int v;
};

std::vector<ScheduleVariant> scheduleVariants(const TrainingSetup& setup, const ModelSpec& model, int stages, int G,
                                              std::map<std::string, std::uint64_t>& excluded)
{
    std::vector<ScheduleVariant> variants;
    if (setup.schedule != ScheduleMode::Interleaved)
        variants.push_back({Schedule::OneF1B, 1});
    if (setup.schedule == ScheduleMode::OneF1B)
        return variants;
    for (int v : setup.virtualStages) {
        if (v < 2) {
            ++excluded["virtual-stage size below 2"];
            continue;
        }
        if (stages < 2 || G % stages != 0) {
            ++excluded["interleaving needs PP >= 2 and G divisible by PP"];
            continue;
        }
        if (model.numLayers % v != 0 || model.numLayers < v * stages) {
            ++excluded["too few layers for the virtual stages"];
            continue;
        }
        variants.push_back({Schedule::Interleaved, v});
    }
    return variants;
}

// The stage slots every stage of a uniform TP x DP takes, or null (the
// reason counted in `excluded`) when no micro-batch size divides the global
// batch, no GPU type has TP x DP GPUs in whole nodes, GPUs would idle
// against the setup, or the stage count is outside the request.
std::shared_ptr<StageSlotSet> uniformSlots(const Problem& problem, int tp, int dp,
                                           std::map<std::string, std::uint64_t>& excluded)
{
    const TrainingSetup& setup = problem.setup;
    const bool anyMbs = std::any_of(setup.microBatchSizes.begin(), setup.microBatchSizes.end(),
                                    [&](int mbs) { return mbs >= 1 && setup.globalBatch % (dp * mbs) == 0; });
    if (!anyMbs) {
        ++excluded["global batch not divisible by DP x micro-batch"];
        return nullptr;
    }
    auto set = std::make_shared<StageSlotSet>(StageSlots::of(problem.cluster, tp * dp, tp));
    const int stages = static_cast<int>(set->all.size());
    const char* why = stages < 1                    ? "rule 1: no GPU type has TP x DP GPUs in whole nodes"
        : set->idleGpus > 0 && !setup.allowIdleGpus ? "TP x DP leaves GPUs idle (idle GPUs not allowed)"
                                                    : stageCountRefusal(stages, setup, problem.model);
    if (why) {
        ++excluded[why];
        return nullptr;
    }
    return set;
}

// `shape` once per schedule variant and stage order. The adaptive rule
// (`automatic`) picks between the two schedules; where interleaving is
// impossible, 1F1B stays and there is nothing to pick.
void addOrders(const Skeleton& shape, const std::vector<ScheduleVariant>& variants,
               const std::vector<std::vector<int>>& orders, bool automatic, std::vector<Skeleton>& out)
{
    const bool choice = variants.size() > 1;
    for (const auto& var : variants)
        for (const auto& order : orders) {
            Skeleton s = shape;
            s.schedule = var.s;
            s.virtualStages = var.v;
            s.autoSchedule = automatic && choice;
            s.stageSlot = order;
            out.push_back(std::move(s));
        }
}

}  // namespace

SkeletonList SkeletonEnumerator::enumerate(const Problem& problem, const Limits& limits)
{
    SkeletonList list;
    const auto& groups = problem.cluster.groups();
    const TrainingSetup& setup = problem.setup;
    const ModelSpec& model = problem.model;
    int maxGroup = 0;
    std::vector<int> perType(problem.cluster.types().size(), 0);
    for (const auto& g : groups) {
        maxGroup = std::max(maxGroup, static_cast<int>(g.devices.size()));
        perType[static_cast<std::size_t>(g.type)] += static_cast<int>(g.devices.size());
    }
    const int maxType = perType.empty() ? 0 : *std::max_element(perType.begin(), perType.end());

    std::vector<int> seqs = setup.seqLens.empty() ? std::vector<int>{model.seqLen} : setup.seqLens;
    std::vector<int> qgs = setup.queryGroups.empty() ? std::vector<int>{model.queryGroups} : setup.queryGroups;
    const std::size_t orderLimit = limits.stageOrders;

    for (int tp : tpCandidates(problem, maxGroup)) {
        if (tp < 1 || tp > maxGroup) {
            ++list.excluded["rule 1: TP larger than every device group (GPUs of one type in one node)"];
            continue;
        }
        if (model.heads % tp != 0) {
            ++list.excluded["heads not divisible by TP"];
            continue;
        }
        for (int dp = 1; tp * dp <= maxType; ++dp) {
            const int w = tp * dp;
            const auto set = uniformSlots(problem, tp, dp, list.excluded);
            if (!set)
                continue;
            const int stages = static_cast<int>(set->all.size());
            bool capped = false;
            const auto orders = stageOrders(*set, setup.placement, orderLimit, capped);
            if (capped) {
                const std::string what = "stage orders capped at " + std::to_string(orderLimit)
                    + " for TP=" + std::to_string(tp) + " DP=" + std::to_string(dp);
                list.notes.push_back(what);
                list.spaceCut += (list.spaceCut.empty() ? "" : "; ") + what + " (later orders were not searched)";
            }
            for (int mbs : setup.microBatchSizes) {
                if (mbs < 1 || setup.globalBatch % (dp * mbs) != 0) {
                    ++list.excluded["global batch not divisible by DP x micro-batch"];
                    continue;
                }
                const int G = setup.globalBatch / (dp * mbs);
                for (int seq : seqs) {
                    for (int qg : qgs) {
                        if (qg < 1 || model.heads % qg != 0 || (qg % tp != 0 && tp % qg != 0)) {
                            ++list.excluded["query groups incompatible with heads or TP"];
                            continue;
                        }
                        Skeleton shape;
                        shape.tp = tp;
                        shape.dp = dp;
                        shape.mbs = mbs;
                        shape.seq = seq;
                        shape.queryGroups = qg;
                        shape.microBatchCount = G;
                        shape.slotSet = set;
                        shape.idleGpus = problem.cluster.deviceCount() - stages * w;
                        addOrders(shape, scheduleVariants(setup, model, stages, G, list.excluded), orders,
                                  setup.schedule == ScheduleMode::Auto, list.skeletons);
                    }
                }
            }
        }
    }
    if (setup.meshes == MeshMode::PerType)
        PerTypeSkeletons(problem, seqs, qgs, limits.perTypeMeshes, limits.perTypeTimeBound, list).run();
    return list;
}

}  // namespace memx
