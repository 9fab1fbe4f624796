#include "sim/ReferenceSimulator.h"

#include "io/Text.h"

#include "space/JobPrecision.h"

#include "hardware/Cluster.h"
#include "hardware/Topology.h"
#include "io/EmbeddedResources.h"
#include "io/JsonReader.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"
#include "predict/IterationComposer.h"
#include "megatron/RankLayout.h"
#include "space/TrainingSetup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace memx {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

ReferenceSimulator::Profile parseProfile(const JsonReader& j, ReferenceSimulator::Profile p)
{
    p.efficiencyMax = j.number("efficiency_max", p.efficiencyMax);
    p.halfWorkGflop = j.number("half_work_gflop", p.halfWorkGflop);
    p.launchUsPerLayer = j.number("launch_us_per_layer", p.launchUsPerLayer);
    p.allocatorBlockMiB = j.number("allocator_block_mib", p.allocatorBlockMiB);
    p.fragmentation = j.number("fragmentation", p.fragmentation);
    p.selectiveSaving = j.number("selective_saving", p.selectiveSaving);
    p.reserveGiB = j.number("reserve_gib", p.reserveGiB);
    p.noise = j.number("noise", p.noise);
    p.commEfficiency = j.number("comm_efficiency", p.commEfficiency);
    p.recomputeOverhead = j.number("recompute_overhead", p.recomputeOverhead);
    return p;
}

double roundUp(double mib, double block) { return block > 0 ? std::ceil(mib / block) * block : mib; }
}  // namespace

ReferenceSimulator::ReferenceSimulator(std::uint64_t seed) : seed_(seed)
{
    const std::string file = "resources/sim_gpu_profiles.json";
    static const nlohmann::json doc = JsonReader::parseText(resources::simGpuProfilesJson(), file);
    JsonReader root(doc, file);
    root.requireFormat("memx-sim-profiles/1");
    defaults_ = parseProfile(root.at("default"), Profile{});
    auto types = root.at("types");
    for (auto it = types.node().begin(); it != types.node().end(); ++it)
        profiles_[it.key()] = parseProfile(JsonReader(it.value(), file, "/types/" + it.key()), defaults_);
}

ReferenceSimulator::Profile ReferenceSimulator::profileOf(const std::string& gpuType) const
{
    auto it = profiles_.find(gpuType);
    if (it != profiles_.end())
        return it->second;
    // Unlisted types: the defaults, nudged deterministically per name so that
    // no two types behave identically.
    Profile p = defaults_;
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : gpuType)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    double u = static_cast<double>(h % 1000) / 1000.0;  // 0..1
    p.efficiencyMax *= 0.85 + 0.3 * u;
    p.fragmentation += 0.05 * u;
    return p;
}

namespace {

// One simulated job: the model at the plan's sequence and query groups, the
// job's precision, and each stage's time and memory under its GPU's profile.
struct SimulatedJob {
    using TM = TransformerMath;
    const Problem& problem;
    const Plan& plan;
    ModelSpec m;
    Topology topo;
    Precision prec = Precision::Bf16;
    int b = 1, s = 1, t = 1, P = 1;

    SimulatedJob(const Problem& problem, const Plan& plan)
        : problem(problem)
        , plan(plan)
        , m(problem.model)
        , topo(problem.cluster)
    {
        m.seqLen = plan.seqLen > 0 ? plan.seqLen : m.seqLen;
        m.queryGroups = plan.queryGroups > 0 ? plan.queryGroups : m.queryGroups;
        b = plan.microBatch;
        s = m.seqLen;
        t = plan.tp;
        P = plan.pp;
        // The job's precision (docs/PRECISION.md): its bytes and its GEMM peak.
        try {
            prec = jobPrecision(problem.setup.precision, problem.cluster);
        } catch (const std::exception&) {
            // a precision some type lacks: the search refuses it; simulate as bf16
        }
    }

