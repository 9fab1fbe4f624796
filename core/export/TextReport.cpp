#include "export/TextReport.h"

#include "io/Text.h"

#include "search/PlanCost.h"
#include "search/PlanExplanation.h"
#include "search/ProfileComparison.h"
#include "search/SearchResult.h"
#include "space/Problem.h"
#include "space/JobPrecision.h"

#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace memx {

namespace {

// A count of candidates; the search's counts saturate at 2^64 - 1.
std::string countText(std::uint64_t n)
{
    return n == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 1.8e19") : std::to_string(n);
}

// For the report's prose: exact below ten billion, beyond "about 1.0e18"
// (nobody reads nineteen digits); --stats keeps the exact count.
std::string readableCount(std::uint64_t n)
{
    if (n < 10000000000ULL || n == std::numeric_limits<std::uint64_t>::max())
        return countText(n);
    int exponent = 0;
    double mantissa = static_cast<double>(n);
    while (mantissa >= 9.95) {
        mantissa /= 10;
        ++exponent;
    }
    return "about " + Text::fmt("%.1f", mantissa) + "e" + std::to_string(exponent);
}

// "TP=4 PP=2 DP=1 mbs=1", or for a per-mesh plan
// "PP=3 meshes A100 TP 4 x DP 1, mbs 2 | V100 TP 8 x DP 2, mbs 1".
std::string shapeWords(const Plan& p)
{
    if (p.perMesh())
        return "PP=" + std::to_string(p.pp) + " meshes " + p.shapeString();
    return "TP=" + std::to_string(p.tp) + " PP=" + std::to_string(p.pp) + " DP=" + std::to_string(p.dp)
        + " mbs=" + std::to_string(p.microBatch);
}

}  // namespace

namespace {
std::string pad(std::string s, std::size_t w) { return Text::pad(std::move(s), w); }
// --compare-tasks per-token over several sequence lengths: times rank per token.
bool perToken(const SearchResult& r) { return r.perTokenSeqLen > 0; }
std::string rpad(std::string s, std::size_t w) { return Text::rpad(std::move(s), w); }
std::string varianceText(const SearchResult& r, double v)
{
    return r.varianceMode == VarianceMode::AbsoluteMiB ? Text::fmt("%.2f", v / (1024.0 * 1024.0))
                                                       : Text::fmt("%.4f", v);
}
}  // namespace

std::string TextReport::epsilonLine(const SearchResult& r)
{
    const std::string unit = r.varianceMode == VarianceMode::AbsoluteMiB ? " GiB^2" : " (utilisation^2)";
    return "eV=" + varianceText(r, r.references.epsilon) + unit + ": " + PlanExplanation::epsilonReason(r) + "\n";
}

std::string TextReport::constraintsLine(const SearchResult& r)
{
    const auto& c = r.constraints;
    if (!c.any())
        return {};
    std::string out = "Constraints (before Phi ranks):";
    if (c.minHeadroom > 0)
        out += " every GPU keeps >= " + Text::fmt("%g", 100 * c.minHeadroom) + "% of its memory free"
            + (c.headroomAtUpper ? " at the prediction's upper bound" : "") + (c.maxSlowdown >= 0 ? ";" : "");
    if (c.maxSlowdown >= 0)
        out += " at most " + Text::fmt("%g", 100 * c.maxSlowdown)
            + "% slower than the fastest feasible plan (<= " + Text::fmt("%.1f", c.timeLimitMs) + " ms)";
    return out + "\n";
}

std::string TextReport::priceLine(const SearchResult& r)
{
    if (r.best.empty() || r.fastest.empty())
        return {};
    const Plan& best = r.best.front();
    const Plan& fastest = r.fastest.front();
    if (best.key == fastest.key)
        return "Plan 1 is the fastest feasible plan.\n";
    return "Plan 1 against the fastest feasible plan (" + Text::fmt("%.1f", fastest.iterationMs)
        + " ms): " + ProfileComparison::differences(fastest, best, r.varianceMode) + "\n";
}

