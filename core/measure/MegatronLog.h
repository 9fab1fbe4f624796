#pragma once

#include "measure/MegatronArguments.h"

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memx {

// One training-step line: Megatron-LM's `iteration N/ M | ... |` (printed by
// the last rank, i.e. the last pipeline stage), or NeMo's progress line with
// `train_step_timing in s`. With --log-interval L > 1 Megatron's times are
// averages over the L iterations that end at `iteration`.
struct IterationRecord {
    int iteration = 0;  // 1-based step number in the training run (NeMo: global_step + 1)
    int totalIterations = 0;  // 0 when the line does not say
    double elapsedMs = 0.0;  // "elapsed time per iteration (ms)"; NeMo: train_step_timing x 1000
    std::optional<double> tflopsPerGpu;  // "throughput per GPU (TFLOP/s/GPU)" or DeepSpeed "TFLOPs"
    // Megatron-DeepSpeed's "TFLOPs" counts recomputation; Megatron-LM's
    // "throughput per GPU" does not (model FLOPs).
    bool tflopsCountRecompute = false;
    std::optional<double> samplesPerSecond;  // Megatron-DeepSpeed "samples per second"
    std::optional<double> lmLoss;  // "lm loss"; NeMo "reduced_train_loss"
    std::optional<long long> consumedSamples;
    std::optional<int> globalBatchSize;
    int skippedIterations = 0;  // "number of skipped iterations"
    int nanIterations = 0;  // "number of nan iterations"
    std::string timestamp;  // the line's timestamp prefix, empty when absent
    int line = 0;  // 1-based line in the log (the first, for a wrapped line)
    bool nemo = false;  // read from a NeMo progress line

    // Set by the parser once the whole log is read:
    int interval = 1;  // iterations the line averages over (log_interval, else the gap to its neighbour)
    bool firstAfterStart = false;  // the first line after a start of training (see MegatronLogParser)
    int run = 0;  // training run within the log: 0, then +1 at every later start

    int firstIteration() const { return iteration - interval + 1; }
    bool clean() const { return skippedIterations == 0 && nanIterations == 0; }
    // Warm-up: the first line after a start, or a line averaging over any of
    // the first `skipWarmup` iterations of the training run.
    bool warmup(int skipWarmup) const { return firstAfterStart || firstIteration() <= skipWarmup; }
};

// One memory line. Megatron-LM's `[Rank R] (after N iterations) memory (MB) |
// allocated: ... | max allocated: ... | reserved: ... | max reserved: ...`
// ("MB" is bytes / 2^20, i.e. MiB), printed by every rank with DP rank 0; the
// 2020 form `after N iterations memory (MB) | ...` without a rank, printed by
// global rank 0 only (print_rank_0), with `cached`/`max cached` in its oldest
// version; Megatron-Bridge's `[Rank R] (after N iterations) memory (GB) |
// mem-allocated-gigabytes: ... | mem-max-allocated-gigabytes: ...` (bytes /
// 1e9, five significant digits), converted to MiB here.
struct MemoryRecord {
    int rank = -1;  // -1: a line without "[Rank R]"
    int iteration = -1;  // N of "after N iterations" / "for iteration N"; -1 if unknown
    std::string when;  // e.g. "after 10 iterations", "before save_checkpoint for iteration 100"
    double allocatedMiB = 0.0;
    double maxAllocatedMiB = 0.0;
    double reservedMiB = 0.0;
    double maxReservedMiB = 0.0;
    std::optional<double> totalDeviceUsedMiB;  // --log-device-memory-used
    bool gigabytes = false;  // the line gave GB (Megatron-Bridge)
    int line = 0;
};

enum class TimerStat {
    MinMax,  // "(min, max) time across ranks (ms):" entry "(a, b)"
    MaxOnly,  // "max time across ranks (ms):" entry (minMs == maxMs)
    PerRank,  // "times across ranks (ms):" (--timing-log-option all): one rank's value
    Legacy,  // one-line "time (ms) | name: v | ..." (2021-2023)
};

// One timer value. Times are per iteration in ms (Megatron divides by the
// log interval). For single values minMs == maxMs.
struct TimerRecord {
    int iteration = -1;  // the iteration line printed before the timers; -1 if none yet
    int rank = -1;  // PerRank only
    double minMs = 0.0;
    double maxMs = 0.0;
    TimerStat stat = TimerStat::MinMax;
    int line = 0;
};

struct MegatronLogSummary {
    double medianIterationMs = std::numeric_limits<double>::quiet_NaN();  // NaN if no usable line
    int iterationsUsed = 0;
    int iterationsExcluded = 0;  // warm-up, skipped or NaN lines not in the median
    std::vector<int> usedIterations;  // iteration numbers of the lines in the median
    bool fromWarmup = false;  // no line was left after the warm-up; the median is of warm-up lines
    std::string note;  // why the median rests on few (or warm-up) lines; empty when fine
    std::map<int, double> peakAllocatedMiB;  // rank -> max of "max allocated" over its memory lines
    std::map<int, double> peakReservedMiB;  // rank -> max of "max reserved"
};

// A Megatron-LM / Megatron-DeepSpeed / NeMo training log as read by MegatronLogParser.
struct MegatronLog {
    // Fewer steady-state lines than this in a median earns a note.
    static constexpr int kSteadyLines = 3;

    std::string file;
    std::vector<IterationRecord> iterations;  // in log order (repeated progress-bar lines dropped)
    std::vector<MemoryRecord> memory;  // in log order
    std::map<std::string, std::vector<TimerRecord>> timers;  // timer name -> values in log order
    std::vector<MegatronArguments> arguments;  // every argument dump, in log order (one per process start)
    std::optional<PaddedVocabLine> paddedVocab;  // " > padded vocab (size: V) with K dummy tokens (new size: P)"
    std::vector<int> startLines;  // lines that mark a start of training (see MegatronLogParser)
    int lineCount = 0;  // physical lines read
    std::vector<std::string> warnings;  // "<file>:<line>: <what>; skipped"

    // Median elapsed time over the clean lines that are not warm-up
    // (IterationRecord::warmup). When none is left, the clean warm-up lines
    // that do not average over iteration 1 stand in (fromWarmup); iteration 1
    // (allocator warm-up, kernel compilation) never does. With fewer than
    // kSteadyLines lines in the median, `note` names the count. Also the
    // per-rank peaks of the ranked memory lines.
    MegatronLogSummary summary(int skipWarmup = 2) const;
};

}  // namespace memx
