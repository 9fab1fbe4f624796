#include "profiling/ProfilingPlanner.h"

#include "megatron/MegatronCommandLine.h"
#include "io/Text.h"

#include "hardware/GpuType.h"
#include "model/ModelSpec.h"
#include "predict/Predictor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace memx {

namespace {

std::vector<int> powersOfTwoDividing(int n, int maxValue)
{
    std::vector<int> out;
    for (int v = 1; v <= maxValue && n > 0; v *= 2)
        if (n % v == 0)
            out.push_back(v);
    return out;
}

double amplitude(const std::vector<double>& xs)
{
    if (xs.empty())
        return 0;
    auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    double mean = 0;
    for (double x : xs)
        mean += x;
    mean /= double(xs.size());
    return mean > 0 ? (*hi - *lo) / mean : 0;
}

const KeyParameter* findKey(const std::vector<KeyParameter>& keys, const std::string& name)
{
    for (const auto& k : keys)
        if (k.name == name)
            return &k;
    return nullptr;
}

}  // namespace

std::vector<ParameterAxis> ProfilingPlanner::defaultAxes(const ModelSpec& model)
{
    std::vector<ParameterAxis> axes;
    // TP within one server (at most 8), dividing the head count.
    axes.push_back({"tp", powersOfTwoDividing(model.heads, 8), 1, true});
    axes.push_back({"micro_batch", {1, 2, 4, 8, 16}, 1, true});
    {
        ParameterAxis seq{"seq_len", {1024, 2048, 4096, 8192}, 0, true};
        seq.defaultValue = model.seqLen > 0 ? model.seqLen : 4096;
        if (std::find(seq.values.begin(), seq.values.end(), seq.defaultValue) == seq.values.end()) {
            seq.values.push_back(seq.defaultValue);
            std::sort(seq.values.begin(), seq.values.end());
        }
        axes.push_back(seq);
    }
    {
        ParameterAxis layers{"layers", {}, 0, false};
        int maxLayers = std::max(1, model.numLayers);
        for (int v = 4; v < maxLayers; v += 4)
            layers.values.push_back(v);
        layers.values.push_back(maxLayers);
        // A typical stage of a 4-way pipeline.
        int def = std::max(1, maxLayers / 4);
        layers.defaultValue = *std::min_element(layers.values.begin(), layers.values.end(),
                                                [def](int a, int b) { return std::abs(a - def) < std::abs(b - def); });
        axes.push_back(layers);
    }
    axes.push_back({"recompute", {0, 1, 2}, 0, false});
    {
        ParameterAxis groups{"query_groups", powersOfTwoDividing(model.heads, model.heads), 0, true};
        int g = model.queryGroups > 0 ? model.queryGroups : model.heads;
        if (std::find(groups.values.begin(), groups.values.end(), g) == groups.values.end()) {
            groups.values.push_back(g);
            std::sort(groups.values.begin(), groups.values.end());
        }
        groups.defaultValue = g;
        axes.push_back(groups);
    }
    return axes;
}

StageQuery ProfilingPlanner::baseQuery(const ModelSpec& model, const GpuType& gpu,
                                       const std::vector<ParameterAxis>& axes, const Options& options)
{
    StageQuery q;
    q.gpu = &gpu;
    q.dp = 1;
    q.hidden = model.hidden;
    q.heads = model.heads;
    q.headDim = model.headDim > 0 ? model.headDim : (model.heads > 0 ? model.hidden / model.heads : 0);
    q.queryGroups = model.queryGroups > 0 ? model.queryGroups : model.heads;
    q.ffnHidden = model.ffn();
    q.mlp = model.mlp;
    q.tiedEmbeddings = model.tiedEmbeddings;
    q.style = model.style;
    q.vocab = model.vocab;
    q.seqLen = model.seqLen > 0 ? model.seqLen : q.seqLen;
    q.layers = model.numLayers > 0 ? model.numLayers : 1;
    q.hasEmbedding = true;  // PP = 1: the one stage holds the embedding and the output layer
    q.hasOutput = true;
    q.inflight = 1;  // PP = 1: each micro-batch finishes its backward before the next starts
    q.tpLinkGBps = options.tpLinkGBps;
    q.tpLatencyUs = options.tpLatencyUs;
    q.flashAttention = options.flashAttention;
    q.sequenceParallel = options.sequenceParallel;
    q.dropout = dropoutOf(options.attentionDropout, options.hiddenDropout);
    for (const auto& a : axes)
        q = apply(q, a.name, a.defaultValue);
    return q;
}