std::string TextReport::precisionLine(const Problem& problem)
{
    const std::string& setting = problem.setup.precision;
    try {
        const Precision p = jobPrecision(problem);
        // fp32 training's GEMM math, which the image would otherwise decide.
        const char* math = p == Precision::Fp32
            ? "; IEEE fp32 GEMMs on the CUDA cores: the scripts turn TF32 off, which NVIDIA's PyTorch containers "
              "turn on (tf32 predicts that)"
            : p == Precision::Tf32 ? "; fp32 training with TF32 GEMMs: the scripts turn TF32 on"
                                   : "";
        if (setting != "auto" && !setting.empty())
            return std::string(toString(p)) + " (chosen" + math + ")";
        std::string lacking;
        if (p != Precision::Bf16)
            for (const GpuType& t : problem.cluster.types())
                if (!t.hasPrecision(Precision::Bf16))
                    lacking += std::string(lacking.empty() ? "" : ", ") + t.name;
        return std::string(toString(p)) + " (auto" + (lacking.empty() ? "" : ": no bf16 on " + lacking) + math + ")";
    } catch (const std::exception& e) {
        return setting + " (" + e.what() + ")";
    }
}

std::string TextReport::attentionLine(const Problem& problem)
{
    const TrainingSetup& s = problem.setup;
    bool flash = s.flashAttention;
    std::string why;
    std::string without;  // types that run the unfused core although FlashAttention was asked for
    std::size_t with = 0;
    try {
        flash = flashAttentionRuns(s.flashAttention, jobPrecision(problem));
        if (s.flashAttention && !flash)
            why = ", no FlashAttention in " + std::string(toString(jobPrecision(problem)));
        for (const GpuType& t : problem.cluster.types()) {
            if (!flash || t.hasFlashAttention())
                ++with;
            else
                without += std::string(without.empty() ? "" : ", ") + t.name;
        }
    } catch (const std::exception&) {
        // the precision line says why it does not resolve
    }
    const std::string needs = "FlashAttention needs Ampere or newer";
    if (flash && with == 0) {  // asked for, but no GPU of the cluster has it
        flash = false;
        why = ", " + needs + ": " + without;
        without.clear();
    }
    std::string out = flash ? "FlashAttention" : "unfused (s x s scores kept" + why + ")";
    if (!without.empty())
        out += " (unfused, s x s scores kept, on " + without + ": " + needs + ")";
    if (s.attentionDropout <= 0 && s.hiddenDropout <= 0)
        return out + ", no dropout";
    out += ", dropout attention " + Text::shortest(s.attentionDropout) + " / hidden " + Text::shortest(s.hiddenDropout);
    const Dropout d = s.dropout();
    const bool scoresMasked = d.attention && !flash;
    if (scoresMasked && d.hidden)
        out += " (keeps a mask of the attention scores and two hidden masks per layer)";
    else if (scoresMasked)
        out += " (keeps a mask of the attention scores)";
    else if (d.hidden)
        out += " (keeps two hidden masks per layer)";
    else
        out += " (FlashAttention keeps no mask)";
    return out;
}

