#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memx {

class RankLayout;

// One `iteration N/ M | ... |` line, printed by the last rank (the last
// pipeline stage). With --log-interval > 1 the times are averages over the
// interval that ends at `iteration`.
struct IterationRecord {
    int iteration = 0;
    int totalIterations = 0;
    double elapsedMs = 0.0;             // "elapsed time per iteration (ms)"
    std::optional<double> tflopsPerGpu;  // "throughput per GPU (TFLOP/s/GPU)" or DeepSpeed "TFLOPs"
    // Megatron-DeepSpeed's "TFLOPs" counts recomputation; Megatron-LM's
    // "throughput per GPU" does not (model FLOPs).
    bool tflopsCountRecompute = false;
    std::optional<double> lmLoss;
    std::optional<long long> consumedSamples;
    std::optional<int> globalBatchSize;
    int skippedIterations = 0;  // "number of skipped iterations"
    int nanIterations = 0;      // "number of nan iterations"
    std::string timestamp;      // "[YYYY-MM-DD HH:MM:SS.ffffff]" content, empty when absent
    // Set by the parser for iteration 1 (allocator and kernel warm-up) and for
    // records that report skipped or NaN iterations; callers may set it too.
    bool warmup = false;
    std::map<std::string, std::string> fields;  // every "key: value" field, raw
    int line = 0;                               // 1-based line in the log
};

// One `[Rank R] (after N iterations) memory (MB) | ...` line. Megatron's "MB"
// is bytes / 2^20, i.e. MiB. Printed by every rank with DP rank 0.
struct MemoryRecord {
    int rank = -1;       // -1: the 2020 format without "[Rank R]"
    int iteration = -1;  // N of "after N iterations" / "for iteration N"; -1 if unknown
    std::string when;    // e.g. "after 10 iterations", "before save_checkpoint for iteration 100"
    double allocatedMiB = 0.0;
    double maxAllocatedMiB = 0.0;
    double reservedMiB = 0.0;
    double maxReservedMiB = 0.0;
    std::optional<double> totalDeviceUsedMiB;  // --log-device-memory-used
    int line = 0;
};

enum class TimerStat {
    MinMax,   // "(min, max) time across ranks (ms):" entry "(a, b)"
    MaxOnly,  // "max time across ranks (ms):" entry (minMs == maxMs)
    PerRank,  // "times across ranks (ms):" (--timing-log-option all): one rank's value
    Legacy,   // one-line "time (ms) | name: v | ..." (2021-2023)
};

// One timer value. Times are per iteration in ms (Megatron divides by the
// log interval). For single values minMs == maxMs.
struct TimerRecord {
    int iteration = -1;  // the iteration line printed before the timers; -1 if none yet
    int rank = -1;       // PerRank only
    double minMs = 0.0;
    double maxMs = 0.0;
    TimerStat stat = TimerStat::MinMax;
    int line = 0;
};

struct MegatronLogSummary {
    double medianIterationMs = std::numeric_limits<double>::quiet_NaN();  // NaN if no iteration is left
    int iterationsUsed = 0;
    int iterationsExcluded = 0;
    std::map<int, double> peakAllocatedMiB;  // rank -> max of "max allocated" over its memory lines
    std::map<int, double> peakReservedMiB;   // rank -> max of "max reserved"
};

struct MegatronLog {
    std::string file;
    std::vector<IterationRecord> iterations;  // in log order
    std::vector<MemoryRecord> memory;         // in log order
    std::map<std::string, std::vector<TimerRecord>> timers;  // timer name -> values in log order
    std::vector<std::string> warnings;        // "<file>:<line>: <what>; skipped"

    // Median elapsed time over the iterations left after dropping the first
    // skipWarmup records (log order) and every record flagged warmup, plus the
    // per-rank peaks of the memory lines (rank-less 2020 lines are left out).
    MegatronLogSummary summary(int skipWarmup = 2) const;
};

// Reads Megatron-LM / Megatron-DeepSpeed training logs (formats in
// reference/EXPORT_AND_LOGS.md section 2): iteration lines, memory lines,
// (min, max) / max / per-rank / one-line timers. Tolerates line prefixes
// ("0: " from srun -l, "[default0]:" from torchrun --tee, "stdout: ",
// "INFO:megatron.core.timers:"), timestamps, interleaved ranks, CR/LF, and
// truncated or garbled lines, which are skipped with a warning naming file and
// line. Unrecognised lines (startup output, comments) are ignored silently.
class MegatronLogParser {
public:
    // Throws InputError (naming `file`) when the text holds no iteration,
    // memory or timer line at all.
    static MegatronLog parse(const std::string& text, const std::string& file);
    // Throws InputError when the file cannot be read or holds nothing parseable.
    static MegatronLog read(const std::string& file);

    // Peak "max allocated" MiB per pipeline stage: stage s gets the max over
    // the memory records of layout.ranksOfStage(s) present in the log; NaN for
    // a stage without any record (the caller must report it). Rank-less
    // records are ignored. Throws InputError when a rank lies outside the
    // layout's world size (the layout does not match the log).
    static std::vector<double> stagePeakMiB(const MegatronLog& log, const RankLayout& layout);
};

}  // namespace memx