    // One micro-batch of stage i: compute, TP all-reduces, launches.
    double stageMs(int i, const GpuType& gpu, const ReferenceSimulator::Profile& pr, bool flash) const
    {
        const StagePlan& st = plan.stages[static_cast<std::size_t>(i)];
        const double peakTflops = gpu.gemmPeakTflops(prec);
        double work = TM::layerForwardFlops(m, b, s, flash) / t;
        double eff = pr.efficiencyMax * work / (work + pr.halfWorkGflop * 1e9);
        double fwd = TM::layerForwardFlops(m, b, s, flash);
        double flops = 3.0 * fwd;
        if (st.recompute == Recompute::Full)
            flops += fwd * pr.recomputeOverhead;
        else if (st.recompute == Recompute::Selective)
            flops += TM::attentionCoreForwardFlops(m, b, s, flash) * pr.recomputeOverhead;
        double computeMs = st.layers * flops / t / (peakTflops * 1e12 * eff) * 1e3;
        if (i == P - 1)
            computeMs += TM::outputTrainingFlops(m, b, s) / t / (peakTflops * 1e12 * eff) * 1e3;
        double commMs = 0;
        if (t > 1) {
            PathRate rate = topo.ring(Topology::tensorParallelRings(st.devices, t, plan.dp));
            rate.bandwidthGBps *= pr.commEfficiency;
            double per = st.recompute == Recompute::Full ? 6.0 : 4.0;
            commMs
                = st.layers * per * Topology::allReduceMs(bytesOf(prec).activation * s * double(b) * m.hidden, t, rate);
        }
        double launchMs = st.layers * pr.launchUsPerLayer * (st.recompute == Recompute::Full ? 1.35 : 1.0) * 1e-3;
        return computeMs + commMs + launchMs;
    }

    // Stage i's peak memory: states (with TE's wgrad buffers) and the
    // activations of its in-flight micro-batches, rounded to allocator blocks.
    SimulatedStage stageMemory(int i, const GpuType& gpu, const ReferenceSimulator::Profile& pr, bool flash,
                               double params) const
    {
        const StagePlan& st = plan.stages[static_cast<std::size_t>(i)];
        const TrainingSetup& setup = problem.setup;
        double states = params
            * (TM::weightBytesPerParam(prec) + TM::gradBytesPerParam(prec)
               + TM::optimizerBytesPerParam(plan.dp, setup.distributedOptimizer, prec))
            / kMiB;
        if (st.layers > 0 && gpu.runsTransformerEngine())
            states += TM::wgradBufferBytes(m, t, prec) / kMiB;  // TE's cached placeholder weight gradients
        double act = TM::layerActivationBytes(m, b, s, t, flash,
                                              st.recompute == Recompute::Selective ? Recompute::None : st.recompute,
                                              setup.sequenceParallel, prec, setup.dropout());
        if (st.recompute == Recompute::Selective)
            act *= 1.0 - pr.selectiveSaving;
        double inflight = plan.schedule == Schedule::Interleaved
            ? IterationComposer::inflightInterleaved(i, P, plan.microBatchCount, plan.virtualStages)
            : IterationComposer::inflight1F1B(i, P, plan.microBatchCount);
        double actMiB = st.layers * act * inflight / kMiB;
        if (st.recompute == Recompute::Full)
            actMiB += TM::layerActivationBytes(m, b, s, t, flash, Recompute::None, setup.sequenceParallel, prec,
                                               setup.dropout())
                / kMiB;
        if (i == P - 1)
            actMiB += TM::logitsBytes(m, b, s, t, prec) / kMiB;
        SimulatedStage out1;
        out1.maxAllocatedMiB = roundUp(states, pr.allocatorBlockMiB) + roundUp(actMiB, pr.allocatorBlockMiB);
        out1.maxReservedMiB = out1.maxAllocatedMiB * pr.fragmentation;
        out1.deviceUsedMiB = out1.maxReservedMiB + pr.reserveGiB * 1024.0;
        out1.capacityMiB = gpu.memoryMiB();
        return out1;
    }

    // Stage i's exposed gradient sync and optimizer step.
    double postMs(int i, const GpuType& gpu, const ReferenceSimulator::Profile& pr, double params,
                  const std::vector<double>& stageMs) const
    {
        const StagePlan& st = plan.stages[static_cast<std::size_t>(i)];
        const TrainingSetup& setup = problem.setup;
        PathRate dpRate = topo.ring(Topology::dataParallelRings(st.devices, t, plan.dp));
        dpRate.bandwidthGBps *= pr.commEfficiency;
        double owned = setup.distributedOptimizer ? params / plan.dp : params;
        const IterationComposer::DataParallelComm comm
            = IterationComposer::dataParallelComm(params, plan.dp, setup.distributedOptimizer, dpRate.bandwidthGBps,
                                                  dpRate.latencyUs, prec);
        // The overlap windows as they fall: the first stage's own last
        // backward and first forward; a later stage's one bucket behind the
        // cool-down (and warm-up) of the stages before it.
        double before = 0;
        for (int j = 0; j < i; ++j)
            before += stageMs[j];
        const double forwardWindow = i == 0 ? stageMs[0] / 3.0 : before / 3.0;
        const double backwardWindow = i == 0 ? 2.0 * stageMs[0] / 3.0 : 2.0 * before / 3.0;
        const double embedding = TM::embeddingParamsOnRank(m, t);
        const double exposedMs
            = IterationComposer::exposedDataParallelMs(comm, {setup.overlapGradReduce, setup.overlapParamGather},
                                                       i == 0, params,
                                                       IterationComposer::lastBucketParams(plan.dp, embedding),
                                                       forwardWindow, backwardWindow);
        return exposedMs + owned * 34.0 / (gpu.memoryBandwidthGBps * 1e6);
    }