std::string ProfilingPlanner::fitDefaults(std::vector<ParameterAxis>& axes, const ModelSpec& model, const GpuType& gpu,
                                          const Options& options, const std::function<bool(const StageQuery&)>& fits)
{
    const std::vector<ParameterAxis> before = axes;
    // The values an axis may move to, nearest first: its default, then up
    // (TP, recomputation) or down (layers) its list.
    const auto moves = [&](const char* name, bool up) -> std::pair<ParameterAxis*, std::vector<int>> {
        for (ParameterAxis& a : axes)
            if (a.name == name) {
                std::vector<int> v{a.defaultValue};
                for (int x : a.values)
                    if (up ? x > a.defaultValue : x < a.defaultValue)
                        v.push_back(x);
                if (!up)
                    std::sort(v.begin() + 1, v.end(), std::greater<>());
                return {&a, v};
            }
        return {nullptr, {0}};
    };
    auto [tp, tps] = moves("tp", true);
    auto [layers, layerCounts] = moves("layers", false);
    auto [recompute, levels] = moves("recompute", true);
    // The smallest change first: more TP before fewer layers, fewer layers
    // before more recomputation.
    for (int r : levels)
        for (int l : layerCounts)
            for (int t : tps) {
                for (auto [axis, v] : {std::pair{tp, t}, std::pair{layers, l}, std::pair{recompute, r}})
                    if (axis)
                        axis->defaultValue = v;
                const StageQuery q = baseQuery(model, gpu, axes, options);
                if (!valid(q) || !fits(q))
                    continue;
                std::string moved;
                for (std::size_t i = 0; i < axes.size(); ++i)
                    if (axes[i].defaultValue != before[i].defaultValue)
                        moved += (moved.empty() ? "" : ", ") + axes[i].name + " "
                            + std::to_string(before[i].defaultValue) + " -> " + std::to_string(axes[i].defaultValue);
                return moved;
            }
    axes = before;
    return {};
}

StageQuery ProfilingPlanner::apply(StageQuery q, const std::string& axis, int value)
{
    if (axis == "tp")
        q.tp = value;
    else if (axis == "micro_batch")
        q.microBatch = value;
    else if (axis == "seq_len")
        q.seqLen = value;
    else if (axis == "layers")
        q.layers = value;
    else if (axis == "recompute") {
        if (value < 0 || value >= kRecomputeLevels)
            throw std::invalid_argument("recompute level " + std::to_string(value) + " is not 0, 1 or 2");
        q.recompute = static_cast<Recompute>(value);
    } else if (axis == "query_groups")
        q.queryGroups = value;
    else
        throw std::invalid_argument("unknown profiling axis '" + axis + "'");
    return q;
}

bool ProfilingPlanner::valid(const StageQuery& q)
{
    if (q.tp < 1 || q.microBatch < 1 || q.seqLen < 1 || q.layers < 1 || q.heads < 1)
        return false;
    if (q.heads % q.tp != 0)
        return false;
    int g = q.queryGroups > 0 ? q.queryGroups : q.heads;
    if (q.heads % g != 0)
        return false;
    return g % q.tp == 0 || q.tp % g == 0;
}

std::vector<int> ProfilingPlanner::threePoints(const ParameterAxis& axis, bool centreAtDefault)
{
    std::vector<int> v = axis.values;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() <= 3)
        return v;
    int lo = v.front(), hi = v.back(), centre;
    if (centreAtDefault)
        centre = axis.defaultValue;
    else if (axis.powerOfTwo)
        centre = v[(v.size() - 1) / 2];
    else {
        double mid = (double(lo) + double(hi)) / 2.0;
        centre = v[0];
        for (int x : v)  // ascending: strict < keeps the lower value on a tie
            if (std::abs(x - mid) < std::abs(centre - mid))
                centre = x;
    }
    std::vector<int> out{lo, centre, hi};
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<int> ProfilingPlanner::sweepValues(const ParameterAxis& axis)
{
    std::vector<int> v = threePoints(axis);
    if (std::find(v.begin(), v.end(), axis.defaultValue) == v.end()) {
        v.push_back(axis.defaultValue);
        std::sort(v.begin(), v.end());
    }
    return v;
}

std::vector<StageQuery> ProfilingPlanner::presampleQueries(const StageQuery& base,
                                                           const std::vector<ParameterAxis>& axes)
{
    std::vector<StageQuery> out;
    if (valid(base))
        out.push_back(base);
    for (const auto& axis : axes)
        for (int v : sweepValues(axis)) {
            const StageQuery q = apply(base, axis.name, v);
            if (!valid(q))
                continue;
            const bool seen = std::any_of(out.begin(), out.end(), [&](const StageQuery& o) {
                return o.tp == q.tp && o.microBatch == q.microBatch && o.seqLen == q.seqLen && o.layers == q.layers
                    && o.recompute == q.recompute && o.queryGroups == q.queryGroups;
            });
            if (!seen)
                out.push_back(q);
        }
    return out;
}