std::string TextReport::table(const Problem& problem, const SearchResult& r, std::size_t top)
{
    std::string out;
    if (!r.incomplete.empty())
        out += "INCOMPLETE: " + r.incomplete
            + ".\nThe plans below are the best found so far, not necessarily the best "
              "of the space.\n";
    if (!r.spaceCut.empty())
        out += "PART OF THE SPACE: " + r.spaceCut
            + ".\nThe plans below are the best of the part searched, not "
              "necessarily the best of the space (narrow it: --tp, --mbs, --max-pp, fewer GPU types, or --meshes "
              "uniform"
            + std::string(r.spaceCut.find("per-type mesh skeletons capped") != std::string::npos
                              ? "; or search more of it: --mesh-skeletons N, the time grows about in proportion"
                              : "")
            + ").\n";
    out += "MemX plan for " + problem.model.name + " on " + problem.cluster.name() + " ("
        + std::to_string(problem.cluster.deviceCount()) + " GPUs), global batch "
        + std::to_string(problem.setup.globalBatch) + ", predictor " + r.predictorName + "\n";
    out += "Precision: " + precisionLine(problem) + "\n";
    out += "Attention: " + attentionLine(problem) + "\n";
    out += "Objective: " + std::string(toString(r.profileUsed)) + " (wT=" + Text::fmt("%.2f", r.weights.time)
        + ", wM=" + Text::fmt("%.2f", r.weights.memory) + ", wV=" + Text::fmt("%.2f", r.weights.variance) + ")";
    if (r.profileRequested == WeightProfile::Auto)
        out += ", chosen by auto: " + r.profileReason;
    else if (r.profileUsed == WeightProfile::Balanced)
        out += ", picks " + r.profileReason + "; Phi under the default weights";
    out += "\nReferences (medians of "
        + (r.referencesOf.empty() ? readableCount(r.stats.feasible) + " feasible plans" : r.referencesOf)
        + "): T=" + Text::fmt("%.1f", r.references.time)
        + (perToken(r) ? " ms per " + std::to_string(r.perTokenSeqLen) + "-token-sequence iteration"
                       : std::string(" ms"))
        + ", M=" + Text::fmt("%.2f", r.references.memory / 1024) + " GiB, V=" + varianceText(r, r.references.variance)
        + (r.varianceMode == VarianceMode::AbsoluteMiB ? " GiB^2" : " (utilisation^2)") + "\n";
    out += epsilonLine(r) + constraintsLine(r) + priceLine(r) + "\n";
    std::string vHead = r.varianceMode == VarianceMode::AbsoluteMiB ? "V(GiB^2)" : "V(util^2)";
    // Per-mesh plans list a value per mesh ("4|2"): their columns widen to fit.
    // Long stage orders, layer splits and recompute lists (many stages) widen theirs.
    std::size_t wTp = 3, wDp = 3, wMbs = 4, wOrder = 34, wLayers = 20, wRecomp = 12;
    for (std::size_t k = 0; k < std::min(top, r.best.size()); ++k) {
        wOrder = std::max(wOrder, r.best[k].orderString().size() + 1);
        wLayers = std::max(wLayers, r.best[k].layersString().size() + 1);
        wRecomp = std::max(wRecomp, r.best[k].recomputeString().size() + 1);
        wTp = std::max(wTp, r.best[k].meshValues(&StageShape::tp).size() + 1);
        wDp = std::max(wDp, r.best[k].meshValues(&StageShape::dp).size() + 1);
        wMbs = std::max(wMbs, r.best[k].meshValues(&StageShape::microBatch).size() + 1);
    }
    out += pad("#", 4) + pad("TP", wTp) + pad("PP", 3) + pad("DP", wDp) + pad("mbs", wMbs) + pad("seq", 6)
        + pad("sched", 9) + pad("stage order", wOrder) + pad("layers", wLayers) + pad("recomp", wRecomp)
        + rpad("T(ms)", 10) + rpad("tok/s", 9) + rpad("M(GiB)", 8) + rpad(vHead, 10) + rpad("Phi", 8) + " "
        + rpad("rankT", 7) + "  per-stage peak GiB\n";
    std::size_t n = 0;
    for (const auto& p : r.best) {
        if (n++ >= top)
            break;
        std::string sched = p.schedule == Schedule::OneF1B ? "1f1b" : "int(v=" + std::to_string(p.virtualStages) + ")";
        std::string peaks;
        for (const auto& s : p.stages)
            peaks += (peaks.empty() ? "" : " ") + Text::fmt("%.1f", s.memory.totalMiB() / 1024);
        out += pad(std::to_string(p.rankPhi), 4) + pad(p.meshValues(&StageShape::tp), wTp)
            + pad(std::to_string(p.pp), 3) + pad(p.meshValues(&StageShape::dp), wDp)
            + pad(p.meshValues(&StageShape::microBatch), wMbs) + pad(std::to_string(p.seqLen), 6) + pad(sched, 9)
            + pad(p.orderString(), wOrder) + pad(p.layersString(), wLayers) + pad(p.recomputeString(), wRecomp)
            + rpad(Text::fmt("%.1f", p.iterationMs), 10) + rpad(Text::fmt("%.0f", PlanCost::tokensPerSecond(p)), 9)
            + rpad(Text::fmt("%.2f", p.maxMemMiB / 1024), 8) + rpad(varianceText(r, p.varMem), 10)
            + rpad(Text::fmt("%.4f", p.phi), 8)
            // A space of its own: an approximate rank ("~105046") fills the column.
            + " " + rpad((p.ranksApproximate ? "~" : "") + std::to_string(p.rankTime), 7) + "  " + peaks + "\n";
    }
    out += "\nRecompute: N none, S selective, F full (per stage, in pipeline order). Stage order: group#slice, or nodes joined by + for a stage over whole nodes.\n";
    if (std::any_of(r.best.begin(), r.best.begin() + static_cast<std::ptrdiff_t>(std::min(top, r.best.size())),
                    [](const Plan& p) { return p.perMesh(); }))
        out += "Per-mesh plans (FlagScale process meshes) give each mesh's TP, DP and mbs in pipeline order, joined by |.\n";
    if (r.tasks.size() > 1)
        out += "Several training tasks: the plans take each task's ranking in turn; # and rankT are within the plan's "
               "own task (its seq and query groups).\n";
    if (!r.fastest.empty()) {
        const Plan& f = r.fastest.front();
        std::string of = perToken(r) ? "per token (most tokens/s)" : "overall";
        for (const auto& t : r.tasks)
            if (t.found && t.bestIndex == 0)
                of = "of " + t.label;
        out += "Fastest plan " + of + ": " + Text::fmt("%.1f", f.iterationMs) + " ms (Phi rank "
            + (f.ranksApproximate ? "~" : "") + std::to_string(f.rankPhi) + "), " + shapeWords(f) + " layers "
            + f.layersString() + " recompute " + f.recomputeString() + "\n";
    }
    return out;
}

