#pragma once

#include "measure/MeasuredRun.h"
#include "measure/Measurement.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memx {

struct DumpedRun;
struct MegatronLog;

// What `memx-cli import-logs` knows besides the logs.
struct LogImportOptions {
    int skipWarmup = 2;  // --skip-warmup: iterations <= N are warm-up
    std::string gpuType;  // --gpu-type: the GPU of every log
    std::map<std::string, std::string> gpuTypes;  // --gpu-type-map: log file name (or stem) -> GPU type
    std::string runsFile;  // --runs; empty: the runs come from the argument dumps
    std::vector<MeasuredRun> runs;  // the run list's runs (when runsFile is given)
    bool allowSetupMismatch = false;  // import runs the planner's model does not describe, with a warning
    // --fp32-matmul: how fp32 runs' matmuls ran (a log cannot say); Unstated
    // writes fp32 with fp32_matmul empty (read as kFp32MatmulDefault).
    Fp32Matmul fp32Matmul = Fp32Matmul::Unstated;
};

// One log's outcome.
struct ImportedLog {
    std::string file;
    std::string runId;
    std::vector<Measurement> rows;  // run row (when a time is left) and stage rows (memory per stage)
    std::vector<std::string> warnings;
    std::vector<std::string> errors;  // not empty: nothing is written for this log; each names file, line, argument
    bool imported() const { return errors.empty(); }
};

// Turns training logs into memx-measurements/1 rows: a run row with the
// median iteration time (MegatronLog::summary) and a stage row with the peak
// "max allocated" of each pipeline stage that printed memory
// (MegatronLogParser::stagePeakMiB).
//
// The run a log belongs to: with a run list, the run whose run_id (made file-
// safe) is the log's file stem, and the log's argument dump, when it has one,
// must agree with it; without, the run the argument dump describes
// (MegatronArguments::toRun), with run_id = the file stem and the GPU type
// from the options. A log is refused (errors, nothing written) when it cannot
// be read, has no iteration line, has a dump without its end banner or two
// dumps that disagree, names no run, has no dump and no run list, contradicts
// the run list, or describes a run the planner's model does not (MoE, CP,
// full recomputation in chunks of several layers, ...; the last only unless
// allowSetupMismatch). Sequence parallelism and the distributed optimizer
// are columns of the rows, as the run used them.
class LogImporter {
public:
    // Throws InputError for an unknown GPU type in the options.
    explicit LogImporter(LogImportOptions options);

    // Never throws for a bad log: the reasons are in ImportedLog::errors.
    ImportedLog import(const std::string& file);

    // Run-list runs without an imported log, in run-list order.
    std::vector<std::string> runsWithoutLog() const;

    // --gpu-type-map: one "log-file-name gpu-type" per line; blank lines and
    // "#" comments skipped. Throws InputError(file, "line N", reason).
    static std::map<std::string, std::string> readGpuTypeMap(const std::string& file);

private:
    const MeasuredRun* runOf(const std::string& file, ImportedLog& out) const;
    std::string gpuTypeOf(const std::string& file) const;
    MeasuredRun runFromDump(const DumpedRun& dump, ImportedLog& out) const;
    void checkAgainstRunList(const DumpedRun& dump, const MeasuredRun& run, ImportedLog& out) const;
    void checkSetup(const DumpedRun& dump, ImportedLog& out) const;
    void addRows(const MegatronLog& log, const MeasuredRun& run, bool tpPpDp, ImportedLog& out) const;
    void completeStages(const MeasuredRun& run, const std::vector<size_t>& without, std::optional<double> time,
                        ImportedLog& out) const;
    void validate(ImportedLog& out) const;

    LogImportOptions opt_;
    std::map<std::string, const MeasuredRun*> bySafeName_;
    std::map<std::string, std::string> imported_;  // run_id -> the log it came from
};

}  // namespace memx