std::vector<KeyParameter> ProfilingPlanner::identify(const StageQuery& base, const std::vector<ParameterAxis>& axes,
                                                     const MeasureFn& measure, double threshold)
{
    std::vector<KeyParameter> out;
    for (const auto& axis : axes) {
        std::vector<double> times, mems;
        int swept = 0;
        for (int v : sweepValues(axis)) {
            StageQuery q = apply(base, axis.name, v);
            if (!valid(q))
                continue;
            ++swept;
            auto [t, m] = measure(q);
            if (std::isnan(t))
                continue;  // not measured, or out of memory
            times.push_back(t);
            if (!std::isnan(m))
                mems.push_back(m);
        }
        KeyParameter k;
        k.name = axis.name;
        k.points = static_cast<int>(times.size());
        k.memoryPoints = static_cast<int>(mems.size());
        k.timeAmplitude = amplitude(times);
        k.memoryAmplitude = amplitude(mems);
        k.unmeasured = swept >= 2 && k.points < 2;
        k.memoryUnmeasured = !k.unmeasured && swept >= 2 && k.memoryPoints < 2;
        k.highImpact
            = k.timeAmplitude > threshold || k.memoryAmplitude > threshold || k.unmeasured || k.memoryUnmeasured;
        out.push_back(k);
    }
    return out;
}

std::uint64_t ProfilingPlanner::exhaustiveCount(const std::vector<ParameterAxis>& axes)
{
    std::uint64_t n = 1;
    for (const auto& a : axes)
        n *= std::max<std::uint64_t>(1, a.values.size());
    return n;
}

std::uint64_t ProfilingPlanner::sampledCount(const std::vector<ParameterAxis>& axes,
                                             const std::vector<KeyParameter>& keys)
{
    std::uint64_t n = 1;
    for (const auto& a : axes) {
        const KeyParameter* k = findKey(keys, a.name);
        if (k && k->highImpact)
            n *= std::max<std::uint64_t>(1, threePoints(a).size());
    }
    return n;
}

std::vector<StageQuery> ProfilingPlanner::sampleQueries(const StageQuery& base, const std::vector<ParameterAxis>& axes,
                                                        const std::vector<KeyParameter>& keys)
{
    std::vector<StageQuery> out{base};
    for (const auto& a : axes) {
        const KeyParameter* k = findKey(keys, a.name);
        std::vector<int> vals = (k && k->highImpact) ? threePoints(a) : std::vector<int>{a.defaultValue};
        std::vector<StageQuery> next;
        next.reserve(out.size() * vals.size());
        for (const auto& q : out)
            for (int v : vals)
                next.push_back(apply(q, a.name, v));
        out = std::move(next);
    }
    std::erase_if(out, [](const StageQuery& q) { return !valid(q); });
    return out;
}

PlannedRun ProfilingPlanner::planRun(const StageQuery& q, const MeasureFn& estimate, const Options& options)
{
    PlannedRun r;
    r.query = q;
    r.estimatedMs = estimate(q).first;
    double iterations = double(options.warmupIterations + options.measuredIterations);
    double seconds
        = options.startupSeconds + iterations * double(options.microBatchesPerIteration) * r.estimatedMs / 1000.0;
    r.estimatedGpuHours = double(q.tp) * seconds / 3600.0;
    return r;
}

ProfilingPlan ProfilingPlanner::plan(const ModelSpec& model, const GpuType& gpu, const MeasureFn& measure,
                                     const MeasureFn& estimate, const Options& options)
{
    ProfilingPlan p;
    p.axes = defaultAxes(model);
    StageQuery base = baseQuery(model, gpu, p.axes, options);
    p.keyParameters = identify(base, p.axes, measure, options.threshold);
    p.exhaustiveCount = exhaustiveCount(p.axes);
    p.sampledCount = sampledCount(p.axes, p.keyParameters);
    for (const auto& q : sampleQueries(base, p.axes, p.keyParameters)) {
        p.runs.push_back(planRun(q, estimate, options));
        p.totalGpuHours += p.runs.back().estimatedGpuHours;
    }
    return p;
}

ProfilingPlanner::MeasureFn ProfilingPlanner::measureWith(const Predictor& predictor)
{
    return [&predictor](const StageQuery& q) {
        StagePrediction p = predictor.predictOne(q);
        return std::make_pair(p.timeMs, p.memoryMiB());
    };
}