std::string TextReport::baselines(const SearchResult& r)
{
    if (r.baselines.empty())
        return {};
    const Plan& memx = r.baselines.back().plan;
    std::string vHead = r.varianceMode == VarianceMode::AbsoluteMiB ? "V(GiB^2)" : "V(util^2)";
    std::string out = "\nBaselines on the same space, predictor and memory model (Phi and ranks under "
        + std::string(toString(r.profileUsed)) + "):\n";
    out += "  " + pad("planner", 38) + pad("TP", 3) + pad("PP", 3) + pad("DP", 3) + pad("mbs", 4) + pad("layers", 24)
        + pad("recomp", 18) + rpad("T(ms)", 10) + rpad("vs MemX", 8) + rpad("M(GiB)", 8) + rpad(vHead, 10)
        + rpad("Phi", 8) + rpad("headroom", 9) + rpad("rankT", 14) + rpad("rankPhi", 14) + "  fits\n";
    for (const auto& b : r.baselines) {
        const Plan& p = b.plan;
        auto rank = [&](std::uint64_t n) {
            return n == 0 ? std::string("-") : (p.ranksApproximate ? "~" : "") + std::to_string(n);
        };
        std::string fits = b.fits ? "yes" : "OOM: exceeds memory on";
        if (!b.fits)
            for (std::size_t i = 0; i < p.stages.size(); ++i)
                if (p.stages[i].headroom() < 0)
                    fits += " stage " + std::to_string(i) + " ("
                        + Text::fmt("%.1f", p.stages[i].memory.totalMiB() / 1024) + " / "
                        + Text::fmt("%.1f", p.stages[i].capacityMiB / 1024) + " GiB)";
        if (b.kind != BaselineKind::MemX && b.samePlanAsMemX)
            fits += ", the same plan as MemX's";
        out += "  " + pad(baselineInfo(b.kind).name, 38) + pad(std::to_string(p.tp), 3) + pad(std::to_string(p.pp), 3)
            + pad(std::to_string(p.dp), 3) + pad(std::to_string(p.microBatch), 4) + pad(p.layersString() + " ", 24)
            + pad(p.recomputeString() + " ", 18) + rpad(Text::fmt("%.1f", p.iterationMs), 10)
            + rpad(b.kind == BaselineKind::MemX ? ""
                                                : Text::fmt("%+.1f%%", 100 * (p.iterationMs / memx.iterationMs - 1)),
                   8)
            + rpad(Text::fmt("%.2f", p.maxMemMiB / 1024), 8) + rpad(varianceText(r, p.varMem), 10)
            + rpad(Text::fmt("%.4f", p.phi), 8) + rpad(Text::fmt("%.0f%%", 100 * p.minHeadroom()), 9)
            + rpad(" " + rank(p.rankTime), 14) + rpad(" " + rank(p.rankPhi), 14) + "  " + fits + "\n";
    }
    out += "  Ranks are among the feasible plans of the space; a plan that does not fit has none (-). What each "
           "planner searches:\n";
    for (const auto& b : r.baselines)
        out += "    " + std::string(baselineInfo(b.kind).name) + ": " + baselineInfo(b.kind).searches
            + "; not: " + baselineInfo(b.kind).leavesOut + ".\n";
    return out;
}

