#include "accuracy/AccuracyEvaluator.h"
#include "io/Statistics.h"
#include "io/NumericConstants.h"

#include "measure/RunPlacement.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/LearnedPredictor.h"
#include "measure/MeasuredRun.h"
#include "measure/RunScenario.h"
#include "search/Objective.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace memx {

namespace {

std::string typesOf(const MeasuredRun& run)
{
    std::string out;
    for (const std::string& t : run.gpuTypes())
        out += (out.empty() ? "" : "+") + t;
    return out;
}

std::string groupKey(const MeasuredRun& run)
{
    const Measurement& c = run.config;
    std::string key = std::to_string(c.hidden) + "h" + std::to_string(c.numLayers) + "L/" + std::to_string(c.heads)
        + "a/ffn" + std::to_string(c.ffnHidden) + "/gbs" + std::to_string(c.gbs) + "/seq" + std::to_string(c.seqLen)
        + "/" + std::to_string(c.numGpus) + "gpu";
    if (c.mlp != MlpKind::SwiGlu)
        key += std::string("/") + toString(c.mlp);
    for (const std::string& t : run.gpuTypes())
        key += "/" + t;
    return key;
}

AccuracyMetrics::ErrorSummary errorsOf(const std::vector<RunScore>& scores, int which, int range)
{
    std::vector<double> p, m;
    for (const RunScore& s : scores) {
        if (range == 1 && !s.inRange)
            continue;
        if (range == 2 && s.inRange)
            continue;
        if (which == 0) {
            if (std::isnan(s.measuredIterationMs))
                continue;
            p.push_back(s.predictedIterationMs);
            m.push_back(s.measuredIterationMs);
        } else if (which == 1) {
            p.insert(p.end(), s.predictedStageMs.begin(), s.predictedStageMs.end());
            m.insert(m.end(), s.measuredStageMs.begin(), s.measuredStageMs.end());
        } else {
            p.insert(p.end(), s.predictedMemMiB.begin(), s.predictedMemMiB.end());
            m.insert(m.end(), s.measuredMemMiB.begin(), s.measuredMemMiB.end());
        }
    }
    return AccuracyMetrics::errors(p, m);
}

// One ranking decision: the planner chooses among configurations, so the
// repeats of one configuration are one choice, at the median of their
// measured times (and of their predictions, which agree unless the runs'
// clusters differ). A run without a configuration key is its own choice.
void addDecision(DecisionReport& decisions, const std::string& group, const std::vector<RunScore*>& members)
{
    const auto median = [](std::vector<double> v) {
        std::erase_if(v, [](double x) { return !std::isfinite(x); });
        return v.empty() ? kNaN : Statistics::median(std::move(v));
    };
    std::map<std::string, std::vector<const RunScore*>> ofConfiguration;
    std::vector<std::string> order;
    for (const RunScore* s : members) {
        const std::string k = s->configuration.empty() ? "run " + s->runId : s->configuration;
        auto& runs = ofConfiguration[k];
        if (runs.empty())
            order.push_back(k);
        runs.push_back(s);
    }
    std::vector<std::string> names;
    std::vector<double> pt, mt;
    for (const std::string& k : order) {
        const auto& runs = ofConfiguration[k];
        std::vector<double> p, m;
        for (const RunScore* s : runs) {
            p.push_back(s->predictedRankMs);
            if (s->measuredRankMs > 0)
                m.push_back(s->measuredRankMs);
        }
        names.push_back(runs.size() == 1
                            ? runs.front()->runId
                            : runs.front()->runId + " and " + std::to_string(runs.size() - 1) + " repeat(s), median");
        pt.push_back(median(p));
        mt.push_back(median(m));
    }
    decisions.add(group, names, pt, mt);
}

// Spearman and Kendall over groups, each group weighted by its size.
struct RankAgreement {
    double weight = 0, rho = 0, tau = 0;
    void add(const std::vector<double>& predicted, const std::vector<double>& measured)
    {
        const double r = AccuracyMetrics::spearman(predicted, measured);
        const double t = AccuracyMetrics::kendallTau(predicted, measured);
        if (std::isnan(r) || std::isnan(t))
            return;
        const double n = static_cast<double>(predicted.size());
        rho += n * r;
        tau += n * t;
        weight += n;
    }
    double spearman() const { return weight > 0 ? rho / weight : kNaN; }
    double kendall() const { return weight > 0 ? tau / weight : kNaN; }
};

nlohmann::json summaryJson(const AccuracyMetrics::ErrorSummary& s)
{
    const auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    return {{"n", s.n},
            {"mape_pct", num(s.mape)},
            {"good_share", num(s.goodShare)},
            {"severe_share", num(s.severeShare)},
            {"max_pct", num(s.maxAbsPct)},
            {"median_pct", num(s.medianAbsPct)}};
}

}  // namespace

