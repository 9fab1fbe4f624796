#pragma once

#include <nlohmann/json.hpp>

namespace memx {

class JsonReader;
struct TrainingSetup;

// The one JSON codec of TrainingSetup: the "setup" object of plan, search and
// project files (docs/FILE_FORMATS.md) is written and read here and nowhere
// else, with one spelling per field. The reader also takes the spellings of
// files written before 2026-12-06 (memx-plan/1, memx-search/1:
// "max_pp" and "micro_batches" for the sizes; memx-project/1: "micro_batches"),
// checks each number against io/Ranges.h (allow_outside_range on the setup
// object admits an outlier) and then TrainingSetup::validate(); every error
// names the file and the field's JSON path.
struct TrainingSetupJson {
    static nlohmann::json write(const TrainingSetup& s);
    static TrainingSetup read(const JsonReader& j);
};

}  // namespace memx
