#pragma once

#include "space/Plan.h"
#include "space/Problem.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memx {

// What one GPU of a stage would report after a short run.
struct SimulatedStage {
    double microBatchMs = 0;  // forward + backward of one micro-batch
    double maxAllocatedMiB = 0;  // PyTorch allocator peak (what Megatron logs as "max allocated")
    double maxReservedMiB = 0;  // allocator reservation incl. fragmentation
    double deviceUsedMiB = 0;  // + CUDA context and communication buffers (what OOMs)
    double capacityMiB = 0;
};

struct SimulatedRun {
    std::vector<SimulatedStage> stages;
    std::vector<double> iterationMs;  // one per simulated iteration, warm-up first
    double medianIterationMs = 0;  // over the iterations after warm-up
    bool outOfMemory = false;
    std::string outOfMemoryReason;
};

// A stand-in for a real cluster (issue #3): given a configuration it returns
// what a measurement would say, with behaviour the analytic model does not
// have: per-vendor kernel efficiency that depends on the work size, kernel
// launch overhead, allocator rounding and fragmentation, selective
// recomputation that saves more on some stacks, contention and protocol
// efficiency on links, warm-up iterations and seeded run-to-run noise. Its
// per-GPU characteristics live in resources/sim_gpu_profiles.json, which no
// predictor reads. Everything it produces is labelled simulated.
class ReferenceSimulator {
public:
    struct Profile {
        double efficiencyMax = 0.55;
        double halfWorkGflop = 25;
        double launchUsPerLayer = 180;
        double allocatorBlockMiB = 2;
        double fragmentation = 1.07;
        double selectiveSaving = 0.02;  // fraction of a layer's activations selective recomputation frees
        double reserveGiB = 2.0;
        double noise = 0.02;  // relative standard deviation of iteration time
        double commEfficiency = 0.8;  // achieved / nominal link bandwidth
        double recomputeOverhead = 1.05;  // recomputed forward costs this much more than a cold one
    };

    explicit ReferenceSimulator(std::uint64_t seed = 0);

    Profile profileOf(const std::string& gpuType) const;

    SimulatedRun run(const Problem& problem, const Plan& plan, int iterations = 10, int warmup = 2) const;

    // The run as Megatron-LM (main, 2025-26) would log it with --log-interval 1
    // --timing-log-level 1 --timing-log-option minmax and the memory report of
    // every rank; ranks follow Megatron's default order (megatron/RankLayout).
    std::string megatronLog(const SimulatedRun& run, const Plan& plan) const;

    // The log formats of reference/megatron_log_samples/, one per sample file.
    enum class LogFormat {
        MegatronMain,  // current_main_tp2_pp2.log: timestamps, "%.2f" memory (the overload above)
        MegatronLegacy,  // legacy_2022_onelinetimers.log: no timestamps, raw floats, one-line timers
        MegatronDeepSpeed,  // megatron_deepspeed_style.log: tokens, tgs, TFLOPs counting recomputation
        SlurmPrefixed,  // slurm_prefixed_interleaved.log: "R: " prefixes, ranks interleaved, a cut line
    };
    static const char* toString(LogFormat f);
    static std::vector<LogFormat> logFormats();
    // The same run in `format`. Memory lines come from the ranks with DP rank 0
    // (as Megatron's report_memory prints them), except MegatronMain, which
    // keeps every rank; ranks follow megatron/RankLayout.
    std::string megatronLog(const SimulatedRun& run, const Plan& plan, LogFormat format) const;

private:
    std::uint64_t seed_;
    Profile defaults_;
    std::map<std::string, Profile> profiles_;
};

}  // namespace memx
