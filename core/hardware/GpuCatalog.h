#pragma once

#include "hardware/GpuType.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace memx {

class JsonReader;

// The catalog of known GPU types (resources/gpu_catalog.json, compiled in).
class GpuCatalog {
public:
    static const GpuCatalog& builtin();
    static GpuCatalog fromJson(const nlohmann::json& doc, const std::string& file);
    static GpuCatalog fromFile(const std::string& file);

    const GpuType* find(const std::string& name) const;
    std::vector<std::string> names() const;
    const std::map<std::string, GpuType>& types() const { return types_; }

    // Reads one entry; fields missing from `json` come from `base` (if given).
    static GpuType parseType(const JsonReader& json, const std::string& name, const GpuType* base);

private:
    std::map<std::string, GpuType> types_;
};

}  // namespace memx