    std::vector<double> hopsMs() const
    {
        std::vector<double> hopMs(static_cast<std::size_t>(std::max(0, P - 1)));
        for (int i = 0; i + 1 < P; ++i) {
            PathRate hop = topo.pairwise(plan.stages[i].devices, plan.stages[i + 1].devices);
            hop.bandwidthGBps *= 0.8;
            hopMs[i] = Topology::transferMs(TM::boundaryActivationBytes(m, b, s, t, prec), hop);
        }
        return hopMs;
    }
};

// Each iteration's time: the base with log-normal noise, warm-up iterations
// slower; the median of the steady ones.
void iterationsOf(SimulatedRun& out, double base, double noiseSigma, std::uint64_t seed, int iterations, int warmup)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, noiseSigma);
    std::vector<double> steady;
    for (int it = 0; it < iterations; ++it) {
        double factor = std::exp(noise(rng));
        if (it < warmup)
            factor *= 1.25 + 0.1 * it;
        out.iterationMs.push_back(base * factor);
        if (it >= warmup)
            steady.push_back(base * factor);
    }
    if (!steady.empty()) {
        std::sort(steady.begin(), steady.end());
        std::size_t n = steady.size();
        out.medianIterationMs = n % 2 ? steady[n / 2] : 0.5 * (steady[n / 2 - 1] + steady[n / 2]);
    }
}

}  // namespace

SimulatedRun ReferenceSimulator::run(const Problem& problem, const Plan& plan, int iterations, int warmup) const
{
    const SimulatedJob job(problem, plan);
    const int P = job.P;
    SimulatedRun out;
    std::vector<double> stageMs(P);
    double postMs = 0;
    double worstNoise = 0;
    for (int i = 0; i < P; ++i) {
        const StagePlan& st = plan.stages[i];
        const GpuType& gpu = problem.cluster.typeOf(st.devices.front());
        const bool flash = flashAttentionRuns(problem.setup.flashAttention, job.prec, gpu);
        const Profile pr = profileOf(gpu.name);
        worstNoise = std::max(worstNoise, pr.noise);
        stageMs[i] = job.stageMs(i, gpu, pr, flash);
        const double params = TransformerMath::stageParams(job.m, st.layers, job.t, i == 0, i == P - 1);
        SimulatedStage stage = job.stageMemory(i, gpu, pr, flash, params);
        stage.microBatchMs = stageMs[i];
        if (stage.deviceUsedMiB > stage.capacityMiB && !out.outOfMemory) {
            out.outOfMemory = true;
            char buf[160];
            std::snprintf(buf, sizeof buf, "stage %d on %s needs %.1f GiB of %.1f GiB", i, st.groupName.c_str(),
                          stage.deviceUsedMiB / 1024, stage.capacityMiB / 1024);
            out.outOfMemoryReason = buf;
        }
        out.stages.push_back(stage);
        postMs = std::max(postMs, job.postMs(i, gpu, pr, params, stageMs));
    }
    const std::vector<double> hopMs = job.hopsMs();
    // Iteration: 1F1B (or interleaved) composition plus 3 ms data loading and
    // logging; warm-up iterations pay allocator and NCCL set-up.
    double base
        = IterationComposer::iterationMs(stageMs, hopMs, plan.microBatchCount,
                                         plan.schedule == Schedule::Interleaved ? plan.virtualStages : 1, 3.0, postMs);
    // Hops are paid on every steady-state exchange when they cannot overlap.
    double sumHops = 0;
    for (double h : hopMs)
        sumHops += h;
    base += 0.25 * (plan.microBatchCount - 1) * sumHops;
    iterationsOf(out, base, worstNoise, seed_ ^ (plan.key * 0x9e3779b97f4a7c15ULL), iterations, warmup);
    return out;
}

