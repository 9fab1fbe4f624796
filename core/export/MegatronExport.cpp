#include "export/MegatronExport.h"

#include "io/Text.h"

#include "export/PlanJsonReader.h"
#include "space/JobPrecision.h"
#include "hardware/Cluster.h"
#include "hardware/GpuType.h"
#include "io/InputError.h"
#include "search/PlanEvaluator.h"
#include "search/SearchResult.h"
#include "space/Plan.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace memx {

MegatronExport::RecomputeChoice MegatronExport::recomputeFor(const Plan& plan)
{
    RecomputeChoice c;
    if (plan.stages.empty())
        return c;
    c.level = plan.stages.front().recompute;
    for (const auto& s : plan.stages) {
        if (s.recompute != plan.stages.front().recompute)
            c.exact = false;
        c.level = std::max(c.level, s.recompute);
    }
    return c;
}

MegatronJob MegatronExport::jobFor(const PlanDocument& doc, Recompute level)
{
    const Plan& p = doc.plan;
    MegatronJob j;
    j.model = doc.problem.model;
    j.tp = p.tp;
    j.pp = p.pp;
    j.dp = p.dp;
    j.microBatch = p.microBatch;
    j.globalBatch = p.globalBatch;
    j.seqLen = p.seqLen;
    j.queryGroups = p.queryGroups;
    for (const auto& s : p.stages)
        j.stageLayers.push_back(s.layers);
    j.virtualStages = p.schedule == Schedule::Interleaved ? p.virtualStages : 1;
    j.recompute = level;
    j.sequenceParallel = doc.problem.setup.sequenceParallel;
    j.distributedOptimizer = doc.problem.setup.distributedOptimizer;
    j.overlapGradReduce = doc.problem.setup.overlapGradReduce;
    j.overlapParamGather = doc.problem.setup.overlapParamGather;
    j.flashAttention = doc.problem.setup.flashAttention;
    j.attentionDropout = doc.problem.setup.attentionDropout;
    j.hiddenDropout = doc.problem.setup.hiddenDropout;
    // The precision the plan was predicted in: the same resolution as the
    // search's, so the script trains what the plan's memory and time assume.
    try {
        j.precision = toString(jobPrecision(doc.problem));
    } catch (const std::exception&) {
        std::vector<const GpuType*> types;
        for (const auto& s : p.stages)
            types.push_back(&doc.problem.cluster.typeOf(s.devices.front()));
        std::string why;
        j.precision = MegatronCommandLine::precisionFor(types, why);
    }
    Precision jp = Precision::Bf16;
    parsePrecision(j.precision, jp);
    j.flashAttention = flashAttentionRuns(j.flashAttention, jp);  // no FlashAttention in fp32
    return j;
}

