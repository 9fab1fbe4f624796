#pragma once

#include <nlohmann/json.hpp>

namespace memx {

class JsonReader;
struct ObjectiveSpec;

// The one JSON codec of ObjectiveSpec (the "objective" object of project
// files and the "spec" of a search's "objective", docs/FILE_FORMATS.md): one
// spelling per field ("variance": "mib" | "util"), the constraints only when
// on. The reader checks types, then ObjectiveSpec::validate(); errors name
// the file and the field's JSON path.
struct ObjectiveSpecJson {
    static nlohmann::json write(const ObjectiveSpec& o);
    static ObjectiveSpec read(const JsonReader& j);
};

}  // namespace memx
