#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memx {

class Cluster;
class JsonReader;

// Where the training runs of a learned predictor were placed, recorded in the
// model file (`trained_on.topology`): on the synthetic cluster of
// RunScenario (NVLink inside a stage, InfiniBand between stages), on named
// clusters, or both. The learned corrections absorb what the placement gets
// wrong about the links, so a model used on another topology sees TP/DP link
// features and analytic priors it was not trained with; `mismatch` says so.
struct TrainedTopology {
    struct ClusterEntry {
        std::string name;
        std::string fingerprint;  // fingerprint(cluster)
        std::size_t runs = 0;
        std::vector<std::string> gpuTypes;  // of the runs placed on it, sorted (empty in older files)
        bool operator==(const ClusterEntry&) const = default;
    };

    // How RunScenario wires the synthetic cluster: 1 until 2026-12-03 (every
    // NVLink 200 GB/s, every PCIe 16 GB/s), 2 since (each node wired as a
    // server of its GPU type, ClusterGenerator::intraNodeFabric). A model
    // trained on an older wiring saw other links than a synthetic use now has.
    static constexpr int kSyntheticWiring = 2;

    std::size_t syntheticRuns = 0;
    std::vector<std::string> syntheticGpuTypes;  // of the runs placed on the synthetic cluster, sorted
    // False for a file written before the GPU types of each topology were
    // recorded (before 2026-12-04): the per-type check is then skipped.
    bool typesRecorded = true;
    std::vector<ClusterEntry> clusters;  // in order of first use
    // False for a file written before topologies were recorded: taken as synthetic.
    bool recorded = true;
    int syntheticWiring = kSyntheticWiring;  // `synthetic_wiring`; absent in a file: 1

    // Counts one training run placed on `cluster` (null: synthetic), of
    // these GPU types.
    void add(const Cluster* cluster, const std::vector<std::string>& gpuTypes = {});

    // FNV-1a 64 (hex) of the cluster's canonical JSON without its name,
    // description, source and link names: node GPU types and counts, type
    // overrides and calibration, link kinds, endpoints, bandwidths, latencies
    // and sharing. Renaming the cluster or a link keeps it; any change to
    // what placement and link costs depend on changes it.
    static std::string fingerprint(const Cluster& cluster);

    // "the synthetic cluster (...)", "cluster dgx-a100 (fingerprint 1a2b...)",
    // or both for a mixed set; an unrecorded file says it was taken as synthetic.
    std::string describe() const;
    // How a use is described: "cluster X (fingerprint F)" or the synthetic cluster.
    static std::string describeUse(const Cluster* cluster);

    // Empty when the model was trained on this topology (null: the synthetic
    // placement, as wired now), else one line naming the model file, what it
    // was trained on and what it is now used on. With `gpuTypes` (of the
    // runs or the cluster it is used on), also per type: a type the model
    // learned on other topologies only, although it saw this one for other
    // types, is named (a model of V100s on the synthetic cluster and A100s on
    // a DGX says nothing of A100s on the synthetic cluster). Types the model
    // never saw are left to the callers' own warnings.
    std::string mismatch(const Cluster* cluster, const std::string& modelFile,
                         const std::vector<std::string>& gpuTypes = {}) const;

    nlohmann::json toJson() const;
    // Reads `trained_on.topology`; absent: synthetic, recorded = false.
    static TrainedTopology fromJson(const JsonReader& trainedOn);

private:
    // mismatch() without the per-type check.
    std::string wholeMismatch(const Cluster* cluster, const std::string& modelFile) const;
};

}  // namespace memx
