// Measurement CSV (memx-measurements/1, Kind::Measurements), as `train`,
// `evaluate` and `calibrate` read it.
#include "FuzzCsv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::csv(data, size, memx::MeasurementCsv::Kind::Measurements);
}
