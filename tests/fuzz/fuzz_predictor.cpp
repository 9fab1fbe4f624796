// Predictor files (memx-predictor/1): the metadata, then BoosterCheck, then
// XGBoost's own loader, as `search --predictor` and `predict` load them.
#include "FuzzInput.h"

#include "io/JsonReader.h"
#include "predict/PredictorFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        (void)memx::PredictorFile::fromJson(doc, "fuzz.json");
    });
}