std::string TextReport::planDetail(const Problem& problem, const SearchResult& r)
{
    if (r.best.empty())
        return {};
    const Plan& p = r.best.front();
    std::string out = "\nBest plan in detail (" + std::string(toString(p.provenance)) + " prediction, +-"
        + Text::fmt("%.0f", 100 * p.uncertainty) + "%):\n";
    out += "  iteration " + Text::fmt("%.1f", p.iterationMs) + " ms = " + std::to_string(p.microBatchCount)
        + " micro-batches through " + std::to_string(p.pp) + " stages; DP sync " + Text::fmt("%.1f", p.dpMs) + " ms"
        + (p.dp > 1 && problem.setup.overlapGradReduce
               ? (problem.setup.overlapParamGather ? " not hidden by backward and forward" : " not hidden by backward")
               : "")
        + ", optimizer+fixed " + Text::fmt("%.1f", p.fixedMs) + " ms\n";
    out += "  stage  group          GPU type      layers   recomp  in-flight  t_mb(ms)  weights  grads  optim  "
           "activ  reserve   peak / capacity GiB  headroom\n";
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
        const auto& s = p.stages[i];
        const auto& m = s.memory;
        std::string range = std::to_string(s.firstLayer) + "-" + std::to_string(s.firstLayer + s.layers - 1);
        out += "  " + pad(std::to_string(i), 7) + pad(s.label(), 15) + pad(s.gpuType, 14) + pad(range, 9)
            + pad(toString(s.recompute), 8) + pad(Text::fmt("%.1f", s.inflight), 11)
            + pad(Text::fmt("%.1f", s.timeMs), 10) + pad(Text::fmt("%.1f", m.weightsMiB / 1024), 9)
            + pad(Text::fmt("%.1f", m.gradientsMiB / 1024), 7) + pad(Text::fmt("%.1f", m.optimizerMiB / 1024), 7)
            + pad(Text::fmt("%.1f", m.activationsMiB / 1024), 7) + pad(Text::fmt("%.1f", m.runtimeMiB() / 1024), 10)
            + pad(Text::fmt("%.1f", m.totalMiB() / 1024) + " / " + Text::fmt("%.1f", s.capacityMiB / 1024), 21)
            + Text::fmt("%.0f%%", 100 * s.headroom()) + "\n";
    }
    if (p.perMesh())
        out += "  Meshes (FlagScale process meshes, one per GPU type): " + p.shapeString()
            + "; global DP and micro-batch are the first mesh's. Every GPU of a stage has the peak shown.\n";
    else
        out += "  Each stage runs on " + std::to_string(p.tp * p.dp) + " GPUs (TP " + std::to_string(p.tp) + " x DP "
            + std::to_string(p.dp) + "); every GPU of a stage has the peak shown.\n";
    // Every stage has the same TP x DP (Megatron-LM), so a type whose GPU
    // count is not a multiple of it leaves some idle: say which.
    std::vector<int> used(static_cast<std::size_t>(problem.cluster.deviceCount()), 0);
    for (const auto& s : p.stages)
        for (int d : s.devices)
            if (d >= 0 && d < problem.cluster.deviceCount())
                used[static_cast<std::size_t>(d)] = 1;
    std::map<std::string, int> idle;
    for (int d = 0; d < problem.cluster.deviceCount(); ++d)
        if (!used[static_cast<std::size_t>(d)])
            ++idle[problem.cluster.typeOf(d).name];
    if (!idle.empty()) {
        std::string list;
        for (const auto& [type, n] : idle)
            list += (list.empty() ? "" : ", ") + std::to_string(n) + " x " + type;
        out += "  Idle GPUs ("
            + (p.perMesh() ? std::string("no stage of its mesh's TP x DP fits them")
                           : "no stage of TP x DP = " + std::to_string(p.tp * p.dp) + " fits them")
            + "): " + list + "; --no-idle-gpus skips such plans.\n";
    }
    return out;
}

