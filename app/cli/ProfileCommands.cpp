// profile-plan, simulate, import-logs: the measuring half of the learned
// prediction loop (MemX section 3.2.1).
#include "cli/Commands.h"
#include "cli/DropoutOptions.h"
#include "cli/PredictorOption.h"

#include "hardware/Cluster.h"
#include "export/LaunchFiles.h"
#include "hardware/Topology.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/Text.h"
#include "model/ModelSpec.h"
#include "predict/AnalyticPredictor.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "measure/LogImporter.h"
#include "profiling/PresampleMeasurements.h"
#include "profiling/ProfilingPlanner.h"
#include "measure/RunScenario.h"
#include "sim/ReferenceSimulator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

namespace memx::cli {

namespace {

namespace fs = std::filesystem;

// A profiling run (PP = 1, DP = 1, `layers` layers) as a run row without targets.
Measurement runRow(const PlannedRun& run, const ModelSpec& model, const ProfilingPlanner::Options& options)
{
    const StageQuery& q = run.query;
    Measurement m;
    m.runId = PresampleMeasurements::runIdOf(q);
    m.source = MeasurementSource::Measured;
    m.gpuType = q.gpu->name;
    m.numGpus = q.tp;
    m.tp = q.tp;
    m.pp = 1;
    m.dp = 1;
    m.mbs = q.microBatch;
    m.gbs = q.microBatch * options.microBatchesPerIteration;
    m.seqLen = q.seqLen;
    m.numLayers = q.layers;
    m.hidden = model.hidden;
    m.ffnHidden = model.ffnHidden;
    m.mlp = model.mlp;
    m.tiedEmbeddings = model.tiedEmbeddings;
    m.style = model.style;
    m.heads = model.heads;
    m.queryGroups = q.queryGroups;
    m.vocab = model.vocab;
    m.recompute = q.recompute;
    m.flashAttention = q.flashAttention;  // as profilingCommand launches it
    m.attentionDropout = launchRate(q.dropout.attention, options.attentionDropout);
    m.hiddenDropout = launchRate(q.dropout.hidden, options.hiddenDropout);
    m.sequenceParallel = q.sequenceParallel;  // only TP > 1 tells it apart
    m.distributedOptimizer = q.distributedOptimizer;
    m.estimatedGpuHours = run.estimatedGpuHours;
    return m;
}

struct PlanArgs {
    std::string cluster, model = "llama2-7b", out, scripts, from;
    double threshold = 0.10;
    bool noFlash = false;
    bool noSeqPar = false;
    bool presample = false;
    bool allAxes = false;
    std::vector<int> seqs, queryGroups;  // the values the search will vary; empty: the model's own
    DropoutRates dropout;
};

// A parameter the search will not vary is not one to sample: the sequence
// length and the query groups hold the values given (--seq,
// --query-groups; the search's candidates), the model's own by default, so
// a model trained at one length with one GQA layout is not profiled at
// three of each. --all-axes keeps the profiler's typical sets.
void restrictToTheSearch(std::vector<ParameterAxis>& axes, const PlanArgs& a, const ModelSpec& model)
{
    if (a.allAxes)
        return;
    for (ParameterAxis& axis : axes) {
        const bool seq = axis.name == "seq_len", groups = axis.name == "query_groups";
        if (!seq && !groups)
            continue;
        std::vector<int> values = seq ? a.seqs : a.queryGroups;
        if (values.empty())
            values = {axis.defaultValue};  // the model's (defaultAxes)
        for (int v : values)
            if (v < 1 || (groups && model.heads % v != 0))
                throw InputError(seq ? "--seq" : "--query-groups", "",
                                 std::to_string(v) + " is not "
                                     + (seq ? std::string("a sequence length (>= 1)")
                                            : "a query-group count dividing the " + std::to_string(model.heads)
                                                + " heads of " + model.name));
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        if (std::find(values.begin(), values.end(), axis.defaultValue) == values.end())
            axis.defaultValue = values.front();
        axis.values = values;
    }
}

// One GPU type's profiling set-up: its axes (TP up to its largest group),
// the options with its TP link, and the base query.
struct TypeSetup {
    std::vector<ParameterAxis> axes;
    ProfilingPlanner::Options opt;
    StageQuery base;
    std::size_t groupGpus = 0;
    std::string movedDefaults;  // what fitDefaults moved so that the base run fits
};

TypeSetup setupFor(const PlanArgs& a, const Cluster& cluster, const Topology& topo, const ModelSpec& model,
                   const GpuType& type, const AnalyticPredictor& analytic)
{
    TypeSetup t;
    // The largest group of this type bounds TP; its TP ring sets the link.
    std::vector<int> devices;
    for (const DeviceGroup& g : cluster.groups())
        if (cluster.types()[g.type].name == type.name && g.devices.size() > devices.size())
            devices = g.devices;
    t.groupGpus = devices.size();
    t.opt.threshold = a.threshold;
    t.opt.flashAttention = !a.noFlash;
    t.opt.sequenceParallel = !a.noSeqPar;
    t.opt.attentionDropout = a.dropout.attention;
    t.opt.hiddenDropout = a.dropout.hidden;
    t.axes = ProfilingPlanner::defaultAxes(model);
    restrictToTheSearch(t.axes, a, model);
    for (ParameterAxis& axis : t.axes) {
        if (axis.name != "tp")
            continue;
        std::erase_if(axis.values, [&](int tp) { return tp > static_cast<int>(devices.size()); });
        if (axis.values.empty())
            axis.values = {1};
        axis.defaultValue = axis.values.front();
        const int tpMax = axis.values.back();
        if (tpMax > 1) {
            const std::vector<int> first(devices.begin(), devices.begin() + tpMax);
            const PathRate rate = topo.ring(Topology::tensorParallelRings(first, tpMax, 1));
            t.opt.tpLinkGBps = rate.bandwidthGBps;
            t.opt.tpLatencyUs = rate.latencyUs;
        }
    }
    t.movedDefaults = ProfilingPlanner::fitDefaults(t.axes, model, type, t.opt, [&](const StageQuery& q) {
        return analytic.predictOne(q).memoryMiB() <= type.memoryMiB();
    });
    t.base = ProfilingPlanner::baseQuery(model, type, t.axes, t.opt);
    return t;
}

// A type measured only by stage profiles (Sailor's per-layer runs) is swept
// at a layer count they measured, the nearest to the default; its layers axis
// then has one measured point and stays high-impact. Returns what moved.
std::string moveToProfiledLayers(TypeSetup& t, const PresampleMeasurements& measured, const ModelSpec& model,
                                 const GpuType& type)
{
    const std::vector<int> counts = measured.profiledLayers(type.name);
    if (counts.empty() || std::find(counts.begin(), counts.end(), t.base.layers) != counts.end())
        return {};
    std::string moved;
    for (ParameterAxis& axis : t.axes) {
        if (axis.name != "layers")
            continue;
        const int before = axis.defaultValue;
        const int to = *std::min_element(counts.begin(), counts.end(),
                                         [&](int x, int y) { return std::abs(x - before) < std::abs(y - before); });
        if (std::find(axis.values.begin(), axis.values.end(), to) == axis.values.end()) {
            axis.values.push_back(to);
            std::sort(axis.values.begin(), axis.values.end());
        }
        axis.defaultValue = to;
        moved = "layers " + std::to_string(before) + " -> " + std::to_string(to);
    }
    t.base = ProfilingPlanner::baseQuery(model, type, t.axes, t.opt);
    return moved;
}

// The runs of a set of queries that fit in the type's memory (by the
// analytic model; one that would not only produces an OOM).
struct PlannedSet {
    std::vector<PlannedRun> runs;
    int oom = 0;
    double gpuHours = 0;
};

PlannedSet planSet(const std::vector<StageQuery>& queries, const GpuType& type, const TypeSetup& t,
                   const AnalyticPredictor& analytic)
{
    const auto estimate = ProfilingPlanner::measureWith(analytic);
    PlannedSet out;
    for (const StageQuery& q : queries) {
        if (analytic.predictOne(q).memoryMiB() > type.memoryMiB()) {
            ++out.oom;
            continue;
        }
        out.runs.push_back(ProfilingPlanner::planRun(q, estimate, t.opt));
        out.gpuHours += out.runs.back().estimatedGpuHours;
    }
    return out;
}

// The key parameters of one type from its measured pre-sampling runs, with
// what the analytic model's choice would have planned beside them.
std::vector<KeyParameter> measuredKeys(const PresampleMeasurements& measured, const std::string& file,
                                       const GpuType& type, const TypeSetup& t, const AnalyticPredictor& analytic)
{
    std::vector<std::string> missing, noPeak;
    auto keys = ProfilingPlanner::identify(t.base, t.axes, measured.measure(missing, noPeak), t.opt.threshold);
    const std::size_t total = ProfilingPlanner::presampleQueries(t.base, t.axes).size();
    if (missing.size() >= total)
        throw InputError(file, type.name,
                         "no pre-sampling run of " + type.name
                             + " has a time here; run `memx-cli profile-plan --presample`, measure its runs and "
                               "import them");
    const auto& profiled = measured.profiledTypes();
    if (std::find(profiled.begin(), profiled.end(), type.name) != profiled.end())
        std::printf("no single-stage run of %s: times from the inner stages of its pipeline runs (stage time per "
                    "micro-batch), no peaks\n",
                    type.name.c_str());
    if (!missing.empty())
        std::printf("not measured (left out of the amplitudes): %s\n", Text::join(missing, ", ").c_str());
    if (!noPeak.empty())
        std::printf("timed without a peak (time amplitudes only; an axis with fewer than two peaks stays "
                    "high-impact): %s\n",
                    Text::join(noPeak, ", ").c_str());
    const auto analyticKeys
        = ProfilingPlanner::identify(t.base, t.axes, ProfilingPlanner::measureWith(analytic), t.opt.threshold);
    const PlannedSet byModel
        = planSet(ProfilingPlanner::sampleQueries(t.base, t.axes, analyticKeys), type, t, analytic);
    std::string analyticHigh;
    for (const KeyParameter& k : analyticKeys)
        if (k.highImpact)
            analyticHigh += (analyticHigh.empty() ? "" : ", ") + k.name;
    std::printf("the analytic model's sensitivities would flag %s: %zu runs, %.1f GPU-hours\n",
                analyticHigh.empty() ? "nothing" : analyticHigh.c_str(), byModel.runs.size(), byModel.gpuHours);
    return keys;
}

void writeScripts(const std::string& folder, const std::vector<Measurement>& rows,
                  const std::vector<std::pair<PlannedRun, std::string>>& commands)
{
    fs::create_directories(folder);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        // The run id holds the GPU type's name: one comment line whatever it holds.
        const std::string head = "#!/bin/bash\n# memx-cli " MEMX_VERSION " profiling run "
            + Text::oneLine(rows[i].runId) + "\n# expected: " + Text::fmt("%.1f", commands[i].first.estimatedMs)
            + " ms per micro-batch, " + Text::fmt("%.3f", commands[i].first.estimatedGpuHours)
            + " GPU-hours\nset -euo pipefail\n";
        const fs::path file = fs::path(folder) / (Text::safeName(rows[i].runId) + ".sh");
        writeFileAtomically(file.string(), head + commands[i].second + "\n");
        fs::permissions(file, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add);
    }
}

void profilePlan(const PlanArgs& a)
{
    checkDropoutRates(a.dropout);
    if (a.presample && !a.from.empty())
        throw InputError("--presample", "", "plans the runs that --from reads back; give one of them");
    const Cluster cluster = Cluster::fromFile(a.cluster);
    const ModelSpec model = ModelSpec::resolve(a.model);
    std::optional<PresampleMeasurements> measured;
    if (!a.from.empty()) {
        const MeasurementSet set = MeasurementCsv::read(a.from);
        printWarnings(set.warnings);
        measured.emplace(MeasuredRun::group(set.rows, a.from));
    }
    const AnalyticPredictor analytic;
    const Topology topo(cluster);
    std::vector<Measurement> rows;
    std::vector<std::pair<PlannedRun, std::string>> commands;
    double totalHours = 0;
    std::uint64_t exhaustive = 0, sampled = 0;
    int oom = 0;
    for (const GpuType& type : cluster.types()) {
        TypeSetup t = setupFor(a, cluster, topo, model, type, analytic);
        std::cout << "== " << type.name << " (" << t.groupGpus << " GPUs in its largest group)\n";
        if (!t.movedDefaults.empty())
            std::cout << "defaults moved so that the base run fits in its memory: " << t.movedDefaults << "\n";
        if (measured) {
            const std::string moved = moveToProfiledLayers(t, *measured, model, type);
            if (!moved.empty())
                std::cout << "defaults moved to the layer count its stage profiles measured: " << moved << "\n";
        }
        std::vector<StageQuery> queries;
        std::vector<KeyParameter> keys;
        if (a.presample) {
            queries = ProfilingPlanner::presampleQueries(t.base, t.axes);
        } else {
            keys = measured
                ? measuredKeys(*measured, a.from, type, t, analytic)
                : ProfilingPlanner::identify(t.base, t.axes, ProfilingPlanner::measureWith(analytic), t.opt.threshold);
            std::cout << ProfilingPlanner::formatTable(keys, t.opt.threshold);
            queries = ProfilingPlanner::sampleQueries(t.base, t.axes, keys);
            exhaustive += ProfilingPlanner::exhaustiveCount(t.axes);
            sampled += ProfilingPlanner::sampledCount(t.axes, keys);
        }
        const PlannedSet set = planSet(queries, type, t, analytic);
        for (const PlannedRun& run : set.runs) {
            rows.push_back(runRow(run, model, t.opt));
            commands.emplace_back(run, ProfilingPlanner::megatronCommand(run, model, t.opt));
        }
        totalHours += set.gpuHours;
        oom += set.oom;
        if (a.presample)
            std::printf("%zu pre-sampling runs for %s (the defaults, and each parameter at its extremes and centre "
                        "with the others at their defaults), %.1f GPU-hours\n\n",
                        set.runs.size(), type.name.c_str(), set.gpuHours);
        else
            std::printf("%zu runs planned for %s (three-point sampling: %llu of %llu exhaustive combinations), "
                        "%.1f GPU-hours\n\n",
                        set.runs.size(), type.name.c_str(),
                        static_cast<unsigned long long>(ProfilingPlanner::sampledCount(t.axes, keys)),
                        static_cast<unsigned long long>(ProfilingPlanner::exhaustiveCount(t.axes)), set.gpuHours);
    }
    if (rows.empty())
        throw InputError(a.cluster, "gpu_types",
                         "no profiling run fits in any GPU type's memory for model " + model.name);
    MeasurementCsv::save(a.out, rows, MeasurementCsv::Kind::RunList);
    if (!a.scripts.empty())
        writeScripts(a.scripts, rows, commands);
    if (a.presample)
        std::printf("%zu pre-sampling runs in %s (%d left out because they would not fit in memory), about %.1f "
                    "GPU-hours; measure them, import the logs (memx-cli import-logs --runs %s) and plan with "
                    "memx-cli profile-plan --from <measurements>\n",
                    rows.size(), a.out.c_str(), oom, totalHours, a.out.c_str());
    else
        std::printf("%zu runs in %s (%llu with three-point sampling, %llu exhaustive; %d left out because they "
                    "would not fit in memory), about %.1f GPU-hours\n",
                    rows.size(), a.out.c_str(), static_cast<unsigned long long>(sampled),
                    static_cast<unsigned long long>(exhaustive), oom, totalHours);
}

struct SimArgs {
    std::string cluster, model, runs, out, logs;
    std::uint64_t seed = 0;
    int iterations = 10;
    double timeLimit = 0;
};

void checkModel(const std::string& modelName, const MeasuredRun& run, const std::string& file)
{
    if (modelName.empty())
        return;
    const ModelSpec m = ModelSpec::resolve(modelName);
    const Measurement& c = run.config;
    if (m.hidden != c.hidden || m.heads != c.heads || m.ffnHidden != c.ffnHidden || m.mlp != c.mlp || m.vocab != c.vocab
        || m.tiedEmbeddings != c.tiedEmbeddings || !(m.style == c.style))
        throw InputError(file, "run " + run.runId,
                         "its model (hidden " + std::to_string(c.hidden) + ", heads " + std::to_string(c.heads)
                             + ", ffn " + std::to_string(c.ffnHidden) + " " + toString(c.mlp) + ", vocab "
                             + std::to_string(c.vocab) + (c.tiedEmbeddings ? ", tied" : "") + ", " + describe(c.style)
                             + ") is not " + m.name + " (" + describe(m.style) + ")");
}

void simulate(const SimArgs& a, int& exitCode)
{
    const Cluster cluster = Cluster::fromFile(a.cluster);
    const MeasurementSet set = MeasurementCsv::read(a.runs, MeasurementCsv::Kind::RunList);
    printWarnings(set.warnings);
    const ReferenceSimulator sim(a.seed);
    std::vector<Measurement> out;
    int oom = 0;
    if (!a.logs.empty())
        fs::create_directories(a.logs);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<MeasuredRun> runs = MeasuredRun::group(set.rows, a.runs);
    std::size_t done = 0;
    for (const MeasuredRun& run : runs) {
        if (a.timeLimit > 0
            && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= a.timeLimit)
            break;
        ++done;
        checkModel(a.model, run, a.runs);
        PlanSpec spec;
        const Problem problem = RunScenario::problem(run, cluster, spec);
        const RunPrediction planned = RunScenario::predict(problem, spec, nullptr);
        const SimulatedRun result = sim.run(problem, planned.plan, a.iterations);
        if (result.outOfMemory) {
            std::cerr << "run " << run.runId << ": out of memory (" << result.outOfMemoryReason << "); not written\n";
            ++oom;
            continue;
        }
        const int G = run.microBatchCount();
        Measurement r = run.emptyRunRow(MeasurementSource::Simulated);
        r.iterationTimeMs = result.medianIterationMs;
        double peak = 0;
        for (const SimulatedStage& s : result.stages)
            peak = std::max(peak, s.maxAllocatedMiB);
        r.peakMemMiB = peak;
        out.push_back(r);
        for (std::size_t i = 0; i < run.stages.size(); ++i) {
            Measurement s = run.emptyStageRow(i, MeasurementSource::Simulated);
            s.stageTimeMs = result.stages[i].microBatchMs * G;
            s.peakMemMiB = result.stages[i].maxAllocatedMiB;
            out.push_back(s);
        }
        if (!a.logs.empty())
            writeFileAtomically((fs::path(a.logs) / (Text::safeName(run.runId) + ".log")).string(),
                                sim.megatronLog(result, planned.plan));
    }
    // Runs are whole: a run the time limit stopped before is not written at all.
    const std::string incomplete = done == runs.size()
        ? ""
        : "--time-limit " + Text::fmt("%g", a.timeLimit) + " s stopped the simulation after " + std::to_string(done)
            + " of " + std::to_string(runs.size()) + " runs; run " + runs[done].runId + " and the "
            + std::to_string(runs.size() - done - 1) + " after it were not simulated";
    if (out.empty() && !incomplete.empty()) {
        std::cerr << "incomplete: " << incomplete << "; nothing written\n";
        exitCode = NoFeasiblePlan;
        return;
    }
    if (out.empty())
        throw InputError(a.runs, "", "every run ran out of memory in the simulator; nothing to write");
    MeasurementCsv::save(a.out, out);
    std::printf("%zu rows (simulated) written to %s; %d run(s) out of memory\n", out.size(), a.out.c_str(), oom);
    if (!incomplete.empty())
        std::fprintf(stderr, "incomplete: %s\n", incomplete.c_str());
    exitCode = Ok;
}

struct ImportArgs {
    std::string runs, out, gpuType, gpuTypeMap;
    std::vector<std::string> logs;
    int skipWarmup = 2;
    bool allowSetupMismatch = false;
    std::string fp32Matmul;
};

LogImportOptions importOptions(const ImportArgs& a)
{
    LogImportOptions opt;
    opt.skipWarmup = a.skipWarmup;
    opt.gpuType = a.gpuType;
    opt.allowSetupMismatch = a.allowSetupMismatch;
    if (!parseFp32Matmul(a.fp32Matmul, opt.fp32Matmul))
        throw InputError("--fp32-matmul", "", "tf32 or ieee, got \"" + a.fp32Matmul + "\"");
    if (!a.gpuTypeMap.empty())
        opt.gpuTypes = LogImporter::readGpuTypeMap(a.gpuTypeMap);
    if (!a.runs.empty()) {
        const MeasurementSet set = MeasurementCsv::read(a.runs, MeasurementCsv::Kind::RunList);
        printWarnings(set.warnings);
        opt.runsFile = a.runs;
        opt.runs = MeasuredRun::group(set.rows, a.runs);
    } else if (a.gpuType.empty() && a.gpuTypeMap.empty()) {
        throw InputError("--gpu-type", "",
                         "without --runs the logs do not say which GPU ran them: give --gpu-type T "
                         "or --gpu-type-map FILE (`memx-cli gpus` lists the types)");
    }
    return opt;
}

void importLogs(const ImportArgs& a, int& exitCode)
{
    LogImporter importer(importOptions(a));
    std::vector<Measurement> out;
    std::size_t skipped = 0;
    for (const std::string& file : a.logs) {
        const ImportedLog log = importer.import(file);
        printWarnings(log.warnings);
        for (const std::string& e : log.errors)
            std::cerr << "error: " << e << "\n";
        if (!log.imported()) {
            std::cerr << "error: " << file << ": nothing written for this log\n";
            ++skipped;
            continue;
        }
        out.insert(out.end(), log.rows.begin(), log.rows.end());
    }
    for (const std::string& run : importer.runsWithoutLog())
        std::cerr << "warning: no log for run " << run << "\n";
    if (out.empty())
        throw InputError(a.logs.empty() ? a.runs : a.logs.front(), "",
                         "no log could be imported (" + std::to_string(skipped) + " skipped, reasons above)");
    MeasurementCsv::save(a.out, out);
    std::printf("%zu rows from %zu of %zu log(s) written to %s\n", out.size(), a.logs.size() - skipped, a.logs.size(),
                a.out.c_str());
    if (skipped > 0)
        std::cerr << skipped << " log(s) skipped (reasons above); exit code " << PartlyImported << "\n";
    exitCode = skipped > 0 ? PartlyImported : Ok;
}

}  // namespace