std::optional<MegatronExport::NearestPlan>
MegatronExport::nearestCost(const PlanDocument& doc, const std::vector<Recompute>& levels, std::string& why)
{
    if (doc.predictor != "analytic") {
        why = "the plan came from the " + doc.predictor + " predictor, which the export cannot load";
        return std::nullopt;
    }
    const PlanSpec spec = PlanSpec::of(doc.plan, levels);
    try {
        const Evaluation ev = PlanEvaluator::evaluate(doc.problem, spec);
        NearestPlan n;
        n.iterationMs = ev.plan.iterationMs;
        n.maxMemMiB = ev.plan.maxMemMiB;
        n.feasible = ev.feasible;
        n.whyInfeasible = ev.whyInfeasible;
        return n;
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

namespace {

// The plain warning when the plan's per-stage recomputation cannot be
// expressed (empty when it can).
std::string inexactWarning(const PlanDocument& doc, const MegatronExport::RecomputeChoice& rc)
{
    const Plan& p = doc.plan;
    if (rc.exact)
        return {};
    std::string levels;
    for (std::size_t i = 0; i < p.stages.size(); ++i)
        levels += (i ? ", " : "") + std::string("stage ") + std::to_string(i) + " " + toString(p.stages[i].recompute);
    std::string why;
    const auto nearest = MegatronExport::nearestCost(doc, std::vector<Recompute>(p.stages.size(), rc.level), why);
    std::string cost;
    if (nearest)
        cost = "predicted " + Text::fmt("%.1f", nearest->iterationMs)
            + " ms per iteration (the plan: " + Text::fmt("%.1f", p.iterationMs) + " ms), largest per-GPU peak "
            + Text::fmt("%.0f", nearest->maxMemMiB) + " MiB (the plan: " + Text::fmt("%.0f", p.maxMemMiB) + " MiB)"
            + (nearest->feasible ? "" : "; NOT feasible: " + nearest->whyInfeasible);
    else
        cost = "cost not predicted (" + why + ")";
    cost = Text::oneLine(cost);  // may quote a message naming a GPU type or node
    const std::string level = toString(rc.level);
    return "# !!! NOT THE EXACT PLAN. The plan recomputes activations per stage (" + levels
        + "),\n"
          "# !!! and Megatron-LM has one recompute setting for all stages. These scripts run the nearest\n"
          "# !!! plan it can express, the most conservative common level: "
        + level + " recomputation on every stage;\n# !!! " + cost
        + ".\n"
          "# !!! For the exact plan use: memx-cli export --target flagscale (per-stage recompute lists,\n"
          "# !!! none or full per stage; selective only as one global setting).\n#\n";
}

// One precision for every rank; say why when it is not bf16.
std::string precisionNotes(const PlanDocument& doc, const MegatronJob& job)
{
    const Plan& p = doc.plan;
    std::string notes;
    std::vector<const GpuType*> types;
    for (const auto& st : p.stages)
        types.push_back(&doc.problem.cluster.typeOf(st.devices.front()));
    std::string why;
    if (MegatronCommandLine::precisionFor(types, why) != job.precision)
        why = "chosen in the training setup";  // not what the GPUs force
    if (job.precision != "bf16")
        notes += "# Precision: " + job.precision + (job.precision == "fp16" ? " with dynamic loss scaling" : "")
            + (job.precision == "fp8" ? " GEMMs through Transformer Engine (bf16 elsewhere)" : "")
            + (job.precision == "tf32" ? " (fp32 training, TF32 GEMMs: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 below)"
                   : job.precision == "fp32"
                   ? " (IEEE fp32 GEMMs on the CUDA cores: TF32 is turned off below, which NVIDIA's PyTorch "
                     "containers would otherwise use)"
                   : "")
            + " on every rank (one precision for the whole job): " + why + ".\n";
    if (!job.flashAttention)
        notes += std::string("# Attention: unfused (--attention-backend unfused), as planned ")
            + (doc.problem.setup.flashAttention
                   ? "(FlashAttention needs 16-bit inputs, this job trains in " + job.precision + ")"
                   : "without flash attention")
            + ": it keeps\n# the s x s scores that the plan's memory counts.\n";
    return notes;
}

// One node's launch script.
std::string nodeScript(const PlanDocument& doc, const LaunchLayout& lay, const LaunchAgent& a, const MegatronJob& job,
                       const std::vector<std::string>& args, const std::string& preamble, bool sameCounts)
{
    const Plan& p = doc.plan;
    const std::string masterHost = Text::safeName(lay.hosts.front().name);
    const int nnodes = static_cast<int>(lay.agents.size());
    const LaunchHost& h = lay.hosts[static_cast<std::size_t>(a.host)];
    std::string s = "#!/bin/bash\n" + preamble;
    std::string stages;
    for (int st : a.stages)
        stages += (stages.empty() ? "" : ", ") + std::to_string(st) + " ("
            + p.stages[static_cast<std::size_t>(st)].label() + ", "
            + Text::oneLine(p.stages[static_cast<std::size_t>(st)].gpuType) + ")";
    const int lastRank = a.firstRank + static_cast<int>(a.devices.size()) - 1;
    s += "#\n# Node rank " + std::to_string(a.nodeRank) + " of " + std::to_string(nnodes) + " on host "
        + Text::oneLine(h.name) + ": global ranks " + std::to_string(a.firstRank) + "-" + std::to_string(lastRank)
        + " on GPUs " + Text::joinInts(a.localDevices) + ", pipeline stage" + (a.stages.size() > 1 ? "s " : " ")
        + stages
        + ".\n# Megatron's rank order (tp fastest, then dp, then pp) and torchrun's static rendezvous\n"
          "# (rank = ranks of lower node ranks + local rank) put each stage on its planned GPUs.\n";
    s += "set -euo pipefail\n";
    s += "NNODES=" + std::to_string(nnodes) + "\n";
    s += "NODE_RANK=" + std::to_string(a.nodeRank) + "\n";
    s += "NPROC_PER_NODE=" + std::to_string(a.devices.size()) + "\n";
    s += "MASTER_ADDR=${MASTER_ADDR:-" + masterHost + "}\n";
    s += "MASTER_PORT=${MASTER_PORT:-29500}\n";
    s += "MEGATRON_DIR=${MEGATRON_DIR:-$PWD/Megatron-LM}\n";
    const GpuType& type = doc.problem.cluster.typeOf(a.devices.front());
    s += "# Local rank i runs on the i-th visible device (" + Text::oneLine(type.vendor)
        + " runtime: " + type.visibleDevicesEnv + ").\n";
    if (!type.visibleDevicesVerified)
        s += "# !!! " + type.visibleDevicesEnv + " is a guess: the GPU catalog does not know how "
            + Text::oneLine(type.vendor) + "'s runtime selects devices.\n";
    s += "export " + type.visibleDevicesEnv + "=" + Text::joinInts(a.localDevices) + "\n";
    if (!sameCounts)
        s += "if [ \"${TORCH_ELASTIC_WORKER_IDENTICAL:-0}\" = 1 ]; then\n"
             "  echo \"TORCH_ELASTIC_WORKER_IDENTICAL=1 assumes equal nodes; this plan's nodes differ (see the header)\" >&2\n"
             "  exit 1\nfi\n";
    s += "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
    // fp32 GEMMs in the math they were predicted in, whatever the image sets.
    if (job.precision == "tf32")
        s += std::string("unset ") + MegatronCommandLine::kTf32Unset + "\n";
    for (const auto& v : MegatronCommandLine::matmulEnvironment(job.precision))
        s += "export " + v.name + "=" + v.value + "\n";
    s += "\n";
    s += "MEGATRON_ARGS=(\n";
    for (std::size_t i = 0; i < args.size(); ++i) {
        // One flag per line with its values.
        s += "  " + Text::shellWord(args[i]);
        while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
            s += " " + Text::shellWord(args[++i]);
        s += "\n";
    }
    s += ")\n";
    s += "# Data: replace the mock data by your data set (--data-path ... --tokenizer-type ...).\n";
    // The environment may replace either list as one string: split into
    // words without globbing (read -a, not an unquoted expansion).
    s += "read -r -a DATA_ARGS <<< \"${DATA_ARGS:---mock-data --tokenizer-type NullTokenizer --vocab-size "
        + std::to_string(doc.problem.model.vocab) + "}\"\n";
    s += "read -r -a TRAIN_ARGS <<< \"${TRAIN_ARGS:---train-iters 100 --lr 1.0e-4 --lr-decay-style constant "
         "--eval-iters 0 --log-interval 1 --log-throughput --timing-log-level 1}\"\n\n";
    s += "exec torchrun --nnodes \"$NNODES\" --node-rank \"$NODE_RANK\" --nproc-per-node \"$NPROC_PER_NODE\" \\\n"
         "  --rdzv-backend static --master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\" \\\n"
         "  \"$MEGATRON_DIR/pretrain_gpt.py\" \"${MEGATRON_ARGS[@]}\" \"${DATA_ARGS[@]}\" \"${TRAIN_ARGS[@]}\"\n";
    return s;
}

}  // namespace

std::vector<ExportedFile> MegatronExport::files(const PlanDocument& doc)
{
    const Plan& p = doc.plan;
    if (p.perMesh())
        throw InputError(doc.file, "--target megatron",
                         "Megatron-LM gives every pipeline stage one TP and DP, and this plan gives each GPU type its "
                         "own ("
                             + p.shapeString()
                             + "); export it with --target flagscale, whose heterogeneous "
                               "training runs one process mesh per device type, or search with --meshes uniform "
                               "(the workbench's Meshes: uniform) for a plan Megatron-LM runs");
    const RecomputeChoice rc = recomputeFor(p);
    std::vector<std::string> args;
    try {
        args = MegatronCommandLine::arguments(jobFor(doc, rc.level));  // refuses before anything is written
    } catch (const std::invalid_argument& e) {
        throw InputError(doc.file, "--target megatron", std::string("Megatron-LM would refuse this plan: ") + e.what());
    }
    const LaunchLayout lay = LaunchFiles::layout(doc.problem.cluster, p);

    const std::string warning = inexactWarning(doc, rc);
    const MegatronJob job = jobFor(doc, rc.level);
    std::string notes = precisionNotes(doc, job);
    // torchrun numbers ranks by the workers' counts in node-rank order
    // (prefix sums) unless told the workers are identical.
    bool sameCounts = true;
    for (const auto& a : lay.agents)
        sameCounts = sameCounts && a.devices.size() == lay.agents.front().devices.size();
    if (!sameCounts)
        notes
            += "# The nodes run different numbers of ranks: torchrun's static rendezvous then gives node rank r the\n"
               "# global ranks after those of node ranks 0..r-1 (its default rank assignment), which is what the\n"
               "# plan needs. TORCH_ELASTIC_WORKER_IDENTICAL=1 would assume equal nodes and break it, so it is refused.\n";

    std::vector<ExportedFile> out;
    const std::string preamble = warning + LaunchFiles::header(doc, "megatron") + notes;
    for (const auto& a : lay.agents)
        out.push_back(
            {LaunchFiles::scriptName(a.nodeRank), nodeScript(doc, lay, a, job, args, preamble, sameCounts), true});
    out.push_back({"hostfile", LaunchFiles::hostfile(doc, lay, "megatron", false), false});
    std::string sb = LaunchFiles::sbatch(doc, lay, "megatron");
    if (!warning.empty())
        sb.insert(sb.find("# Generated by"), warning);
    out.push_back({"sbatch.sh", sb, true});
    return out;
}

}  // namespace memx
