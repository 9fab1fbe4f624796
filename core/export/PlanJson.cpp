#include "export/PlanJson.h"

#include "search/PlanCost.h"

#include "space/JobPrecision.h"
#include "space/TrainingSetupJson.h"

#include "search/SearchResult.h"

namespace memx {

nlohmann::json PlanJson::plan(const Plan& p)
{
    nlohmann::json j;
    j["format"] = "memx-plan/2";
    j["tp"] = p.tp;
    j["pp"] = p.pp;
    j["dp"] = p.dp;
    j["micro_batch"] = p.microBatch;
    j["global_batch"] = p.globalBatch;
    j["micro_batch_count"] = p.microBatchCount;
    j["seq_len"] = p.seqLen;
    j["query_groups"] = p.queryGroups;
    j["schedule"] = toString(p.schedule);
    j["virtual_stages"] = p.virtualStages;
    j["iteration_ms"] = p.iterationMs;
    j["tokens_per_s"] = PlanCost::tokensPerSecond(p);
    if (p.rankScale != 1)  // --compare-tasks per-token: what Phi and rank_time counted
        j["per_token_ms"] = p.rankMs();
    j["max_mem_mib"] = p.maxMemMiB;
    j["mem_variance"] = p.varMem;
    j["phi"] = p.phi;
    j["rank_time"] = p.rankTime;
    j["rank_phi"] = p.rankPhi;
    j["ranks_approximate"] = p.ranksApproximate;
    j["provenance"] = toString(p.provenance);
    j["relative_uncertainty"] = p.uncertainty;
    j["dp_sync_ms"] = p.dpMs;
    j["fixed_ms"] = p.fixedMs;
    j["pp_hop_ms"] = p.hopMs;
    j["key"] = p.key;
    j["idle_gpus"] = p.idleGpus;
    j["stages"] = nlohmann::json::array();
    const bool perMesh = p.perMesh();
    if (perMesh)
        j["meshes"] = "per-type";  // stages carry their own tp, dp and micro_batch
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
        const StagePlan& s = p.stages[i];
        nlohmann::json st;
        st["group"] = s.groupName;
        st["gpu_type"] = s.gpuType;
        st["slice"] = s.slice;
        if (perMesh) {  // a uniform plan's stages have the plan's shape
            const StageShape sh = p.shapeOf(i);
            st["tp"] = sh.tp;
            st["dp"] = sh.dp;
            st["micro_batch"] = sh.microBatch;
        }
        st["devices"] = s.devices;
        st["first_layer"] = s.firstLayer;
        st["layers"] = s.layers;
        st["recompute"] = toString(s.recompute);
        st["inflight_micro_batches"] = s.inflight;
        st["micro_batch_ms"] = s.timeMs;
        st["capacity_mib"] = s.capacityMiB;
        st["peak_mib"] = s.memory.totalMiB();
        st["memory_mib"] = {{"weights", s.memory.weightsMiB},     {"gradients", s.memory.gradientsMiB},
                            {"optimizer", s.memory.optimizerMiB}, {"activations", s.memory.activationsMiB},
                            {"framework", s.memory.frameworkMiB}, {"allocator", s.memory.allocatorMiB},
                            {"reserve", s.memory.reserveMiB}};
        st["allocated_mib"] = s.memory.allocatedMiB();
        st["reserved_mib"] = s.memory.reservedMiB();
        st["headroom"] = s.headroom();
        j["stages"].push_back(st);
    }
    return j;
}

namespace {
// What both documents say about their origin: tool, predictor and problem.
void origin(nlohmann::json& j, const Problem& problem, const std::string& predictor)
{
    j["tool_version"] = MEMX_VERSION;
    j["predictor"] = predictor;
    j["cluster"] = problem.cluster.toJson();
    j["model"] = problem.model.toJson();
    j["setup"] = TrainingSetupJson::write(problem.setup);
    // The precision the plan was predicted in ("auto" resolved over the
    // cluster's types), so that an exporter reading the file trains in it.
    try {
        j["setup"]["precision"] = toString(jobPrecision(problem));
    } catch (const std::exception&) {
        // a setup no search accepts: keep what the user wrote
    }
}
}  // namespace

nlohmann::json PlanJson::planDocument(const Problem& problem, const std::string& predictor, const Plan& p)
{
    nlohmann::json j = plan(p);
    origin(j, problem, predictor);
    return j;
}

