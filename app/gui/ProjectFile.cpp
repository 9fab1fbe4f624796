#include "ProjectFile.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "model/ModelSpec.h"
#include "search/ObjectiveSpecJson.h"
#include "space/TrainingSetupJson.h"

namespace memx {

nlohmann::json Project::toJson() const
{
    nlohmann::json j;
    j["format"] = "memx-project/2";
    j["cluster"] = cluster;
    j["model"] = model;
    j["setup"] = TrainingSetupJson::write(setup);
    j["objective"] = ObjectiveSpecJson::write(objective);
    j["predictor"] = predictor;
    if (!lastResult.is_null())
        j["last_result"] = lastResult;
    return j;
}

Project Project::fromJson(const nlohmann::json& doc, const std::string& file)
{
    JsonReader root(doc, file);
    // memx-project/1 (before 2026-12-06) spells the micro-batch sizes
    // "micro_batches"; TrainingSetupJson reads both.
    const std::string format = root.string("format", "");
    if (format != "memx-project/1")
        root.requireFormat("memx-project/2");
    Project p;
    p.cluster = root.at("cluster").node();
    // Validate the embedded cluster now, with paths inside the project. A
    // project may hold an empty cluster (File > New, saved before any node was
    // added): the workbench's editor accepts it, a search refuses it.
    try {
        Cluster::fromEditorJson(p.cluster, file + " (cluster)", GpuCatalog::builtin());
    } catch (const InputError& e) {
        throw InputError(file, "/cluster" + e.field(), e.reason());
    }
    p.model = root.at("model").node();
    ModelSpec::fromJson(JsonReader(p.model, file, "/model"));  // validates, names /model/... on error
    p.setup = TrainingSetupJson::read(root.at("setup"));
    p.objective = ObjectiveSpecJson::read(root.at("objective"));
    p.predictor = root.string("predictor", "analytic");
    if (root.has("last_result"))
        p.lastResult = root.at("last_result").node();
    return p;
}

Project Project::load(const std::string& file) { return fromJson(JsonReader::parseFile(file), file); }

void Project::save(const std::string& file) const { writeFileAtomically(file, toJson().dump(2) + "\n"); }

}  // namespace memx