std::string ProfilingPlanner::formatTable(const std::vector<KeyParameter>& keys, double threshold)
{
    std::string out;
    char line[160];
    std::snprintf(line, sizeof line, "%-14s %10s %10s  %s (threshold %.0f%%)\n", "parameter", "time", "memory",
                  "impact", threshold * 100.0);
    out += line;
    for (const auto& k : keys) {
        const std::string memory = k.memoryUnmeasured ? "-" : Text::fmt("%.1f%%", k.memoryAmplitude * 100.0);
        std::snprintf(line, sizeof line, "%-14s %9.1f%% %10s  %s\n", k.name.c_str(), k.timeAmplitude * 100.0,
                      memory.c_str(),
                      k.unmeasured                                             ? "high (fewer than two points measured)"
                          : k.memoryUnmeasured && k.timeAmplitude <= threshold ? "high (memory not measured)"
                          : k.highImpact                                       ? "high"
                                                                               : "low");
        out += line;
    }
    return out;
}

std::string ProfilingPlanner::megatronCommand(const PlannedRun& run, const ModelSpec& model)
{
    return megatronCommand(run, model, Options{});
}

std::string ProfilingPlanner::megatronCommand(const PlannedRun& run, const ModelSpec& model, const Options& options)
{
    const StageQuery& q = run.query;
    const int heads = q.heads > 0 ? q.heads : model.heads;
    const int groups = q.queryGroups > 0 ? q.queryGroups : heads;
    const int hidden = q.hidden > 0 ? q.hidden : model.hidden;
    const int ffn = q.ffnHidden > 0
        ? q.ffnHidden
        : (model.ffnHidden > 0 ? model.ffnHidden : ModelSpec::defaultFfn(hidden, model.mlp));
    const int headDim = q.headDim > 0 ? q.headDim : (heads > 0 ? hidden / heads : 0);
    const int vocab = q.vocab > 0 ? q.vocab : model.vocab;
    const int iters = options.warmupIterations + options.measuredIterations;

    // The model and parallel flags come from the exporter's one argument builder.
    MegatronJob job;
    job.model = model;
    job.model.numLayers = q.layers;
    job.model.hidden = hidden;
    job.model.heads = heads;
    job.model.headDim = headDim;
    job.model.queryGroups = groups;
    job.model.ffnHidden = ffn;  // job.model = model: its MLP kind and embeddings
    job.model.vocab = vocab;
    job.tp = q.tp;
    job.pp = 1;
    job.dp = std::max(1, q.dp);
    job.microBatch = q.microBatch;
    job.globalBatch = q.microBatch * job.dp * std::max(1, options.microBatchesPerIteration);
    job.seqLen = q.seqLen;
    job.queryGroups = groups;
    job.recompute = q.recompute;
    job.sequenceParallel = q.sequenceParallel;
    job.distributedOptimizer = q.distributedOptimizer;
    job.flashAttention = q.flashAttention;
    job.attentionDropout = launchRate(q.dropout.attention, options.attentionDropout);
    job.hiddenDropout = launchRate(q.dropout.hidden, options.hiddenDropout);
    if (q.gpu) {
        std::string why;
        job.precision = MegatronCommandLine::precisionFor({q.gpu}, why);
    }

    std::ostringstream c;
    for (const auto& v : MegatronCommandLine::matmulEnvironment(job.precision))
        c << v.name << "=" << v.value << " ";  // fp32 GEMMs as predicted, whatever the image sets
    c << "torchrun --nnodes 1 --nproc-per-node " << q.tp << " --master-addr localhost --master-port 29500"
      << " pretrain_gpt.py";
    // Every word through the shell's quoting: the command lands in a script.
    for (const auto& a : MegatronCommandLine::arguments(job))
        c << " " << Text::shellWord(a);
    c << " --mock-data --tokenizer-type NullTokenizer --vocab-size " << vocab
      << " --lr 1.0e-4 --lr-decay-style constant"
      << " --train-iters " << iters << " --eval-iters 0"
      << " --log-interval 1 --timing-log-level 2 --timing-log-option all"
      << " --log-memory-to-tensorboard --tensorboard-dir "
      << Text::shellWord("tb/" + Text::safeName(q.gpu ? q.gpu->name : std::string("gpu")) + "_tp" + std::to_string(q.tp)
                         + "_mbs" + std::to_string(q.microBatch) + "_seq" + std::to_string(q.seqLen) + "_l"
                         + std::to_string(q.layers) + "_rc" + std::to_string(static_cast<int>(q.recompute)) + "_g"
                         + std::to_string(groups));
    return c.str();
}

}  // namespace memx
