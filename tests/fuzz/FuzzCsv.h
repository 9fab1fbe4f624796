#pragma once

// The measurement-CSV targets (both kinds). Accepted rows must survive the
// writer: parse(write(rows)) gives the rows back (MeasurementCsv.h promises
// it), so nothing accepted is lost or altered on the way to a file.
#include "FuzzInput.h"

#include "measure/MeasurementCsv.h"

namespace memx::fuzz {

inline int csv(const std::uint8_t* data, std::size_t size, MeasurementCsv::Kind kind)
{
    return acceptOrRefuse([&] {
        const MeasurementSet set = MeasurementCsv::parse(text(data, size), "fuzz.csv", kind);
        std::string written;
        try {
            written = MeasurementCsv::write(set.rows);
            if (MeasurementCsv::parse(written, "rewritten.csv", kind).rows != set.rows)
                broken("rows differ after write and parse");
        } catch (const InputError& e) {
            broken(std::string("accepted rows do not survive write and parse: ") + e.what());
        }
    });
}

}  // namespace memx::fuzz
