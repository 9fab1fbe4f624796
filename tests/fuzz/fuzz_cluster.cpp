// Cluster JSON (memx-cluster/1), with its gpu_types overrides, as
// `memx-cli search --cluster` reads it.
#include "FuzzInput.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/JsonReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        const memx::Cluster cluster = memx::Cluster::fromJson(doc, "fuzz.json", memx::GpuCatalog::builtin());
        (void)cluster.toJson().dump();  // what the workbench and exports write back
    });
}