AccuracyReport AccuracyEvaluator::evaluate(const std::vector<Measurement>& truth, const std::string& file,
                                           const GpuCatalog& catalog, std::shared_ptr<const Predictor> predictor,
                                           const LearnedPredictor* rangeOf, RunPlacement* placement)
{
    RunPlacement synthetic;
    RunPlacement& place = placement ? *placement : synthetic;
    if (!predictor)
        predictor = std::make_shared<AnalyticPredictor>();
    AccuracyReport report;
    report.predictor = predictor->name();
    for (const MeasuredRun& run : MeasuredRun::group(truth, file, &report.skipped)) {
        std::optional<RunPrediction> predicted = place.predict(run, file, catalog, predictor, report.skipped);
        if (!predicted)
            continue;
        RunPrediction pred = std::move(*predicted);
        RunScore s;
        s.runId = run.runId;
        s.group = groupKey(run);
        s.configuration = run.configurationKey();
        s.gpuTypes = typesOf(run);
        s.measuredIterationMs = run.iterationTimeMs.value_or(kNaN);
        s.predictedIterationMs = pred.iterationMs();
        s.uncertainty = pred.uncertainty();
        s.microBatch = run.config.mbs;
        s.pp = run.config.pp;
        s.seqLen = run.config.seqLen;
        const int G = std::max(1, pred.plan.microBatchCount);
        bool allMemory = true;
        for (std::size_t i = 0; i < run.stages.size(); ++i) {
            const MeasuredStage& ms = run.stages[i];
            const StagePlan& sp = pred.plan.stages[i];
            if (ms.stageTimeMs) {
                s.measuredStageMs.push_back(*ms.stageTimeMs);
                s.predictedStageMs.push_back(sp.timeMs * G);
            }
            if (ms.peakMemMiB) {
                s.measuredMemMiB.push_back(*ms.peakMemMiB);
                s.predictedMemMiB.push_back(sp.memory.ofKind(run.config.peakMemKind));
            } else {
                allMemory = false;
            }
            if (rangeOf && rangeOf->rangeExcess(pred.queries[i]) > 0)
                s.inRange = false;
        }
        if (run.runPeakMemMiB && !allMemory) {
            s.measuredMemMiB.push_back(*run.runPeakMemMiB);
            s.predictedMemMiB.push_back(pred.peakMemMiB(run.config.peakMemKind));
        }
        s.measuredRankMs = s.measuredIterationMs;
        s.predictedRankMs = s.predictedIterationMs;
        if (std::isnan(s.measuredRankMs) && !s.measuredStageMs.empty()) {
            s.measuredRankMs = s.predictedRankMs = 0;
            for (std::size_t k = 0; k < s.measuredStageMs.size(); ++k) {
                s.measuredRankMs += s.measuredStageMs[k];
                s.predictedRankMs += s.predictedStageMs[k];
            }
        }
        s.measuredPhi = s.predictedPhi = kNaN;
        s.allStagesMeasured = allMemory && !s.measuredMemMiB.empty();
        report.scores.push_back(std::move(s));
    }
    return summarise(std::move(report));
}

