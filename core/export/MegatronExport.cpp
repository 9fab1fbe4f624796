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

namespace {

bool allEqual(std::vector<int>::const_iterator b, std::vector<int>::const_iterator e)
{
    return b == e || std::all_of(b, e, [&](int x) { return x == *b; });
}

}  // namespace

std::string MegatronExport::layout(const std::vector<int>& layers, int v)
{
    const int P = static_cast<int>(layers.size());
    std::string out;
    for (int chunk = 0; chunk < v; ++chunk)
        for (int pp = 0; pp < P; ++pp) {
            const int n = layers[static_cast<std::size_t>(pp)] / v;
            if (!out.empty())
                out += "|";
            if (chunk == 0 && pp == 0)
                out += "E";
            if (n > 0)
                out += "t*" + std::to_string(n);
            if (chunk == v - 1 && pp == P - 1)
                out += "L";
        }
    return out;
}

std::vector<std::string> MegatronExport::splitArguments(const std::vector<int>& layers, int v)
{
    const int P = static_cast<int>(layers.size());
    if (P <= 1)
        return {};
    if (allEqual(layers.begin(), layers.end())) {
        if (v > 1)
            return {"--num-layers-per-virtual-pipeline-stage", std::to_string(layers.front() / v)};
        return {};
    }
    // Megatron spreads what the first/last flags leave evenly over the other
    // stages (transformer_config.py / transformer_block.py get_num_layers_to_build),
    // so only set the flags for the stages that differ.
    std::vector<std::string> out;
    if (allEqual(layers.begin() + 1, layers.end())) {
        out = {"--decoder-first-pipeline-num-layers", std::to_string(layers.front())};
    } else if (allEqual(layers.begin(), layers.end() - 1)) {
        out = {"--decoder-last-pipeline-num-layers", std::to_string(layers.back())};
    } else if (P >= 3 && allEqual(layers.begin() + 1, layers.end() - 1)) {
        out = {"--decoder-first-pipeline-num-layers", std::to_string(layers.front()),
               "--decoder-last-pipeline-num-layers", std::to_string(layers.back())};
    } else {
        // Arbitrary split: the (experimental) layout flag; VPP is inferred from it.
        return {"--pipeline-model-parallel-layout", layout(layers, v)};
    }
    if (v > 1) {
        // Uneven first/last with VPP needs this flag, not --num-layers-per-virtual-pipeline-stage.
        out.push_back("--num-virtual-stages-per-pipeline-rank");
        out.push_back(std::to_string(v));
    }
    return out;
}

