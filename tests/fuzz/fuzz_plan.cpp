// Plan and search JSON (memx-plan/1, memx-search/1), read and exported for
// every target as `memx-cli export --plan` does.
#include "FuzzInput.h"

#include "export/PlanExport.h"
#include "export/PlanJsonReader.h"
#include "io/JsonReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto json = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        const memx::PlanDocument doc = memx::PlanJsonReader::fromJson(json, "fuzz.json", 0);
        for (const auto target :
             {memx::ExportTarget::Megatron, memx::ExportTarget::FlagScale, memx::ExportTarget::Json})
            (void)memx::PlanExport::files(doc, target, "/nonexistent/export");
    });
}