namespace {

nlohmann::json objectiveJson(const Problem& problem, const SearchResult& r)
{
    nlohmann::json o
        = {{"profile_requested", toString(r.profileRequested)},
           {"profile_used", toString(r.profileUsed)},
           {"reason", r.profileReason},
           {"weights", {{"time", r.weights.time}, {"memory", r.weights.memory}, {"variance", r.weights.variance}}},
           {"variance", toString(r.varianceMode)},
           {"references",
            {{"time_ms", r.references.time},
             {"memory_mib", r.references.memory},
             {"variance", r.references.variance},
             {"epsilon", r.references.epsilon},
             {"epsilon_rule", toString(r.references.epsilonRule)}}}};
    if (r.compareTasks == TaskCompare::PerToken || !r.tasks.empty())
        o["compare_tasks"] = toString(r.compareTasks);
    if (r.perTokenSeqLen > 0)
        o["per_token_seq_len"] = r.perTokenSeqLen;
    if (r.references.epsilonRule == EpsilonRule::Uncertainty) {
        o["references"]["epsilon_uncertainty"] = r.references.epsilonUncertainty;
        o["references"]["epsilon_fullest"] = r.references.epsilonFullest;
    }
    // --compare: each profile's pick, with what it delivers and costs.
    if (r.profilePicks.size() >= 2) {
        nlohmann::json profiles = nlohmann::json::array();
        for (const auto& pb : r.profilePicks) {
            const PlanCost c = PlanCost::of(problem.cluster, pb.plan);
            const auto money = [](double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
            profiles.push_back(
                {{"profile", toString(pb.kind)},
                 {"weights",
                  {{"time", pb.weights.time}, {"memory", pb.weights.memory}, {"variance", pb.weights.variance}}},
                 {"key", pb.plan.key},
                 {"iteration_ms", pb.plan.iterationMs},
                 {"tokens_per_s", c.tokensPerS},
                 {"cost_per_hour", money(c.perHour)},
                 {"cost_per_million_tokens", money(c.perMillionTokens)}});
        }
        o["profiles"] = profiles;
    }
    if (r.constraints.any()) {
        nlohmann::json c;
        if (r.constraints.minHeadroom > 0)
            c["min_headroom"]
                = {{"fraction", r.constraints.minHeadroom}, {"at_upper_bound", r.constraints.headroomAtUpper}};
        if (r.constraints.maxSlowdown >= 0)
            c["max_slowdown"] = {{"fraction", r.constraints.maxSlowdown}, {"time_limit_ms", r.constraints.timeLimitMs}};
        o["constraints"] = c;
    }
    return o;
}

nlohmann::json statsJson(const SearchStats& st)
{
    return {{"skeletons", st.skeletons},
            {"explored", st.explored},
            {"feasible", st.feasible},
            {"search_nodes", st.searchNodes},
            {"pruned_by_rule", st.prunedByRule},
            {"phase2_evaluated", st.phase2Evaluated},
            {"phase2_pruned", st.phase2Pruned},
            {"cache_hits", st.cacheHits},
            {"cache_misses", st.cacheMisses},
            {"cache_resets", st.cacheResets},
            {"stage_rows_shared", st.rowHits},
            {"stage_rows_built", st.rowMisses},
            {"stage_row_cache_resets", st.rowResets},
            {"wall_s", st.wallS},
            {"candidates_per_s", st.candidatesPerS},
            {"threads", st.threads},
            {"sample_fraction", st.sampleFraction},
            {"feasible_shapes", st.feasibleShapes},
            {"plot_shapes", st.plotShapes}};
}

nlohmann::json tasksJson(const SearchResult& r)
{
    // Several training tasks ranked each on its own: each one's best (also
    // among the first entries of "best") with its own references.
    nlohmann::json a = nlohmann::json::array();
    for (const auto& t : r.tasks) {
        nlohmann::json tj = {{"task", t.label},
                             {"seq_len", t.seqLen},
                             {"query_groups", t.queryGroups},
                             {"found", t.found},
                             {"references",
                              {{"time_ms", t.references.time},
                               {"memory_mib", t.references.memory},
                               {"variance", t.references.variance},
                               {"epsilon", t.references.epsilon}}}};
        if (t.found) {
            tj["best_index"] = t.bestIndex;
            tj["key"] = t.plan.key;
            tj["iteration_ms"] = t.plan.iterationMs;
            tj["tokens_per_s"] = PlanCost::tokensPerSecond(t.plan);
            tj["phi"] = t.plan.phi;
            tj["fastest_ms"] = t.fastestMs;
        } else {
            tj["error"] = t.error;
        }
        if (!t.incomplete.empty())
            tj["incomplete"] = t.incomplete;
        a.push_back(std::move(tj));
    }
    return a;
}

nlohmann::json baselinesJson(const SearchResult& r)
{
    nlohmann::json a = nlohmann::json::array();
    for (const auto& b : r.baselines) {
        const BaselineInfo& info = baselineInfo(b.kind);
        a.push_back({{"planner", info.key},
                     {"name", info.name},
                     {"searches", info.searches},
                     {"leaves_out", info.leavesOut},
                     {"fits", b.fits},
                     {"same_plan_as_memx", b.samePlanAsMemX},
                     {"lowest_headroom", b.plan.minHeadroom()},
                     {"plan", PlanJson::plan(b.plan)}});
    }
    return a;
}

nlohmann::json candidatesJson(const SearchResult& r)
{
    // Every feasible plan when there are few, else a deterministic sample;
    // the fronts and the top lists above are always complete.
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& p : r.plotSample) {
        std::vector<double> peaks;
        for (const auto& s : p.stages)
            peaks.push_back(s.memory.totalMiB());
        candidates.push_back({{"iteration_ms", p.iterationMs},
                              {"max_mem_mib", p.maxMemMiB},
                              {"mem_variance", p.varMem},
                              {"phi", p.phi},
                              {"rank_phi", p.rankPhi},
                              {"rank_time", p.rankTime},
                              {"tp", p.tp},
                              {"pp", p.pp},
                              {"dp", p.dp},
                              {"micro_batch", p.microBatch},
                              {"seq_len", p.seqLen},
                              {"query_groups", p.queryGroups},
                              {"schedule", toString(p.schedule)},
                              {"virtual_stages", p.virtualStages},
                              {"order", p.orderString()},
                              {"layers", p.layersString()},
                              {"recompute", p.recomputeString()},
                              {"stage_peak_mib", peaks},
                              {"key", p.key}});
    }
    return candidates;
}

}  // namespace

