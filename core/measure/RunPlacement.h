#pragma once

#include "measure/RunScenario.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memx {

class Cluster;
class GpuCatalog;
class Predictor;
struct MeasuredRun;

// Where measured runs are placed, the same way for training, scoring and
// prediction: on the run's own cluster when its rows name one (`cluster`
// column, a path relative to the measurements file), else on the default
// cluster (`--cluster`), else on RunScenario's synthetic cluster.
class RunPlacement {
public:
    RunPlacement() = default;  // synthetic unless a run names its cluster
    explicit RunPlacement(std::shared_ptr<const Cluster> defaultCluster);

    // The cluster `run` goes on (null: synthetic), loading its file once.
    // Throws InputError naming `file`, the run and the column when the
    // run's cluster file cannot be read or is not a valid cluster.
    std::shared_ptr<const Cluster> clusterOf(const MeasuredRun& run, const std::string& file);

    // RunScenario::problem on the run's cluster. Throws InputError as above,
    // and when the run cannot be placed there (no group of its GPU type).
    Problem problem(const MeasuredRun& run, const std::string& file, const GpuCatalog& catalog, PlanSpec& spec);

    // The run placed and predicted; nullopt, with "run X: reason" appended
    // to `skipped`, when it cannot be placed or built. A cluster file that
    // cannot be read is not a skip: it throws (the whole set would be wrong).
    std::optional<RunPrediction> predict(const MeasuredRun& run, const std::string& file, const GpuCatalog& catalog,
                                         std::shared_ptr<const Predictor> predictor, std::vector<std::string>& skipped);

    // A `cluster` cell resolved against the measurements file's directory.
    static std::string resolve(const std::string& cell, const std::string& measurementsFile);

private:
    std::shared_ptr<const Cluster> default_;
    std::map<std::string, std::shared_ptr<const Cluster>> loaded_;  // by resolved path
};

}  // namespace memx
