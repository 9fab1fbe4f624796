// GPU catalog overrides (memx-gpu-catalog/1, GpuCatalog::fromJson and its
// per-type parseType), as `memx-cli --catalog` reads them.
#include "FuzzInput.h"

#include "hardware/GpuCatalog.h"
#include "io/JsonReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        const memx::GpuCatalog catalog = memx::GpuCatalog::fromJson(doc, "fuzz.json");
        (void)catalog.names();
    });
}