std::string TextReport::tasks(const SearchResult& r)
{
    if (r.tasks.size() < 2)
        return {};
    std::size_t wLabel = 6, wShape = 10;
    for (const auto& t : r.tasks) {
        wLabel = std::max(wLabel, t.label.size() + 2);
        if (t.found)
            wShape = std::max(wShape, shapeWords(t.plan).size() + 2);
    }
    std::string out = "\nTraining tasks: each is its own search, ranked under its own references (its Phi is not "
                      "comparable with another task's); compare them on tokens per second, or rank all plans together "
                      "with --compare-tasks per-token.\n";
    out += "  " + pad("task", wLabel) + pad("best plan", wShape) + rpad("T(ms)", 10) + rpad("tok/s", 10)
        + rpad("M(GiB)", 8) + rpad("Phi", 8) + rpad("fastest(ms)", 12) + "\n";
    const SearchResult::TaskPick* most = nullptr;
    for (const auto& t : r.tasks) {
        if (!t.found) {
            out += "  " + pad(t.label, wLabel) + "no plan: " + t.error + "\n";
            continue;
        }
        const Plan& p = t.plan;
        out += "  " + pad(t.label, wLabel) + pad(shapeWords(p), wShape) + rpad(Text::fmt("%.1f", p.iterationMs), 10)
            + rpad(Text::fmt("%.0f", PlanCost::tokensPerSecond(p)), 10) + rpad(Text::fmt("%.2f", p.maxMemMiB / 1024), 8)
            + rpad(Text::fmt("%.4f", p.phi), 8) + rpad(Text::fmt("%.1f", t.fastestMs), 12)
            + (t.incomplete.empty() ? "" : "  (incomplete)") + "\n";
        if (!most || PlanCost::tokensPerSecond(p) > PlanCost::tokensPerSecond(most->plan))
            most = &t;
    }
    if (most) {
        out += "  Most tokens per second among the tasks' best plans: " + most->label;
        for (const auto& t : r.tasks)
            if (t.found && &t != most)
                out += "; " + t.label + " "
                    + Text::fmt("%.1f",
                                100.0 * (PlanCost::tokensPerSecond(t.plan) / PlanCost::tokensPerSecond(most->plan) - 1))
                    + "%";
        out += "\n";
    }
    return out;
}