std::vector<std::string> MegatronExport::arguments(const MegatronJob& job)
{
    const ModelSpec& m = job.model;
    const int heads = m.heads;
    const int groups = job.queryGroups > 0 ? job.queryGroups : (m.queryGroups > 0 ? m.queryGroups : heads);
    const int seq = job.seqLen > 0 ? job.seqLen : m.seqLen;
    const int ffn = m.ffn();
    const int v = std::max(1, job.virtualStages);
    auto refuse = [](const std::string& why) { throw std::invalid_argument(why); };
    // Megatron-LM's own checks (reference/EXPORT_AND_LOGS.md section 1).
    if (job.tp < 1 || job.pp < 1 || job.dp < 1 || job.microBatch < 1)
        refuse("TP, PP, DP and the micro-batch size must be at least 1");
    if (heads % job.tp != 0)
        refuse(std::to_string(heads) + " attention heads are not divisible by TP " + std::to_string(job.tp));
    if (groups % job.tp != 0 && job.tp % groups != 0)
        refuse(std::to_string(groups) + " query groups and TP " + std::to_string(job.tp)
               + " must divide one another");
    if (job.globalBatch % (job.microBatch * job.dp) != 0)
        refuse("global batch " + std::to_string(job.globalBatch) + " is not divisible by micro-batch x DP = "
               + std::to_string(job.microBatch * job.dp));
    std::vector<int> layers = job.stageLayers;
    if (layers.empty()) {
        if (m.numLayers % job.pp != 0)
            refuse(std::to_string(m.numLayers) + " layers do not split evenly over PP " + std::to_string(job.pp));
        layers.assign(static_cast<std::size_t>(job.pp), m.numLayers / job.pp);
    }
    if (static_cast<int>(layers.size()) != job.pp)
        refuse("one layer count per pipeline stage expected");
    if (std::accumulate(layers.begin(), layers.end(), 0) != m.numLayers)
        refuse("stage layers do not add up to --num-layers " + std::to_string(m.numLayers));
    if (v > 1) {
        const int G = job.globalBatch / (job.microBatch * job.dp);
        if (job.pp < 2)
            refuse("the interleaved schedule needs PP > 1");
        if (G % job.pp != 0)
            refuse("the interleaved schedule needs the number of micro-batches (" + std::to_string(G)
                   + ") to be a multiple of PP " + std::to_string(job.pp));
        for (int n : layers)
            if (n % v != 0)
                refuse("every stage's layers must be a multiple of the virtual stages " + std::to_string(v));
    }

    std::vector<std::string> a;
    auto add = [&](const std::string& flag) { a.push_back(flag); };
    auto addv = [&](const std::string& flag, long long value) {
        a.push_back(flag);
        a.push_back(std::to_string(value));
    };
    addv("--tensor-model-parallel-size", job.tp);
    addv("--pipeline-model-parallel-size", job.pp);
    if (job.tp > 1 && job.sequenceParallel)
        add("--sequence-parallel");
    for (const auto& t : splitArguments(layers, v))
        a.push_back(t);
    addv("--num-layers", m.numLayers);
    addv("--hidden-size", m.hidden);
    addv("--ffn-hidden-size", ffn);
    addv("--num-attention-heads", heads);
    if (m.headDim > 0 && m.headDim * heads != m.hidden)
        addv("--kv-channels", m.headDim);
    if (groups < heads) {
        add("--group-query-attention");
        addv("--num-query-groups", groups);
    }
    addv("--seq-length", seq);
    addv("--max-position-embeddings", seq);
    // Without --swiglu Megatron's MLP is GeLU, the model's other kind.
    if (m.mlp == MlpKind::SwiGlu)
        add("--swiglu");
    // The layer style the plan's memory and time assume (model/LayerStyle.h);
    // written even where it is Megatron's default, so the script says it.
    add("--normalization");
    add(megatronNormalization(m.style.norm));
    add("--position-embedding-type");
    add(toString(m.style.position));
    if (!m.style.linearBias)
        add("--disable-bias-linear");
    if (!m.tiedEmbeddings)
        add("--untie-embeddings-and-output-weights");
    addv("--micro-batch-size", job.microBatch);
    addv("--global-batch-size", job.globalBatch);
    if (job.precision == "bf16")
        add("--bf16");
    else if (job.precision == "fp16")
        add("--fp16");  // dynamic loss scaling: Megatron's default without --loss-scale
    else if (job.precision == "fp8") {
        // Transformer Engine fp8 GEMMs on top of bf16 training: E4M3 forward,
        // E5M2 gradients (the "hybrid" format), TE's layers.
        add("--bf16");
        for (const char* f : {"--fp8-format", "hybrid", "--transformer-impl", "transformer_engine"})
            add(f);
    } else if (job.precision != "fp32" && job.precision != "tf32")  // tf32: fp32 arguments, TF32 from the environment
        refuse("unknown precision \"" + job.precision + "\" (" + precisionChoices() + ")");
    if (!job.flashAttention) {
        // The plan kept the s x s attention scores; Megatron's default (auto)
        // would pick a fused kernel that does not.
        add("--attention-backend");
        add("unfused");
    }
    // Always the plan's rates: Megatron's default of 0.1 would keep dropout
    // masks a plan without dropout does not count.
    add("--attention-dropout");
    add(Text::pyFloat(job.attentionDropout));
    add("--hidden-dropout");
    add(Text::pyFloat(job.hiddenDropout));
    if (job.distributedOptimizer)
        add("--use-distributed-optimizer");
    // The overlaps the plan's time assumes (IterationComposer::
    // exposedDataParallelMs); Megatron refuses --overlap-param-gather
    // without the other two, and so does TrainingSetup::validate.
    if (job.overlapGradReduce)
        add("--overlap-grad-reduce");
    if (job.overlapParamGather && job.overlapGradReduce && job.distributedOptimizer)
        add("--overlap-param-gather");
    switch (job.recompute) {
    case Recompute::None: break;
    case Recompute::Selective:
        // The attention core (default --recompute-modules core_attn); forbids method and num-layers.
        add("--recompute-granularity");
        add("selective");
        break;
    case Recompute::Full:
        // Every layer checkpointed on its own: only its input is kept (MemX "full").
        for (const char* f : {"--recompute-granularity", "full", "--recompute-method", "uniform",
                              "--recompute-num-layers", "1"})
            add(f);
        break;
    }
    return a;
}

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

