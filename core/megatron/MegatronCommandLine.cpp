#include "megatron/MegatronCommandLine.h"

#include "hardware/GpuType.h"
#include "io/Text.h"

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

std::string MegatronCommandLine::layout(const std::vector<int>& layers, int v)
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

std::vector<std::string> MegatronCommandLine::splitArguments(const std::vector<int>& layers, int v)
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

namespace {

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument(why); }

// A command line under construction: flags, and flags with a value.
struct Args {
    std::vector<std::string> list;
    void add(const std::string& flag) { list.push_back(flag); }
    void addv(const std::string& flag, long long value)
    {
        list.push_back(flag);
        list.push_back(std::to_string(value));
    }
};

// Megatron-LM's own checks (reference/EXPORT_AND_LOGS.md section 1); the
// layers of each stage, even when the job leaves them to Megatron.
std::vector<int> checkedStageLayers(const MegatronJob& job, int groups, int v)
{
    const ModelSpec& m = job.model;
    const int heads = m.heads;
    if (job.tp < 1 || job.pp < 1 || job.dp < 1 || job.microBatch < 1)
        refuse("TP, PP, DP and the micro-batch size must be at least 1");
    if (heads % job.tp != 0)
        refuse(std::to_string(heads) + " attention heads are not divisible by TP " + std::to_string(job.tp));
    if (groups % job.tp != 0 && job.tp % groups != 0)
        refuse(std::to_string(groups) + " query groups and TP " + std::to_string(job.tp) + " must divide one another");
    if (job.globalBatch % (job.microBatch * job.dp) != 0)
        refuse("global batch " + std::to_string(job.globalBatch)
               + " is not divisible by micro-batch x DP = " + std::to_string(job.microBatch * job.dp));
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
    return layers;
}

// The model's shape and layer style.
void addModelArguments(Args& args, const ModelSpec& m, int groups, int seq)
{
    const int heads = m.heads;
    const int ffn = m.ffn();
    auto add = [&](const std::string& flag) { args.add(flag); };
    auto addv = [&](const std::string& flag, long long value) { args.addv(flag, value); };
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
}

// The training precision; tf32 is fp32 arguments with TF32 from the environment.
void addPrecisionArguments(Args& args, const std::string& precision)
{
    auto add = [&](const std::string& flag) { args.add(flag); };
    if (precision == "bf16")
        add("--bf16");
    else if (precision == "fp16")
        add("--fp16");  // dynamic loss scaling: Megatron's default without --loss-scale
    else if (precision == "fp8") {
        // Transformer Engine fp8 GEMMs on top of bf16 training: E4M3 forward,
        // E5M2 gradients (the "hybrid" format), TE's layers.
        add("--bf16");
        for (const char* f : {"--fp8-format", "hybrid", "--transformer-impl", "transformer_engine"})
            add(f);
    } else if (precision != "fp32" && precision != "tf32")  // tf32: fp32 arguments, TF32 from the environment
        refuse("unknown precision \"" + precision + "\" (" + precisionChoices() + ")");
}

// What the plan's memory and time assume: attention kernel, dropout, the
// distributed optimizer, overlaps, recomputation.
void addMemoryArguments(Args& args, const MegatronJob& job)
{
    auto add = [&](const std::string& flag) { args.add(flag); };
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
        for (const char* f :
             {"--recompute-granularity", "full", "--recompute-method", "uniform", "--recompute-num-layers", "1"})
            add(f);
        break;
    }
}

}  // namespace

std::vector<std::string> MegatronCommandLine::arguments(const MegatronJob& job)
{
    const ModelSpec& m = job.model;
    const int groups = job.queryGroups > 0 ? job.queryGroups : (m.queryGroups > 0 ? m.queryGroups : m.heads);
    const int seq = job.seqLen > 0 ? job.seqLen : m.seqLen;
    const int v = std::max(1, job.virtualStages);
    const std::vector<int> layers = checkedStageLayers(job, groups, v);

    Args args;
    args.addv("--tensor-model-parallel-size", job.tp);
    args.addv("--pipeline-model-parallel-size", job.pp);
    if (job.tp > 1 && job.sequenceParallel)
        args.add("--sequence-parallel");
    for (const auto& t : splitArguments(layers, v))
        args.add(t);
    addModelArguments(args, m, groups, seq);
    args.addv("--micro-batch-size", job.microBatch);
    args.addv("--global-batch-size", job.globalBatch);
    addPrecisionArguments(args, job.precision);
    addMemoryArguments(args, job);
    return args.list;
}

std::string MegatronCommandLine::precisionFor(const std::vector<const GpuType*>& types, std::string& why)
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

std::vector<MegatronCommandLine::EnvVar> MegatronCommandLine::matmulEnvironment(const std::string& precision)
{
    if (precision == "tf32")
        return {{"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1"}};
    if (precision == "fp32")
        return {{"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "0"}, {"NVIDIA_TF32_OVERRIDE", "0"}};
    return {};
}

}  // namespace memx