void addProfileCommands(CLI::App& app, int& exitCode)
{
    auto pa = std::make_shared<PlanArgs>();
    auto* plan = app.add_subcommand(
        "profile-plan",
        "Plan the minimal set of profiling runs (key-parameter sweeps, three-point sampling) with launch commands "
        "and GPU-hour estimates");
    plan->add_option("--cluster", pa->cluster, "Cluster file (memx-cluster/1 JSON); one plan per GPU type")->required();
    plan->add_option("--model", pa->model, "Model preset or memx-model/1 JSON file")->capture_default_str();
    plan->add_option("--out", pa->out, "Run list to write (memx-measurements/1 without targets)")->required();
    plan->add_option("--scripts", pa->scripts, "Also write one Megatron-LM launch script per run into this folder");
    plan->add_option("--threshold", pa->threshold,
                     "A parameter is high-impact when time or memory varies by more than this fraction over its sweep")
        ->capture_default_str();
    plan->add_flag("--presample", pa->presample,
                   "Write the pre-sampling runs instead (paper section 3.2.1): on each GPU type the defaults and "
                   "each parameter at its extremes and centre with the others at their defaults; measure them and "
                   "plan with --from");
    plan->add_option("--from", pa->from,
                     "Measured pre-sampling runs (memx-measurements/1): the key parameters come from their measured "
                     "time and memory amplitudes instead of the analytic model's");
    plan->add_flag("--no-flash-attention", pa->noFlash,
                   "Plan runs of unfused attention (the training setup to be predicted keeps the s x s scores)");
    plan->add_option("--seq", pa->seqs,
                     "Sequence lengths the search will try (default: the model's); the profiler samples only these")
        ->delimiter(',');
    plan->add_option("--query-groups", pa->queryGroups,
                     "Query-group counts the search will try (default: the model's); the profiler samples only these")
        ->delimiter(',');
    plan->add_flag("--all-axes", pa->allAxes,
                   "Sample the profiler's typical sequence lengths (1024-8192) and query-group counts too, whatever "
                   "the search will try");
    addDropoutOptions(plan, pa->dropout);
    plan->add_flag("--no-sequence-parallel", pa->noSeqPar,
                   "Plan TP runs without Megatron's sequence parallelism (the training setup to be predicted keeps "
                   "norm and dropout activations whole on every TP rank)");
    plan->callback([pa, &exitCode] {
        profilePlan(*pa);
        exitCode = Ok;
    });

    auto sa = std::make_shared<SimArgs>();
    auto* sim = app.add_subcommand(
        "simulate", "Run a run list on the reference simulator (a stand-in for a cluster; output labelled simulated)");
    sim->add_option("--cluster", sa->cluster, "Cluster file the runs are placed on")->required();
    sim->add_option("--model", sa->model, "Check that every run is this model (preset or JSON file)");
    sim->add_option("--runs", sa->runs, "Run list (memx-measurements/1; targets may be empty)")->required();
    sim->add_option("--out", sa->out, "Measurements to write (run rows and stage rows)")->required();
    sim->add_option("--logs", sa->logs, "Also write a Megatron-LM log per run into this folder (<run_id>.log)");
    sim->add_option("--seed", sa->seed, "Seed of the run-to-run noise")->capture_default_str();
    sim->add_option("--iterations", sa->iterations, "Iterations per run, the first two are warm-up")
        ->check(CLI::Range(3, 1000))
        ->capture_default_str();
    sim->add_option("--time-limit", sa->timeLimit,
                    "Start no run after this many seconds; the runs simulated so far are written and the rest named "
                    "(0: no limit)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sim->callback([sa, &exitCode] { simulate(*sa, exitCode); });

    auto ia = std::make_shared<ImportArgs>();
    auto* imp = app.add_subcommand(
        "import-logs",
        "Turn Megatron-LM / Megatron-DeepSpeed / NeMo training logs into measurements: the run from each log's "
        "argument dump (or --runs), its median iteration time and its peak memory per pipeline stage");
    imp->add_option("--runs", ia->runs,
                    "Run list the logs belong to (<run_id>.log each); their argument dumps are checked against it. "
                    "Without it, each log's argument dump gives the run and the file stem its run_id");
    imp->add_option("--out", ia->out, "Measurements to write")->required();
    imp->add_option("--gpu-type", ia->gpuType, "GPU type of every log (a `memx-cli gpus` name); needed without --runs");
    imp->add_option("--gpu-type-map", ia->gpuTypeMap,
                    "GPU type per log: a file of \"log-file-name gpu-type\" lines (# comments); over --gpu-type");
    imp->add_option("--skip-warmup", ia->skipWarmup,
                    "Iterations <= N of the training run are warm-up, and so is the first iteration line after each "
                    "start (argument dump, checkpoint load, 'training ...', an iteration number going back)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    imp->add_flag("--allow-setup-mismatch", ia->allowSetupMismatch,
                  "Import runs the planner's model does not describe (full recomputation in chunks of several "
                  "layers) with a warning");
    imp->add_option("--fp32-matmul", ia->fp32Matmul,
                    "How fp32 runs (no --bf16/--fp16) ran their matmuls, which a log cannot say: tf32 (TF32 tensor "
                    "cores) or ieee (CUDA cores, stock PyTorch 1.12 or later); unset, such runs are read as NVIDIA's "
                    "PyTorch containers run them: TF32 where the GPU has it (docs/PRECISION.md)")
        ->check(CLI::IsMember({"tf32", "ieee"}));
    imp->add_option("logs", ia->logs, "Log files")->required();
    imp->footer("Exit codes: 0 every log imported; 3 some logs skipped (each named on stderr with file, line and "
                "argument; the others written); 2 bad input or no log imported.");
    imp->callback([ia, &exitCode] { importLogs(*ia, exitCode); });
}

}  // namespace memx::cli