std::string MegatronExport::precisionFor(const std::vector<const GpuType*>& types, std::string& why)
{
    std::string noBf16, noFp16;
    for (const GpuType* t : types) {
        if (!t->hasPrecision("bf16") && noBf16.find(t->name) == std::string::npos)
            noBf16 += (noBf16.empty() ? "" : ", ") + t->name;
        if (!t->hasPrecision("fp16") && noFp16.find(t->name) == std::string::npos)
            noFp16 += (noFp16.empty() ? "" : ", ") + t->name;
    }
    why.clear();
    if (noBf16.empty())
        return "bf16";
    why = noBf16 + " " + (noBf16.find(',') == std::string::npos ? "has" : "have") + " no bf16";
    if (noFp16.empty())
        return "fp16";
    why += " and " + noFp16 + " no fp16";
    return "fp32";
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
        j.precision = precisionFor(types, why);
    }
    Precision jp = Precision::Bf16;
    parsePrecision(j.precision, jp);
    j.flashAttention = flashAttentionRuns(j.flashAttention, jp);  // no FlashAttention in fp32
    return j;
}

std::optional<MegatronExport::NearestPlan> MegatronExport::nearestCost(const PlanDocument& doc,
                                                                        const std::vector<Recompute>& levels,
                                                                        std::string& why)
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
        n.problem = ev.problem;
        return n;
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

