#include "measure/RunPlacement.h"

#include "hardware/Cluster.h"
#include "io/InputError.h"
#include "measure/MeasuredRun.h"

#include <filesystem>

namespace memx {

RunPlacement::RunPlacement(std::shared_ptr<const Cluster> defaultCluster) : default_(std::move(defaultCluster)) { }

std::string RunPlacement::resolve(const std::string& cell, const std::string& measurementsFile)
{
    const std::filesystem::path p(cell);
    if (p.is_absolute())
        return cell;
    return (std::filesystem::path(measurementsFile).parent_path() / p).lexically_normal().string();
}

std::shared_ptr<const Cluster> RunPlacement::clusterOf(const MeasuredRun& run, const std::string& file)
{
    const std::string& cell = run.config.cluster;
    if (cell.empty())
        return default_;
    const std::string path = resolve(cell, file);
    if (const auto it = loaded_.find(path); it != loaded_.end())
        return it->second;
    const std::string field = "run " + run.runId + ", column cluster";
    if (!std::filesystem::is_regular_file(path))
        throw InputError(file, field,
                         "cluster file \"" + cell + "\" not found (looked for " + path
                             + "; a relative path is taken from the measurements file's directory)");
    try {
        auto c = std::make_shared<const Cluster>(Cluster::fromFile(path));
        loaded_.emplace(path, c);
        return c;
    } catch (const InputError& e) {
        throw InputError(file, field, "cluster file \"" + cell + "\" is not a valid cluster: " + e.what());
    }
}

Problem RunPlacement::problem(const MeasuredRun& run, const std::string& file, const GpuCatalog& catalog,
                              PlanSpec& spec)
{
    const std::shared_ptr<const Cluster> cluster = clusterOf(run, file);
    return cluster ? RunScenario::problem(run, *cluster, spec) : RunScenario::problem(run, catalog, spec, file);
}

std::optional<RunPrediction> RunPlacement::predict(const MeasuredRun& run, const std::string& file,
                                                   const GpuCatalog& catalog,
                                                   std::shared_ptr<const Predictor> predictor,
                                                   std::vector<std::string>& skipped)
{
    const std::shared_ptr<const Cluster> cluster = clusterOf(run, file);  // throws: not a skip
    try {
        PlanSpec spec;
        const Problem p
            = cluster ? RunScenario::problem(run, *cluster, spec) : RunScenario::problem(run, catalog, spec, file);
        return RunScenario::predict(p, spec, std::move(predictor));
    } catch (const InputError& e) {
        skipped.push_back("run " + run.runId + ": " + e.reason());
        return std::nullopt;
    }
}

}  // namespace memx
