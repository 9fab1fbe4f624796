#pragma once

#include "search/Objective.h"
#include "space/TrainingSetup.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

// A workbench project (memx-project/2; memx-project/1 still opens): the cluster (a memx-cluster/1
// document, embedded), the model (a preset name or an embedded memx-model/1),
// the training setup, the objective, the predictor reference and a summary of
// the last results. See docs/FILE_FORMATS.md.
struct Project {
    nlohmann::json cluster;
    nlohmann::json model;  // memx-model/1 document
    TrainingSetup setup;
    ObjectiveSpec objective;
    // "analytic", or the path of a memx-predictor/1 file (a relative path is
    // relative to the project file's folder).
    std::string predictor = "analytic";
    nlohmann::json lastResult;  // summary only (best plan, stats); may be null

    nlohmann::json toJson() const;
    // Throws InputError naming the file and field.
    static Project fromJson(const nlohmann::json& doc, const std::string& file);
    static Project load(const std::string& file);
    void save(const std::string& file) const;  // atomic
    // Field by field (the JSON parts as JSON values): a project read back
    // must equal the one written.
    bool operator==(const Project&) const = default;
};

}  // namespace memx