std::string ReferenceSimulator::megatronLog(const SimulatedRun& run, const Plan& plan) const
{
    std::string out = "# SIMULATED by the MemX reference simulator (not a measurement); Megatron-LM main log format\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "# Setup: %d GPUs, TP=%d PP=%d DP=%d, mbs=%d, gbs=%d, seq %d\n",
                  plan.tp * plan.pp * plan.dp, plan.tp, plan.pp, plan.dp, plan.microBatch, plan.globalBatch,
                  plan.seqLen);
    out += buf;
    const int iterations = static_cast<int>(run.iterationMs.size());
    for (int it = 0; it < iterations; ++it) {
        std::snprintf(buf, sizeof buf,
                      "[2026-11-29 12:00:%02d.000000] iteration %8d/%8d | consumed samples: %12d | elapsed time per "
                      "iteration (ms): %.1f | learning rate: 1.000000E-05 | global batch size: %5d | lm loss: "
                      "1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan "
                      "iterations:   0 |\n",
                      it % 60, it + 1, iterations, (it + 1) * plan.globalBatch, run.iterationMs[it], plan.globalBatch);
        out += buf;
        if (it == 0) {
            // Memory report of every rank, placed by the same rank-order code the
            // log importer uses (megatron/RankLayout).
            const RankLayout layout(plan.tp, plan.pp, plan.dp);
            for (int pp = 0; pp < plan.pp; ++pp)
                for (int rank : layout.ranksOfStage(pp)) {
                    const SimulatedStage& st = run.stages[pp];
                    // Megatron's report_memory divides bytes by 2^20: its "MB" are MiB.
                    std::snprintf(buf, sizeof buf,
                                  "[Rank %d] (after 1 iterations) memory (MB) | allocated: %.2f | max allocated: "
                                  "%.2f | reserved: %.2f | max reserved: %.2f\n",
                                  rank, st.maxAllocatedMiB * 0.6, st.maxAllocatedMiB, st.maxReservedMiB,
                                  st.maxReservedMiB);
                    out += buf;
                }
        }
    }
    return out;
}

const char* ReferenceSimulator::toString(LogFormat f)
{
    switch (f) {
    case LogFormat::MegatronMain: return "megatron-main";
    case LogFormat::MegatronLegacy: return "megatron-legacy-2022";
    case LogFormat::MegatronDeepSpeed: return "megatron-deepspeed";
    case LogFormat::SlurmPrefixed: return "slurm-prefixed";
    }
    return "?";
}

std::vector<ReferenceSimulator::LogFormat> ReferenceSimulator::logFormats()
{
    return {LogFormat::MegatronMain, LogFormat::MegatronLegacy, LogFormat::MegatronDeepSpeed, LogFormat::SlurmPrefixed};
}

namespace {

// Memory lines: ranks with DP rank 0, stage by stage.
struct MemLine {
    int rank;
    std::string text;
};

std::vector<MemLine> memoryLines(const SimulatedRun& run, const Plan& plan, const RankLayout& layout,
                                 int afterIteration, bool raw)
{
    std::vector<MemLine> lines;
    for (int pp = 0; pp < plan.pp; ++pp)
        for (int tp = 0; tp < plan.tp; ++tp) {
            const int rank = layout.rankOf(tp, pp, 0);
            const SimulatedStage& st = run.stages[static_cast<std::size_t>(pp)];
            std::string t = "[Rank " + std::to_string(rank) + "] (after " + std::to_string(afterIteration)
                + " iterations) memory (MB) | allocated: ";
            if (raw) {
                t += Text::pyFloat(st.maxAllocatedMiB * 0.625) + " | max allocated: "
                    + Text::pyFloat(st.maxAllocatedMiB) + " | reserved: " + Text::pyFloat(st.maxReservedMiB)
                    + " | max reserved: " + Text::pyFloat(st.maxReservedMiB);
            } else {
                char buf[256];
                std::snprintf(buf, sizeof buf, "%.2f | max allocated: %.2f | reserved: %.2f | max reserved: %.2f",
                              st.maxAllocatedMiB * 0.6, st.maxAllocatedMiB, st.maxReservedMiB, st.maxReservedMiB);
                t += buf;
            }
            lines.push_back({rank, t});
        }
    return lines;
}

}  // namespace