namespace {

// The error summaries: overall, in and out of the training range, per GPU
// type and per subset, and the floors the repeats set.
void summariseErrors(AccuracyReport& report)
{
    report.iterationTime = errorsOf(report.scores, 0, 0);
    report.stageTime = errorsOf(report.scores, 1, 0);
    report.memory = errorsOf(report.scores, 2, 0);
    report.iterationTimeInRange = errorsOf(report.scores, 0, 1);
    report.iterationTimeOutOfRange = errorsOf(report.scores, 0, 2);
    report.stageTimeInRange = errorsOf(report.scores, 1, 1);
    report.stageTimeOutOfRange = errorsOf(report.scores, 1, 2);
    report.memoryInRange = errorsOf(report.scores, 2, 1);
    report.memoryOutOfRange = errorsOf(report.scores, 2, 2);
    // The repeats of each configuration, and the runs of each GPU type.
    std::vector<std::pair<std::string, double>> times, peaks;
    std::map<std::string, std::vector<RunScore>> ofType;
    for (const RunScore& s : report.scores) {
        if (!s.configuration.empty() && !std::isnan(s.measuredIterationMs))
            times.emplace_back(s.configuration, s.measuredIterationMs);
        for (std::size_t k = 0; k < s.measuredMemMiB.size() && !s.configuration.empty(); ++k)
            peaks.emplace_back(s.configuration + "#" + std::to_string(k), s.measuredMemMiB[k]);
        if (!s.gpuTypes.empty())
            ofType[s.gpuTypes].push_back(s);
    }
    report.byGpuType.clear();
    for (const auto& [type, runs] : ofType)
        report.byGpuType[type] = {errorsOf(runs, 0, 0), errorsOf(runs, 1, 0), errorsOf(runs, 2, 0)};
    report.bySubset.clear();
    const std::pair<const char*, int RunScore::*> subsets[]
        = {{"micro_batch", &RunScore::microBatch}, {"pp", &RunScore::pp}, {"seq_len", &RunScore::seqLen}};
    for (const auto& [name, field] : subsets) {
        std::map<int, std::vector<RunScore>> ofValue;
        for (const RunScore& s : report.scores)
            if (s.*field > 0)
                ofValue[s.*field].push_back(s);
        for (const auto& [value, runs] : ofValue)
            report.bySubset[name][value] = {errorsOf(runs, 0, 0), errorsOf(runs, 1, 0), errorsOf(runs, 2, 0)};
    }
    report.iterationTimeFloor = RepeatFloor::of(times);
    report.memoryFloor = RepeatFloor::of(peaks);
}

// Phi of the measured runs whose every stage memory was measured, under the
// references of the measured runs; false when fewer than three are.
bool phiOfGroup(const std::vector<RunScore*>& members, std::vector<double>& phiM, std::vector<double>& phiP)
{
    std::vector<RunScore*> full;
    for (RunScore* s : members)
        if (s->allStagesMeasured)
            full.push_back(s);
    if (full.size() < 3)
        return false;
    std::vector<double> T, M, V, Tp, Mp, Vp;
    for (RunScore* s : full) {
        T.push_back(s->measuredRankMs);
        M.push_back(*std::max_element(s->measuredMemMiB.begin(), s->measuredMemMiB.end()));
        V.push_back(Statistics::variance(s->measuredMemMiB));
        Tp.push_back(s->predictedRankMs);
        Mp.push_back(*std::max_element(s->predictedMemMiB.begin(), s->predictedMemMiB.end()));
        Vp.push_back(Statistics::variance(s->predictedMemMiB));
    }
    // The references of the measured runs; measured memory carries no
    // prediction uncertainty, so eV is the paper's (Objective::epsilon).
    References ref;
    ref.time = Statistics::median(T);
    ref.memory = Statistics::median(M);
    ref.variance = Statistics::median(V);
    ref.epsilon = Objective::epsilon(ObjectiveSpec{}, ref.variance, 0.0, ref.memory) + 1e-9;
    const Weights w = weightsOf(WeightProfile::Default);
    for (std::size_t i = 0; i < full.size(); ++i) {
        phiM.push_back(Objective::phi(T[i], M[i], V[i], ref, w));
        phiP.push_back(Objective::phi(Tp[i], Mp[i], Vp[i], ref, w));
        full[i]->measuredPhi = phiM.back();
        full[i]->predictedPhi = phiP.back();
    }
    return true;
}

// Ranking within groups: by time over every group of three or more runs, by
// Phi over those whose stage memories were all measured.
void rankWithinGroups(AccuracyReport& report)
{
    std::map<std::string, std::vector<RunScore*>> groups;
    for (RunScore& s : report.scores)
        if (!std::isnan(s.measuredRankMs))
            groups[s.group].push_back(&s);
    const std::vector<int> ks = {1, 3, 5, 10};
    RankAgreement byTime, byPhi;
    std::map<int, double> hitT, hitP;
    report.decisions = {};
    for (auto& [key, members] : groups) {
        addDecision(report.decisions, key, members);
        std::vector<double> mt, pt;
        for (const RunScore* s : members) {
            mt.push_back(s->measuredRankMs);
            pt.push_back(s->predictedRankMs);
        }
        if (members.size() < 3)
            continue;
        byTime.add(pt, mt);
        ++report.rankedGroups;
        for (const auto& [k, hit] : AccuracyMetrics::topKHits(pt, mt, ks))
            hitT[k] += hit ? 1 : 0;
        std::vector<double> phiM, phiP;
        if (!phiOfGroup(members, phiM, phiP))
            continue;
        ++report.phiGroups;
        for (const auto& [k, hit] : AccuracyMetrics::topKHits(phiP, phiM, ks))
            hitP[k] += hit ? 1 : 0;
        byPhi.add(phiP, phiM);
    }
    report.spearman = byTime.spearman();
    report.kendall = byTime.kendall();
    report.spearmanPhi = byPhi.spearman();
    report.kendallPhi = byPhi.kendall();
    for (int k : ks) {
        report.topKTime[k] = report.rankedGroups ? hitT[k] / report.rankedGroups : kNaN;
        report.topKPhi[k] = report.phiGroups ? hitP[k] / report.phiGroups : kNaN;
    }
}

}  // namespace

