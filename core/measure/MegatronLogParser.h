#pragma once

#include "measure/MegatronLog.h"

#include <string>
#include <vector>

namespace memx {

class RankLayout;

// Reads Megatron-LM / Megatron-DeepSpeed / Megatron-Bridge / NeMo training
// logs (formats in reference/EXPORT_AND_LOGS.md section 2 and
// docs/MEASUREMENTS.md "Logs"): iteration lines of every era since 2020
// (with or without timestamps, consumed samples, TFLOPs, samples per second),
// NeMo progress lines (train_step_timing in s), memory lines in MB with or
// without rank and in GB (Megatron-Bridge), (min, max) / max / per-rank /
// one-line timers, the argument dump (MegatronArguments) and the padded
// vocabulary line.
//
// Tolerates launcher and logger prefixes and ANSI colours (LogLinePrefixes),
// interleaved ranks, CR/LF, progress bars redrawn with '\r' (a repeated line
// is kept once), and lines wrapped over several physical lines (an iteration
// line without its closing '|', a memory line without all four values:
// following lines that begin no record of their own are joined, up to 8).
// Truncated or garbled lines are skipped with a warning naming file and line.
// Unrecognised lines (startup output, comments) are ignored silently.
//
// Starts of training: the argument banner, "training ...", "[before the
// start of training step]", "loading checkpoint ...", "successfully loaded
// checkpoint ...", "[after training is done]", and an iteration number that
// does not go up (a restart without any of those lines). The first
// iteration line after a start is flagged firstAfterStart, and later ones
// are numbered by run. A dump without its end banner stays open for argument
// lines until the first record or start line, and is reported incomplete.
//
// read() takes the file a megabyte at a time and keeps only the lines not
// parsed yet, so a log costs what is kept of it, not its size.
class MegatronLogParser {
public:
    // What is kept of the records: All; or Peaks, what summary() and
    // stagePeakMiB() need (the iteration lines, and of each rank's memory
    // lines those holding its largest "max allocated" and "max reserved"; no
    // timer values): import-logs on a log of hundreds of megabytes.
    enum class Keep { All, Peaks };

    // Throws InputError (naming `file`) when the text holds no iteration,
    // memory or timer line and no argument dump at all.
    static MegatronLog parse(const std::string& text, const std::string& file, Keep keep = Keep::All);
    // Throws InputError when the file cannot be read or holds nothing parseable.
    static MegatronLog read(const std::string& file, Keep keep = Keep::All);

    // Peak "max allocated" MiB per pipeline stage: stage s gets the max over
    // the memory records of layout.ranksOfStage(s) present in the log; NaN for
    // a stage without any record (the caller must report it). Rank-less
    // records (2020) were printed by global rank 0 (print_rank_0), which is on
    // stage 0 in every rank order: they stand for stage 0 when it has no
    // ranked record. Throws InputError when a rank lies outside the layout's
    // world size (the layout does not match the log).
    static std::vector<double> stagePeakMiB(const MegatronLog& log, const RankLayout& layout);
};

}  // namespace memx
