#include "export/FlagScaleExport.h"

#include "space/MeshRules.h"

#include "io/Text.h"

#include "export/MegatronExport.h"
#include "megatron/MegatronCommandLine.h"
#include "export/PlanJsonReader.h"
#include "hardware/Cluster.h"
#include "hardware/GpuType.h"
#include "io/InputError.h"
#include "space/Plan.h"

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <map>
#include <numeric>

namespace memx {

namespace {

// experiment.envs: common variables, then each device type's visible devices
// under device_type_specific.<type> (the hostfile's type=), which is the only
// per-type place FlagScale's update_nodes_envs merges; hosts of one type that
// use different GPUs get theirs under node_specific.<host>. The runner counts
// a host's devices from the first *_VISIBLE_DEVICES variable it has.
std::string visibleDevicesEnvs(const PlanDocument& doc, const LaunchLayout& lay)
{
    struct PerType {
        std::string var;
        std::vector<int> devices;  // of the type's first host
        std::vector<std::size_t> hosts;
    };
    std::map<std::string, PerType> byType;
    std::vector<std::string> order;
    for (std::size_t h = 0; h < lay.hosts.size(); ++h) {
        const LaunchHost& host = lay.hosts[h];
        const LaunchAgent& a = lay.agents[static_cast<std::size_t>(host.agents.front())];
        const GpuType& gpu = doc.problem.cluster.typeOf(a.devices.front());
        const std::string var = gpu.visibleDevicesEnv;
        if (var.size() < 16 || var.compare(var.size() - 16, 16, "_VISIBLE_DEVICES") != 0)
            throw InputError(doc.file, "--target flagscale",
                             "FlagScale's runner counts a host's devices from a *_VISIBLE_DEVICES variable, and "
                                 + gpu.vendor + "'s runtime (" + gpu.name + ") selects devices with " + var);
        const std::string type = Text::safeName(host.gpuTypes.front());
        auto [it, fresh] = byType.try_emplace(type, PerType{var, a.localDevices, {}});
        if (fresh)
            order.push_back(type);
        it->second.hosts.push_back(h);
    }
    std::string e = "  envs:\n    CUDA_DEVICE_MAX_CONNECTIONS: 1\n";
    const std::string precision = MegatronExport::jobFor(doc, Recompute::None).precision;
    for (const auto& v : MegatronCommandLine::matmulEnvironment(precision))
        e += "    " + v.name + ": " + v.value
            + (precision == "tf32" ? std::string("  # fp32 training with TF32 GEMMs, as planned; ")
                       + MegatronCommandLine::kTf32Unset + " must not be 0"
                                   : std::string("  # fp32 training with IEEE fp32 GEMMs, as planned"))
            + "\n";
    std::string perType, perNode;
    for (const auto& type : order) {
        const PerType& t = byType[type];
        perType += "      " + Text::yamlQuoted(type) + ":\n        " + t.var + ": \"" + Text::joinInts(t.devices, ",")
            + "\"\n";
        for (std::size_t h : t.hosts) {
            const LaunchAgent& a = lay.agents[static_cast<std::size_t>(lay.hosts[h].agents.front())];
            if (a.localDevices != t.devices)
                perNode += "      " + Text::yamlQuoted(Text::safeName(lay.hosts[h].name)) + ":\n        " + t.var
                    + ": \"" + Text::joinInts(a.localDevices, ",") + "\"\n";
        }
    }
    e += "    device_type_specific:  # per hostfile type=\n" + perType;
    if (!perNode.empty())
        e += "    node_specific:  # hosts whose GPUs differ from the first host of their type\n" + perNode;
    return e;
}

bool uniform(const std::vector<Recompute>& v)
{
    return std::all_of(v.begin(), v.end(), [&](Recompute r) { return r == v.front(); });
}

const char* yamlBool(bool b) { return b ? "True" : "False"; }

}  // namespace

namespace {

// The meshes' sizes, CP, micro-batches and pipeline sizes.
void checkMeshes(const HeteroConfig& c, std::vector<std::string>& why)
{
    int ppSum = 0;
    for (const auto& m : c.meshes)
        ppSum += m.pp;
    if (c.meshes.empty())
        why.push_back("at least one process mesh is needed");
    if (ppSum != c.pipelineParallel)
        why.push_back("the meshes' pipeline sizes add up to " + std::to_string(ppSum)
                      + ", but --pipeline-model-parallel-size is " + std::to_string(c.pipelineParallel));
    for (const auto& m : c.meshes)
        if (m.tp < 1 || m.cp < 1 || m.ep < 1 || m.dp < 1 || m.pp < 1)
            why.push_back("every mesh size (tp cp ep dp pp) must be at least 1");
    for (const auto& m : c.meshes)
        if (m.cp != c.meshes.front().cp) {
            why.push_back("context parallelism must be the same in every mesh");
            break;
        }
    if (!c.meshes.empty()) {
        const int dp0 = c.meshes.front().dp;
        for (std::size_t i = 0; i < c.meshes.size(); ++i)
            if (c.meshes[i].dp > 0 && MeshRules::meshMicroBatch(dp0, c.microBatch, c.meshes[i].dp) == 0)
                why.push_back("mesh " + std::to_string(i) + ": its micro-batch size dp0 x mbs / dp = "
                              + std::to_string(dp0) + " x " + std::to_string(c.microBatch) + " / "
                              + std::to_string(c.meshes[i].dp) + " is not an integer");
        if (dp0 > 0 && c.globalBatch % (dp0 * c.microBatch) != 0)
            why.push_back("global batch " + std::to_string(c.globalBatch) + " is not divisible by dp0 x mbs");
    }
}

// Tied embeddings: the first and last mesh's TP and DP rules.
void checkTiedEmbeddings(const HeteroConfig& c, std::vector<std::string>& why)
{
    if (!c.tiedEmbeddings || c.meshes.empty())
        return;
    const auto& first = c.meshes.front();
    const auto& last = c.meshes.back();
    if (const std::string broken
        = MeshRules::tiedEmbeddings(first.tp, last.tp, first.dp, last.dp, c.distributedOptimizer);
        !broken.empty())
        why.push_back(broken);
    if (first.dp != last.dp && c.distributedOptimizer) {
        if (!c.partialReduceSharedEmbedding)
            why.push_back("with tied embeddings, different first/last DP and the distributed optimizer, "
                          "--use-partial-reduce-for-shared-embedding is required");
    }
}

// One recompute level per stage, none or full when they differ.
void checkRecompute(const HeteroConfig& c, std::vector<std::string>& why)
{
    if (c.stageRecompute.empty())
        return;
    if (static_cast<int>(c.stageRecompute.size()) != c.pipelineParallel)
        why.push_back("one recompute level per pipeline stage expected");
    if (!uniform(c.stageRecompute))
        for (Recompute r : c.stageRecompute)
            if (r == Recompute::Selective) {
                why.push_back("per-stage recomputation can only be none or full (no per-stage selective)");
                break;
            }
}

}  // namespace

std::vector<std::string> FlagScaleExport::validate(const HeteroConfig& c)
{
    std::vector<std::string> why;
    checkMeshes(c, why);
    if (static_cast<int>(c.layerSplit.size()) != c.pipelineParallel)
        why.push_back("the layer split has " + std::to_string(c.layerSplit.size()) + " entries; PP is "
                      + std::to_string(c.pipelineParallel));
    if (std::accumulate(c.layerSplit.begin(), c.layerSplit.end(), 0) != c.numLayers)
        why.push_back("the layer split adds up to "
                      + std::to_string(std::accumulate(c.layerSplit.begin(), c.layerSplit.end(), 0))
                      + ", not num_layers " + std::to_string(c.numLayers));
    if (c.virtualStages > 1)
        why.push_back("heterogeneous training does not support the virtual pipeline (interleaved schedule)");
    if (c.standaloneEmbeddingStage)
        why.push_back("standalone_embedding_stage must be False");
    checkTiedEmbeddings(c, why);
    if (c.deviceTypes.size() != c.meshes.size())
        why.push_back(std::to_string(c.meshes.size()) + " meshes but " + std::to_string(c.deviceTypes.size())
                      + " device types");
    if (std::find(c.deviceTypes.begin(), c.deviceTypes.end(), c.currentDeviceType) == c.deviceTypes.end())
        why.push_back("the current device type \"" + c.currentDeviceType + "\" is not among the device types");
    checkRecompute(c, why);
    return why;
}

std::vector<Recompute> FlagScaleExport::expressibleRecompute(const std::vector<Recompute>& levels)
{
    if (levels.empty() || uniform(levels))
        return levels;
    std::vector<Recompute> out = levels;
    for (auto& r : out)
        if (r == Recompute::Selective)
            r = Recompute::Full;
    return out;
}

std::string FlagScaleExport::perStageList(const std::vector<Recompute>& levels, int microBatchCount,
                                          RecomputeList which)
{
    auto value = [&](Recompute r) {
        switch (which) {
        case RecomputeList::Granularity: return r == Recompute::Full ? 1 : 0;  // 0 off, 1 full
        case RecomputeList::Method: return 0;  // 0 uniform
        case RecomputeList::NumLayers: return r == Recompute::Full ? 1 : 0;  // chunks of 1 layer; 0 = off
        }
        return 0;
    };
    std::string out = "[";
    for (std::size_t i = 0; i < levels.size();) {
        std::size_t j = i;
        while (j < levels.size() && value(levels[j]) == value(levels[i]))
            ++j;
        out += (i ? ", [" : "[") + std::to_string(j - i) + ", " + std::to_string(microBatchCount) + ", "
            + std::to_string(value(levels[i])) + "]";
        i = j;
    }
    return out + "]";
}

HeteroConfig FlagScaleExport::configFor(const PlanDocument& doc, const LaunchLayout& layout)
{
    const Plan& p = doc.plan;
    auto refuse = [&](const std::string& why) {
        throw InputError(doc.file, "--target flagscale", "FlagScale cannot run this plan: " + why);
    };
    for (const auto& h : layout.hosts) {
        if (h.gpuTypes.size() > 1)
            refuse("host " + h.name
                   + " runs stages on two GPU types, but a FlagScale hostfile gives each host one "
                     "type=");
        if (h.agents.size() > 1)
            refuse("host " + h.name
                   + " holds stages that are not neighbours in the pipeline; FlagScale starts one "
                     "torchrun agent per host, so its ranks must be contiguous");
    }
    HeteroConfig c;
    c.numLayers = doc.problem.model.numLayers;
    c.pipelineParallel = p.pp;
    c.microBatch = p.microBatch;
    c.globalBatch = p.globalBatch;
    c.virtualStages = p.schedule == Schedule::Interleaved ? p.virtualStages : 1;
    c.tiedEmbeddings = doc.problem.model.tiedEmbeddings;
    c.distributedOptimizer = doc.problem.setup.distributedOptimizer;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
        const StagePlan& s = p.stages[i];
        const StageShape shape = p.shapeOf(i);
        const std::string type = Text::safeName(s.gpuType);
        c.layerSplit.push_back(s.layers);
        c.stageRecompute.push_back(s.recompute);
        if (!c.meshes.empty() && c.meshes.back().deviceType == type) {
            if (c.meshes.back().tp != shape.tp || c.meshes.back().dp != shape.dp)
                refuse("stages " + std::to_string(i - 1) + " and " + std::to_string(i) + " are both " + s.gpuType
                       + " with different TP x DP; FlagScale gives each device type one mesh with one TP and DP");
            ++c.meshes.back().pp;
            continue;
        }
        if (std::find(c.deviceTypes.begin(), c.deviceTypes.end(), type) != c.deviceTypes.end()) {
            std::string o;
            for (const auto& st : p.stages)
                o += (o.empty() ? "" : " > ") + st.gpuType;
            refuse("FlagScale orders ranks by device type (RankMapper sorts by the position in "
                   "hetero_device_types), so the stages of one GPU type must be neighbours; this plan's stage "
                   "order is "
                   + o);
        }
        HeteroMesh m;
        m.tp = shape.tp;
        m.dp = shape.dp;
        m.pp = 1;
        m.deviceType = type;
        c.meshes.push_back(m);
        c.deviceTypes.push_back(type);
    }
    c.currentDeviceType = c.deviceTypes.front();
    // Tied embeddings over meshes of other DPs reduce the shared embedding's
    // gradient partially (FlagScale requires the flag then).
    c.partialReduceSharedEmbedding
        = c.tiedEmbeddings && c.distributedOptimizer && c.meshes.front().dp != c.meshes.back().dp;
    c.stageRecompute = expressibleRecompute(c.stageRecompute);
    const auto problems = validate(c);
    if (!problems.empty()) {
        std::string all;
        for (const auto& w : problems)
            all += (all.empty() ? "" : "; ") + w;
        refuse(all);
    }
    return c;
}

