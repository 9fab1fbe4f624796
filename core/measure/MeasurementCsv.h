#pragma once

#include "measure/Measurement.h"

#include <string>
#include <vector>

namespace memx {

struct MeasurementSet {
    std::vector<Measurement> rows;
    std::vector<std::string> warnings;  // e.g. the one naming ignored unknown columns
};

// Reader and writer of memx-measurements/1 files: CSV with a header row,
// columns in any order (docs/MEASUREMENTS.md). Every problem throws
// memx::InputError(file, "line N, column <name>", reason); the reason names
// the valid values.
class MeasurementCsv {
public:
    // The column names in canonical (written) order.
    static const std::vector<std::string>& columns();

    // What a file must hold. Measurements need a target on every row; a run
    // list (a profiling plan, the queries of `memx-cli predict`) is the same
    // format with every target allowed to be empty.
    enum class Kind { Measurements, RunList };

    static MeasurementSet read(const std::string& file, Kind kind = Kind::Measurements);
    static MeasurementSet parse(const std::string& text, const std::string& file, Kind kind = Kind::Measurements);

    // Canonical text: a "# format: memx-measurements/1" line, the header with
    // every column (`cluster` only when a row names one), one line per row, empty cells for absent optionals and
    // shortest round-trip numbers; parse(write(rows)) gives rows back exactly.
    static std::string write(const std::vector<Measurement>& rows);
    // Validates by parsing the text, then writes it atomically.
    static void save(const std::string& file, const std::vector<Measurement>& rows, Kind kind = Kind::Measurements);
    // The text save() writes, validated the same way: for a command that
    // writes it together with its other outputs (writeFilesAtomically).
    static std::string checkedText(const std::string& file, const std::vector<Measurement>& rows,
                                   Kind kind = Kind::Measurements);
};

}  // namespace memx