std::string TextReport::profileComparison(const SearchResult& r, const Cluster& cluster)
{
    if (r.profilePicks.size() < 2)
        return {};
    const Plan& base = r.profilePicks.front().plan;
    std::string out = "\nBest plan under each weight profile (compared with "
        + std::string(toString(r.profilePicks.front().kind)) + "):\n";
    for (const auto& pb : r.profilePicks) {
        const Plan& p = pb.plan;
        out += "  " + pad(toString(pb.kind), 17)
            + pad("(" + Text::fmt("%.2f", pb.weights.time) + "," + Text::fmt("%.2f", pb.weights.memory) + ","
                      + Text::fmt("%.2f", pb.weights.variance) + ")",
                  18)
            + shapeWords(p) + " " + p.orderString() + " layers " + p.layersString() + " recompute "
            + p.recomputeString() + ": T " + Text::fmt("%.1f", p.iterationMs) + " ms, M "
            + Text::fmt("%.2f", p.maxMemMiB / 1024) + " GiB, V " + varianceText(r, p.varMem) + "; "
            + PlanCost::of(cluster, p).brief() + "\n";
        if (&pb != &r.profilePicks.front())
            out += "  " + std::string(17, ' ') + "-> " + ProfileComparison::differences(base, p, r.varianceMode) + "\n";
    }
    return out;
}

std::string TextReport::stats(const SearchResult& r)
{
    const auto& s = r.stats;
    std::string out = "\nSearch statistics:\n";
    out += "  skeletons " + std::to_string(s.skeletons) + ", feasible candidates " + countText(s.feasible)
        + (!r.incomplete.empty()     ? " (counted; not every one covered: the search stopped early)"
               : !r.spaceCut.empty() ? " (counted over the skeletons searched, every one covered)"
                                     : " (counted, every one covered)")
        + ", composed while exploring " + std::to_string(s.explored) + ", branch-and-bound nodes "
        + std::to_string(s.searchNodes) + "\n";
    for (const auto& [rule, n] : s.prunedByRule)
        out += "  pruned, " + rule + ": " + countText(n) + "\n";
    out += "  phase 2 (Phi ranking) evaluated " + std::to_string(s.phase2Evaluated) + "\n";
    out += "  prediction cache: " + std::to_string(s.cacheHits) + " hits, " + std::to_string(s.cacheMisses)
        + " misses (predictor calls)"
        + (s.cacheResets > 0 ? ", emptied " + std::to_string(s.cacheResets) + " times when full" : "") + "\n";
    if (s.rowHits + s.rowMisses > 0)
        out += "  stage rows: " + std::to_string(s.rowMisses) + " built, " + std::to_string(s.rowHits)
            + " shared across skeletons"
            + (s.rowResets > 0 ? ", cache emptied " + std::to_string(s.rowResets) + " times when full" : "") + "\n";
    if (s.storeSize > 0 || s.storeHits > 0)
        out += "  prediction store: " + std::to_string(s.storeHits) + " answers from earlier searches"
            + (s.storeInvalidated ? " (emptied first: GPU types, model, global batch or predictor changed)" : "") + ", "
            + std::to_string(s.storeSize) + " kept\n";
    // A saturated count has no rate: "1.98e17 candidates/s" would be the
    // cap's, not the search's.
    out += "  wall time " + Text::fmt("%.3f", s.wallS) + " s on " + std::to_string(s.threads) + " thread(s), "
        + (s.feasible == std::numeric_limits<std::uint64_t>::max()
               ? std::string("more than 1.8e19 candidates in all")
               : Text::fmt("%.0f", s.candidatesPerS) + " candidates/s")
        + "\n";
    if (s.feasibleShapes > 0)
        out += "  (TP, PP, DP) shapes with feasible plans: " + std::to_string(s.feasibleShapes)
            + (s.plotShapes >= s.feasibleShapes ? ", every one in the plot's sample"
                                                : ", " + std::to_string(s.plotShapes)
                       + " of them in the plot's sample (one of "
                         "each shape fills at most half of it)")
            + "\n";
    if (s.sampleFraction < 1.0)
        out += "  medians and ranks from a deterministic stratified sample of "
            + Text::fmt("%.2g", 100 * s.sampleFraction) + "% of the feasible candidates"
            + (r.incomplete.empty() && r.spaceCut.empty() ? " (the best plans and fronts are exact)"
                   : r.incomplete.empty() ? " (the best plans and fronts are exact over the skeletons searched)"
                                          : "")
            + "\n";
    for (const auto& n : r.notes)
        out += "  note: " + n + "\n";
    return out;
}

}  // namespace memx