AccuracyReport AccuracyEvaluator::summarise(AccuracyReport report)
{
    report.runs = report.scores.size();
    summariseErrors(report);
    rankWithinGroups(report);
    return report;
}

nlohmann::json AccuracyReport::toJson() const
{
    const auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    nlohmann::json j;
    j["format"] = "memx-accuracy/1";
    j["predictor"] = predictor;
    j["runs"] = runs;
    j["iteration_time"] = summaryJson(iterationTime);
    j["stage_time"] = summaryJson(stageTime);
    j["memory"] = summaryJson(memory);
    j["iteration_time_in_range"] = summaryJson(iterationTimeInRange);
    j["iteration_time_out_of_range"] = summaryJson(iterationTimeOutOfRange);
    j["stage_time_in_range"] = summaryJson(stageTimeInRange);
    j["stage_time_out_of_range"] = summaryJson(stageTimeOutOfRange);
    j["memory_in_range"] = summaryJson(memoryInRange);
    j["memory_out_of_range"] = summaryJson(memoryOutOfRange);
    j["ranked_groups"] = rankedGroups;
    j["spearman"] = num(spearman);
    j["kendall_tau"] = num(kendall);
    for (const auto& [k, v] : topKTime)
        j["top_k_time"][std::to_string(k)] = num(v);
    j["phi_groups"] = phiGroups;
    j["spearman_phi"] = num(spearmanPhi);
    j["kendall_tau_phi"] = num(kendallPhi);
    for (const auto& [k, v] : topKPhi)
        j["top_k_phi"][std::to_string(k)] = num(v);
    for (const auto& [name, values] : bySubset)
        for (const auto& [value, e] : values)
            j["by_subset"][name][std::to_string(value)] = {{"iteration_time", summaryJson(e.iterationTime)},
                                                           {"stage_time", summaryJson(e.stageTime)},
                                                           {"memory", summaryJson(e.memory)}};
    j["decisions"] = decisions.toJson();
    const auto floorJson = [](const RepeatFloor& f) {
        return nlohmann::json{{"n", f.n},
                              {"configurations", f.configurations},
                              {"repeated", f.repeated},
                              {"mape_pct", f.mapePct}};
    };
    for (const auto& [type, e] : byGpuType)
        j["by_gpu_type"][type] = {{"iteration_time", summaryJson(e.iterationTime)},
                                  {"stage_time", summaryJson(e.stageTime)},
                                  {"memory", summaryJson(e.memory)}};
    j["repeat_floor"] = {{"iteration_time", floorJson(iterationTimeFloor)}, {"memory", floorJson(memoryFloor)}};
    j["skipped"] = skipped;
    nlohmann::json rows = nlohmann::json::array();
    for (const RunScore& s : scores)
        rows.push_back({{"run_id", s.runId},
                        {"group", s.group},
                        {"measured_iteration_ms", num(s.measuredIterationMs)},
                        {"predicted_iteration_ms", s.predictedIterationMs},
                        {"measured_stage_ms", s.measuredStageMs},
                        {"predicted_stage_ms", s.predictedStageMs},
                        {"measured_mem_mib", s.measuredMemMiB},
                        {"predicted_mem_mib", s.predictedMemMiB},
                        {"in_range", s.inRange},
                        {"uncertainty", s.uncertainty}});
    j["scores"] = rows;
    return j;
}

