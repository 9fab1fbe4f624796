// Run lists (memx-measurements/1 with empty targets, Kind::RunList), as
// `predict` and `import-logs --runs` read them.
#include "FuzzCsv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::csv(data, size, memx::MeasurementCsv::Kind::RunList);
}