std::string ReferenceSimulator::megatronLog(const SimulatedRun& run, const Plan& plan, LogFormat format) const
{
    if (format == LogFormat::MegatronMain)
        return megatronLog(run, plan);
    const RankLayout layout(plan.tp, plan.pp, plan.dp);
    const int world = layout.worldSize();
    const int iterations = static_cast<int>(run.iterationMs.size());
    char buf[768];
    std::string out = std::string("# SIMULATED by the MemX reference simulator (not a measurement); log format ")
        + toString(format) + "\n";
    std::snprintf(buf, sizeof buf, "# Setup: %d GPUs, TP=%d PP=%d DP=%d, mbs=%d, gbs=%d, seq %d\n", world, plan.tp,
                  plan.pp, plan.dp, plan.microBatch, plan.globalBatch, plan.seqLen);
    out += buf;
    for (int it = 0; it < iterations; ++it) {
        const double ms = run.iterationMs[static_cast<std::size_t>(it)];
        const long long samples = static_cast<long long>(it + 1) * plan.globalBatch;
        switch (format) {
        case LogFormat::MegatronMain: break;
        case LogFormat::MegatronLegacy: {
            std::snprintf(buf, sizeof buf,
                          " iteration %8d/%8d | consumed samples: %12lld | elapsed time per iteration (ms): %.1f | "
                          "learning rate: 1.000E-05 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: "
                          "65536.0 | grad norm: 1.000 | number of skipped iterations:   0 | number of nan "
                          "iterations:   0 |\n",
                          it + 1, iterations, samples, ms, plan.globalBatch);
            out += buf;
            if (it == 0)
                for (const auto& l : memoryLines(run, plan, layout, 1, true))
                    out += l.text + "\n";
            std::snprintf(buf, sizeof buf,
                          "time (ms) | forward-compute: %.2f | backward-compute: %.2f | optimizer: %.2f | "
                          "batch-generator: 1.00\n",
                          ms * 0.3, ms * 0.6, ms * 0.05);
            out += buf;
            break;
        }
        case LogFormat::MegatronDeepSpeed: {
            const double sec = ms / 1000.0;
            std::snprintf(buf, sizeof buf,
                          " iteration %8d/%8d | consumed samples: %12lld | consumed tokens: %12lld | elapsed time per "
                          "iteration (ms): %.1f | learning rate: 1.000E-05 | global batch size: %5d | lm loss: "
                          "1.000000E+01 | loss scale: 4096.0 | grad norm: 1.000 | actual seqlen: %5d | number of "
                          "skipped iterations:   0 | number of nan iterations:   0 | samples per second: %.3f | "
                          "tokens per gpu per second (tgs): %.3f |\n",
                          it + 1, iterations, samples, samples * plan.seqLen, ms, plan.globalBatch, plan.seqLen,
                          plan.globalBatch / sec, plan.globalBatch * double(plan.seqLen) / sec / world);
            out += buf;
            if (it == 0)
                for (const auto& l : memoryLines(run, plan, layout, 1, true))
                    out += l.text + "\n";
            break;
        }
        case LogFormat::SlurmPrefixed: {
            // srun -l: every line carries the task id (= global rank); the
            // memory lines of the ranks arrive in a scrambled order, and a
            // repeated line of the first stage is cut off mid-number.
            if (it == 0) {
                auto lines = memoryLines(run, plan, layout, 1, false);
                std::vector<MemLine> order;
                for (std::size_t k = 0; k < lines.size(); ++k)
                    order.push_back(lines[(k * 5 + 3) % lines.size()]);
                // (k*5+3) mod n is a permutation unless 5 divides n; fall back to reversed then.
                if (lines.size() % 5 == 0)
                    order.assign(lines.rbegin(), lines.rend());
                for (const auto& l : order)
                    out += std::to_string(l.rank) + ": " + l.text + "\n";
            }
            std::snprintf(buf, sizeof buf,
                          "%d: [2026-11-29 12:00:%02d.000000] iteration %8d/%8d | consumed samples: %12lld | elapsed "
                          "time per iteration (ms): %.1f | learning rate: 1.000000E-05 | global batch size: %5d | lm "
                          "loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan "
                          "iterations:   0 |\n",
                          world - 1, it % 60, it + 1, iterations, samples, ms, plan.globalBatch);
            out += buf;
            if (it == 1) {
                const auto lines = memoryLines(run, plan, layout, 2, false);
                const std::string& t = lines.front().text;
                out += std::to_string(lines.front().rank) + ": " + t.substr(0, t.find("max allocated: ") + 17) + "\n";
            }
            break;
        }
        }
    }
    return out;
}

}  // namespace memx