std::vector<ExportedFile> MegatronExport::files(const PlanDocument& doc)
{
    const Plan& p = doc.plan;
    if (p.perMesh())
        throw InputError(doc.file, "--target megatron",
                         "Megatron-LM gives every pipeline stage one TP and DP, and this plan gives each GPU type its "
                         "own (" + p.shapeString() + "); export it with --target flagscale, whose heterogeneous "
                         "training runs one process mesh per device type");
    const RecomputeChoice rc = recomputeFor(p);
    std::vector<std::string> args;
    try {
        args = arguments(jobFor(doc, rc.level));  // refuses before anything is written
    } catch (const std::invalid_argument& e) {
        throw InputError(doc.file, "--target megatron", std::string("Megatron-LM would refuse this plan: ") + e.what());
    }
    const LaunchLayout lay = LaunchFiles::layout(doc.problem.cluster, p);

    // The plain warning when the plan's per-stage recomputation cannot be expressed.
    std::string warning;
    if (!rc.exact) {
        std::string levels;
        for (std::size_t i = 0; i < p.stages.size(); ++i)
            levels += (i ? ", " : "") + std::string("stage ") + std::to_string(i) + " "
                + toString(p.stages[i].recompute);
        std::string why;
        const auto nearest
            = nearestCost(doc, std::vector<Recompute>(p.stages.size(), rc.level), why);
        std::string cost;
        if (nearest)
            cost = "predicted " + Text::fmt("%.1f", nearest->iterationMs) + " ms per iteration (the plan: "
                + Text::fmt("%.1f", p.iterationMs) + " ms), largest per-GPU peak " + Text::fmt("%.0f", nearest->maxMemMiB)
                + " MiB (the plan: " + Text::fmt("%.0f", p.maxMemMiB) + " MiB)"
                + (nearest->feasible ? "" : "; NOT feasible: " + nearest->problem);
        else
            cost = "cost not predicted (" + why + ")";
        cost = Text::oneLine(cost);  // may quote a message naming a GPU type or node
        const std::string level = toString(rc.level);
        warning = "# !!! NOT THE EXACT PLAN. The plan recomputes activations per stage (" + levels + "),\n"
                  "# !!! and Megatron-LM has one recompute setting for all stages. These scripts run the nearest\n"
                  "# !!! plan it can express, the most conservative common level: " + level
            + " recomputation on every stage;\n# !!! " + cost + ".\n"
              "# !!! For the exact plan use: memx-cli export --target flagscale (per-stage recompute lists,\n"
              "# !!! none or full per stage; selective only as one global setting).\n#\n";
    }

    // One precision for every rank; say why when it is not bf16.
    const MegatronJob job = jobFor(doc, rc.level);
    std::string notes;
    {
        std::vector<const GpuType*> types;
        for (const auto& st : p.stages)
            types.push_back(&doc.problem.cluster.typeOf(st.devices.front()));
        std::string why;
        if (MegatronExport::precisionFor(types, why) != job.precision)
            why = "chosen in the training setup";  // not what the GPUs force
        if (job.precision != "bf16")
            notes += "# Precision: " + job.precision + (job.precision == "fp16" ? " with dynamic loss scaling" : "")
                + (job.precision == "fp8" ? " GEMMs through Transformer Engine (bf16 elsewhere)" : "")
                + (job.precision == "tf32" ? " (fp32 training, TF32 GEMMs: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 below)" : "")
                + " on every rank (one precision for the whole job): " + why + ".\n";
        if (!job.flashAttention)
            notes += std::string("# Attention: unfused (--attention-backend unfused), as planned ")
                + (doc.problem.setup.flashAttention ? "(FlashAttention needs 16-bit inputs, this job trains in "
                                                          + job.precision + ")"
                                                    : "without flash attention")
                + ": it keeps\n# the s x s scores that the plan's memory counts.\n";
    }
    // torchrun numbers ranks by the workers' counts in node-rank order
    // (prefix sums) unless told the workers are identical.
    bool sameCounts = true;
    for (const auto& a : lay.agents)
        sameCounts = sameCounts && a.devices.size() == lay.agents.front().devices.size();
    if (!sameCounts)
        notes += "# The nodes run different numbers of ranks: torchrun's static rendezvous then gives node rank r the\n"
                 "# global ranks after those of node ranks 0..r-1 (its default rank assignment), which is what the\n"
                 "# plan needs. TORCH_ELASTIC_WORKER_IDENTICAL=1 would assume equal nodes and break it, so it is refused.\n";

    std::vector<ExportedFile> out;
    const std::string masterHost = Text::safeName(lay.hosts.front().name);
    const int nnodes = static_cast<int>(lay.agents.size());
    for (const auto& a : lay.agents) {
        const LaunchHost& h = lay.hosts[static_cast<std::size_t>(a.host)];
        std::string s = "#!/bin/bash\n" + warning + LaunchFiles::header(doc, "megatron") + notes;
        std::string stages;
        for (int st : a.stages)
            stages += (stages.empty() ? "" : ", ") + std::to_string(st) + " ("
                + p.stages[static_cast<std::size_t>(st)].label() + ", "
                + Text::oneLine(p.stages[static_cast<std::size_t>(st)].gpuType) + ")";
        const int lastRank = a.firstRank + static_cast<int>(a.devices.size()) - 1;
        s += "#\n# Node rank " + std::to_string(a.nodeRank) + " of " + std::to_string(nnodes) + " on host " + Text::oneLine(h.name)
            + ": global ranks " + std::to_string(a.firstRank) + "-" + std::to_string(lastRank)
            + " on GPUs " + Text::joinInts(a.localDevices) + ", pipeline stage" + (a.stages.size() > 1 ? "s " : " ") + stages
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
        if (job.precision == "tf32")  // PyTorch keeps fp32 matmuls off TF32 unless told (aten/src/ATen/Context.cpp)
            s += "export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1\n";
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
        out.push_back({LaunchFiles::scriptName(a.nodeRank), s, true});
    }
    out.push_back({"hostfile", LaunchFiles::hostfile(doc, lay, "megatron", false), false});
    std::string sb = LaunchFiles::sbatch(doc, lay, "megatron");
    if (!warning.empty())
        sb.insert(sb.find("# Generated by"), warning);
    out.push_back({"sbatch.sh", sb, true});
    return out;
}

}  // namespace memx
