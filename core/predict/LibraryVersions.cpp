#include "predict/LibraryVersions.h"

#include <nlohmann/json.hpp>
#include <xgboost/c_api.h>

namespace memx {

std::string LibraryVersions::xgboost()
{
    int major = 0, minor = 0, patch = 0;
    XGBoostVersion(&major, &minor, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string LibraryVersions::nlohmannJson()
{
    return std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "."
        + std::to_string(NLOHMANN_JSON_VERSION_PATCH);
}

}  // namespace memx