namespace {

// The warning when FlagScale cannot run the plan's recomputation exactly
// (selective beside other levels); empty when it can.
std::string inexactWarning(const PlanDocument& doc, const HeteroConfig& c)
{
    const Plan& p = doc.plan;
    std::vector<Recompute> planned;
    for (const auto& s : p.stages)
        planned.push_back(s.recompute);
    std::string warning;
    if (planned != c.stageRecompute) {
        std::string levels;
        for (std::size_t i = 0; i < planned.size(); ++i)
            levels += (i ? ", " : "") + std::string("stage ") + std::to_string(i) + " " + toString(planned[i]);
        std::string why;
        const auto nearest = MegatronExport::nearestCost(doc, c.stageRecompute, why);
        std::string cost = nearest ? "predicted " + Text::fmt("%.1f", nearest->iterationMs)
                + " ms per iteration (the plan: " + Text::fmt("%.1f", p.iterationMs) + " ms), largest per-GPU peak "
                + Text::fmt("%.0f", nearest->maxMemMiB) + " MiB (the plan: " + Text::fmt("%.0f", p.maxMemMiB) + " MiB)"
                + (nearest->feasible ? "" : "; NOT feasible: " + nearest->whyInfeasible)
                                   : "cost not predicted (" + why + ")";
        cost = Text::oneLine(cost);  // may quote a message naming a GPU type or node
        warning = "# !!! NOT THE EXACT PLAN. The plan mixes selective recomputation with other levels (" + levels
            + "),\n# !!! and FlagScale sets per-stage recomputation only as none or full. This config runs full\n"
              "# !!! recomputation where the plan has selective; "
            + cost + ".\n#\n";
    }
    return warning;
}

// The system section's recomputation (nothing when no stage recomputes).
std::string recomputeYaml(const HeteroConfig& c, int microBatchCount)
{
    std::string t;
    const Recompute first = c.stageRecompute.front();
    const bool uni = uniform(c.stageRecompute);
    if (!(uni && first == Recompute::None)) {
        t += "  recompute:\n";
        if (uni && first == Recompute::Selective) {
            t += "    recompute_granularity: \"selective\"\n";
        } else {
            t += "    recompute_granularity: \"full\"\n    recompute_method: \"uniform\"\n    recompute_num_layers: 1\n";
            if (!uni) {
                t += "    # per stage: [n_stages, n_micro_batches, value]; granularity 0 off / 1 full, method 0 "
                     "uniform, num_layers 0 off\n";
                t += "    recompute_granularity_per_stage_micro_batch: "
                    + FlagScaleExport::perStageList(c.stageRecompute, microBatchCount,
                                                    FlagScaleExport::RecomputeList::Granularity)
                    + "\n";
                t += "    recompute_method_per_stage_micro_batch: "
                    + FlagScaleExport::perStageList(c.stageRecompute, microBatchCount,
                                                    FlagScaleExport::RecomputeList::Method)
                    + "\n";
                t += "    recompute_num_layers_per_stage_micro_batch: "
                    + FlagScaleExport::perStageList(c.stageRecompute, microBatchCount,
                                                    FlagScaleExport::RecomputeList::NumLayers)
                    + "\n";
            }
        }
    }
    return t;
}

// conf/train/memx_plan.yaml's system section: parallelism, precision, the
// heterogeneous meshes, recomputation, logging.
std::string systemYaml(const PlanDocument& doc, const HeteroConfig& c, const MegatronJob& job)
{
    const Plan& p = doc.plan;
    std::string t = "system:\n";
    t += "  tensor_model_parallel_size: " + std::to_string(p.tp) + "\n";
    t += "  pipeline_model_parallel_size: " + std::to_string(p.pp) + "  # = sum of the meshes' pp\n";
    t += std::string("  sequence_parallel: ") + yamlBool(p.tp > 1 && doc.problem.setup.sequenceParallel) + "\n";
    t += std::string("  disable_bias_linear: ") + yamlBool(!doc.problem.model.style.linearBias) + "\n";
    t += std::string("  use_distributed_optimizer: ") + yamlBool(doc.problem.setup.distributedOptimizer) + "\n";
    if (doc.problem.setup.overlapGradReduce)
        t += "  overlap_grad_reduce: True\n";
    if (doc.problem.setup.overlapParamGather && doc.problem.setup.overlapGradReduce
        && doc.problem.setup.distributedOptimizer)  // Megatron refuses it otherwise
        t += "  overlap_param_gather: True\n";
    if (job.precision == "fp32" || job.precision == "tf32")
        t += "  # precision: fp32 (no --bf16/--fp16)"
            + std::string(job.precision == "tf32" ? "; TF32 GEMMs: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 in envs"
                                                  : "; IEEE fp32 GEMMs: TF32 turned off in envs")
            + "\n";
    else if (job.precision == "fp8")
        t += "  precision:\n    bf16: True\n    fp8_format: hybrid  # Transformer Engine fp8 GEMMs (model.transformer_impl)\n";
    else
        t += "  precision:\n    " + job.precision + ": True"
            + (job.precision == "fp16" ? "  # dynamic loss scaling" : "") + "\n";
    t += "  hetero:\n    enable_hetero: True\n";
    t += "    hetero_pipeline_layer_split: [" + Text::joinInts(c.layerSplit, ", ") + "]\n";
    std::string meshes;
    std::string types;
    for (const auto& mesh : c.meshes) {
        meshes += (meshes.empty() ? "" : ",  ") + std::to_string(mesh.tp) + ", " + std::to_string(mesh.cp) + ", "
            + std::to_string(mesh.ep) + ", " + std::to_string(mesh.dp) + ", " + std::to_string(mesh.pp);
    }
    for (const auto& ty : c.deviceTypes)
        types += (types.empty() ? "" : ", ") + Text::yamlQuoted(ty);
    t += "    hetero_process_meshes: [" + meshes + "]  # (tp cp ep dp pp) per mesh, one mesh per device type\n";
    t += "    hetero_device_types: [" + types + "]\n";
    t += "    hetero_current_device_type: " + Text::yamlQuoted(c.currentDeviceType)
        + "  # the runner sets each host's type=\n";
    t += "    standalone_embedding_stage: False\n";
    if (c.partialReduceSharedEmbedding)
        t += "  use_partial_reduce_for_shared_embedding: True  # tied embeddings, first and last mesh DPs differ\n";
    t += recomputeYaml(c, p.microBatchCount);
    t += "  logging:\n    log_interval: 1\n    log_throughput: True\n    timing_log_level: 1\n";
    t += "  checkpoint:\n    save_interval: 1000\n";
    return t;
}

// conf/train/memx_plan.yaml's model and data sections.
std::string modelYaml(const PlanDocument& doc, const MegatronJob& job)
{
    const Plan& p = doc.plan;
    const ModelSpec& m = doc.problem.model;
    std::string t = "model:\n";
    t += "  use_mcore_models: True\n  transformer_impl: transformer_engine\n";
    t += "  num_layers: " + std::to_string(m.numLayers) + "\n";
    t += "  hidden_size: " + std::to_string(m.hidden) + "\n";
    t += "  ffn_hidden_size: " + std::to_string(m.ffn()) + "\n";
    t += "  num_attention_heads: " + std::to_string(m.heads) + "\n";
    if (m.headDim > 0 && m.headDim * m.heads != m.hidden)
        t += "  kv_channels: " + std::to_string(m.headDim) + "\n";
    t += std::string("  group_query_attention: ") + yamlBool(p.queryGroups < m.heads) + "\n";
    if (p.queryGroups < m.heads)
        t += "  num_query_groups: " + std::to_string(p.queryGroups) + "\n";
    t += "  seq_length: " + std::to_string(p.seqLen) + "\n";
    t += "  max_position_embeddings: " + std::to_string(p.seqLen) + "\n";
    t += std::string("  swiglu: ") + yamlBool(m.mlp == MlpKind::SwiGlu) + "\n";
    t += std::string("  normalization: ") + megatronNormalization(doc.problem.model.style.norm) + "\n";
    t += std::string("  position_embedding_type: ") + toString(doc.problem.model.style.position) + "\n";
    if (!job.flashAttention)  // turned off, or fp32/tf32 (no FlashAttention)
        t += "  attention_backend: unfused  # planned without flash attention: the s x s scores are kept\n";
    // Always the plan's rates: Megatron's default of 0.1 keeps masks.
    t += "  attention_dropout: " + Text::pyFloat(job.attentionDropout)
        + (job.attentionDropout > 0 ? "\n" : "  # planned without dropout masks (Megatron's default is 0.1)\n");
    t += "  hidden_dropout: " + Text::pyFloat(job.hiddenDropout) + "\n";
    t += std::string("  untie_embeddings_and_output_weights: ") + yamlBool(!m.tiedEmbeddings) + "\n";
    t += "  micro_batch_size: " + std::to_string(p.microBatch) + "\n";
    t += "  global_batch_size: " + std::to_string(p.globalBatch) + "\n";
    t += "  train_iters: 100\n  eval_iters: 0\n";
    t += "  optimizer:\n    lr_scheduler:\n      lr: 1.0e-4\n      lr_decay_style: constant\n";
    t += "data:\n  # replace the mock data by your data set (data_path, tokenizer)\n  mock_data: True\n";
    t += "  tokenizer:\n    tokenizer_type: NullTokenizer\n    vocab_size: " + std::to_string(m.vocab) + "\n";

    return t;
}

// conf/train_hetero.yaml: the experiment, its runner and hydra.
std::string experimentYaml(const PlanDocument& doc, const LaunchLayout& lay, const std::string& destination)
{
    const ModelSpec& m = doc.problem.model;
    std::string e
        = "# Run from the FlagScale checkout: python run.py --config-path <this dir>/conf --config-name train_hetero\n";
    e += "defaults:\n  - train: memx_plan\n  - _self_\n\n";
    e += "experiment:\n";
    e += "  exp_name: " + Text::yamlQuoted("memx_" + Text::safeName(m.name)) + "\n";
    e += "  exp_dir: " + Text::yamlQuoted("./outputs_memx_" + Text::safeName(m.name)) + "\n";
    e += "  task:\n    type: train\n    backend: megatron\n    entrypoint: ./flagscale/train/train_gpt.py\n";
    e += "  runner:\n    backend: torchrun\n";
    e += "    nnodes: " + std::to_string(lay.hosts.size()) + "\n";
    if (destination.empty())
        e += "    hostfile: hostfile  # relative to where run.py starts: give the absolute path of this export's hostfile\n";
    else
        e += "    hostfile: "
            + Text::yamlQuoted((std::filesystem::absolute(destination) / "hostfile").lexically_normal().string())
            + "  # this export's hostfile; change it if you move the folder\n";
    e += "    rdzv_backend: static  # heterogeneous training needs static: node rank = hostfile line\n";
    e += "    master_port: 29500\n";
    e += visibleDevicesEnvs(doc, lay);
    e += "action: run\n\nhydra:\n  run:\n    dir: ${experiment.exp_dir}/hydra\n";

    return e;
}

}  // namespace

std::vector<ExportedFile> FlagScaleExport::files(const PlanDocument& doc, const std::string& destination)
{
    const Plan& p = doc.plan;
    const LaunchLayout lay = LaunchFiles::layout(doc.problem.cluster, p);
    const HeteroConfig c = configFor(doc, lay);
    const std::string warning = inexactWarning(doc, c);
    const std::string header = warning + LaunchFiles::header(doc, "flagscale");
    const MegatronJob job = MegatronExport::jobFor(doc, c.stageRecompute.front());
    const std::string t = header
        + "# FlagScale flattens system, model and data into one Megatron command line (_ -> -, True -> flag).\n"
        + systemYaml(doc, c, job) + modelYaml(doc, job);
    const std::string e = header + experimentYaml(doc, lay, destination);
    std::vector<ExportedFile> out;
    out.push_back({"conf/train_hetero.yaml", e, false});
    out.push_back({"conf/train/memx_plan.yaml", t, false});
    std::string hf = LaunchFiles::hostfile(doc, lay, "flagscale", true);
    if (!warning.empty())
        hf = warning + hf;
    out.push_back({"hostfile", hf, false});
    return out;
}

}  // namespace memx
