// Model JSON (memx-model/1), as `memx-cli search --model FILE` reads it.
#include "FuzzInput.h"

#include "io/JsonReader.h"
#include "model/ModelSpec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        (void)memx::ModelSpec::fromJson(memx::JsonReader(doc, "fuzz.json"));
    });
}