nlohmann::json PlanJson::search(const Problem& problem, const SearchResult& r)
{
    nlohmann::json j;
    j["format"] = "memx-search/2";
    origin(j, problem, r.predictorName);
    j["objective"] = objectiveJson(problem, r);
    // What the recommendation costs against the fastest feasible plan.
    if (!r.best.empty() && !r.fastest.empty()) {
        const Plan& b = r.best.front();
        const Plan& f = r.fastest.front();
        j["price_vs_fastest"] = {{"fastest_ms", f.iterationMs},
                                 {"time_pct", 100 * (b.rankMs() / f.rankMs() - 1)},
                                 {"peak_memory_pct", 100 * (b.maxMemMiB / f.maxMemMiB - 1)},
                                 {"variance", {{"best", b.varMem}, {"fastest", f.varMem}}},
                                 {"lowest_headroom", {{"best", b.minHeadroom()}, {"fastest", f.minHeadroom()}}},
                                 {"is_fastest", b.key == f.key}};
    }
    j["stats"] = statsJson(r.stats);
    j["cancelled"] = r.cancelled;
    j["complete"] = r.incomplete.empty() && !r.cancelled;
    if (!r.incomplete.empty())
        j["incomplete"] = r.incomplete;
    if (!r.spaceCut.empty())
        j["space_cut"] = r.spaceCut;
    if (!r.error.empty())
        j["error"] = r.error;
    j["notes"] = r.notes;
    auto list = [](const std::vector<Plan>& plans) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& p : plans)
            a.push_back(plan(p));
        return a;
    };
    j["best"] = list(r.best);
    j["fastest"] = list(r.fastest);
    if (!r.tasks.empty())
        j["tasks"] = tasksJson(r);
    if (!r.baselines.empty())
        j["baselines"] = baselinesJson(r);
    auto front = [](const ParetoFront& f, const char* yName) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& pt : f.points())
            a.push_back({{"iteration_ms", pt.plan.iterationMs}, {yName, pt.y}, {"plan", plan(pt.plan)}});
        return a;
    };
    j["pareto_time_variance"] = front(r.paretoTimeVariance, "mem_variance");
    j["pareto_time_memory"] = front(r.paretoTimeMemory, "max_mem_mib");
    j["pareto_truncated"] = r.paretoTimeVariance.truncated() || r.paretoTimeMemory.truncated();
    j["candidates"] = candidatesJson(r);
    j["candidates_complete"] = r.plotSampleComplete;
    return j;
}

}  // namespace memx
