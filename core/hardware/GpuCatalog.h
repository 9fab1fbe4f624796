#pragma once

#include "hardware/GpuType.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace memx {

class JsonReader;

// What the catalog knows of a vendor's runtime.
struct GpuVendor {
    std::string visibleDevicesEnv;
    bool verified = true;
    std::string source;
};

// The catalog of known GPU types (resources/gpu_catalog.json, compiled in)
// and of their vendors' runtimes.
class GpuCatalog {
public:
    static const GpuCatalog& builtin();
    static GpuCatalog fromJson(const nlohmann::json& doc, const std::string& file);
    static GpuCatalog fromFile(const std::string& file);

    const GpuType* find(const std::string& name) const;
    const GpuVendor* vendor(const std::string& name) const;
    // Fills a type's device-selection variable from its vendor's entry
    // (unverified CUDA_VISIBLE_DEVICES for a vendor the catalog lacks),
    // unless the type set its own.
    void applyVendor(GpuType& t, bool typeSetItsOwn) const;
    std::vector<std::string> names() const;
    const std::map<std::string, GpuType>& types() const { return types_; }

    // Reads one entry; fields missing from `json` come from `base` (if given).
    static GpuType parseType(const JsonReader& json, const std::string& name, const GpuType* base);

private:
    std::map<std::string, GpuType> types_;
    std::map<std::string, GpuVendor> vendors_;
};

}  // namespace memx