std::string AccuracyReport::formatText() const
{
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "predictor %s, %zu runs scored, %zu skipped\n", predictor.c_str(), runs,
                  skipped.size());
    out += buf;
    out += "metric                         n     MAPE%   good<20%  severe>50%   max%\n";
    const auto line = [&](const char* name, const Summary& s) {
        if (s.n == 0) {
            std::snprintf(buf, sizeof buf, "%-28s %4zu        -\n", name, s.n);
        } else {
            std::snprintf(buf, sizeof buf, "%-28s %4zu  %8.2f  %8.1f%%  %9.1f%%  %6.1f\n", name, s.n, s.mape,
                          100 * s.goodShare, 100 * s.severeShare, s.maxAbsPct);
        }
        out += buf;
    };
    line("iteration time", iterationTime);
    line("  inside training range", iterationTimeInRange);
    line("  outside training range", iterationTimeOutOfRange);
    line("stage time", stageTime);
    line("  inside training range", stageTimeInRange);
    line("  outside training range", stageTimeOutOfRange);
    line("peak memory", memory);
    line("  inside training range", memoryInRange);
    line("  outside training range", memoryOutOfRange);
    const auto floorLine = [&](const char* what, const RepeatFloor& f) {
        if (f.repeated == 0)
            return;
        std::snprintf(buf, sizeof buf,
                      "repeats: %zu of %zu configurations measured more than once differ in %s; exact answers per "
                      "configuration would still score %.2f%% MAPE on these runs\n",
                      f.repeated, f.configurations, what, f.mapePct);
        out += buf;
    };
    // "  <label>: iteration time 3.10 (12), stage time ..., peak memory ..."
    const auto errorsLine = [&](const std::string& label, const TypeErrors& e) {
        std::string parts;
        const auto part = [&](const char* what, const Summary& s) {
            if (s.n == 0)
                return;
            std::snprintf(buf, sizeof buf, "%s%s %.2f (%zu)", parts.empty() ? "" : ", ", what, s.mape, s.n);
            parts += buf;
        };
        part("iteration time", e.iterationTime);
        part("stage time", e.stageTime);
        part("peak memory", e.memory);
        out += "  " + label + ": " + parts + "\n";
    };
    if (byGpuType.size() > 1) {
        out += "by GPU type (MAPE %, n):\n";
        for (const auto& [type, e] : byGpuType)
            errorsLine(type, e);
    }
    for (const auto& [name, values] : bySubset) {
        if (values.size() < 2)
            continue;  // one value: the overall figures above
        out += "by "
            + std::string(name == "micro_batch" ? "micro-batch size"
                              : name == "pp"    ? "PP"
                                                : "sequence length")
            + " (MAPE %, n):\n";
        for (const auto& [value, e] : values)
            errorsLine(name == "micro_batch" ? "mbs " + std::to_string(value)
                           : name == "pp"    ? "PP " + std::to_string(value)
                                             : "seq " + std::to_string(value),
                       e);
    }
    floorLine("iteration time", iterationTimeFloor);
    floorLine("peak memory", memoryFloor);
    if (rankedGroups > 0) {
        std::snprintf(buf, sizeof buf,
                      "ranking over %zu group(s): Spearman %.3f, Kendall tau %.3f; top-1/3/5/10 hits (time) "
                      "%.0f%%/%.0f%%/%.0f%%/%.0f%%\n",
                      rankedGroups, spearman, kendall, 100 * topKTime.at(1), 100 * topKTime.at(3), 100 * topKTime.at(5),
                      100 * topKTime.at(10));
        out += buf;
    }
    if (phiGroups > 0) {
        std::snprintf(buf, sizeof buf,
                      "ranking under Phi (default weights) over %zu group(s): Spearman %.3f, Kendall tau %.3f; "
                      "top-1/3/5/10 hits %.0f%%/%.0f%%/%.0f%%/%.0f%%\n",
                      phiGroups, spearmanPhi, kendallPhi, 100 * topKPhi.at(1), 100 * topKPhi.at(3), 100 * topKPhi.at(5),
                      100 * topKPhi.at(10));
        out += buf;
    }
    out += decisions.formatText();
    for (const std::string& s : skipped)
        out += "skipped " + s + "\n";
    return out;
}

}  // namespace memx
