#include "predict/TrainedTopology.h"

#include "hardware/Cluster.h"
#include "io/JsonReader.h"
#include "predict/PredictorFile.h"

#include <algorithm>

namespace memx {

namespace {

constexpr const char* kSynthetic = "the synthetic cluster (one node per stage: NVLink inside a stage, InfiniBand "
                                   "between stages)";

}  // namespace

void TrainedTopology::add(const Cluster* cluster)
{
    if (!cluster) {
        ++syntheticRuns;
        return;
    }
    const std::string fp = fingerprint(*cluster);
    for (ClusterEntry& e : clusters)
        if (e.fingerprint == fp && e.name == cluster->name()) {
            ++e.runs;
            return;
        }
    clusters.push_back({cluster->name(), fp, 1});
}

std::string TrainedTopology::fingerprint(const Cluster& cluster)
{
    nlohmann::json j = cluster.toJson();
    j.erase("name");
    j.erase("description");
    j.erase("source");
    for (nlohmann::json& l : j["links"]) l.erase("name");
    return PredictorMetadata::hashText(j.dump());
}

std::string TrainedTopology::describeUse(const Cluster* cluster)
{
    if (!cluster)
        return kSynthetic;
    return "cluster " + cluster->name() + " (fingerprint " + fingerprint(*cluster) + ")";
}

std::string TrainedTopology::describe() const
{
    if (!recorded)
        return std::string(kSynthetic) + ", taken as such: the file records no topology (trained before topologies "
                                         "were recorded)";
    std::string out;
    const auto add = [&](const std::string& s) { out += (out.empty() ? "" : " and ") + s; };
    if (syntheticRuns > 0 || clusters.empty())
        add(std::string(kSynthetic) + (clusters.empty() ? "" : " for " + std::to_string(syntheticRuns) + " run(s)"));
    for (const ClusterEntry& e : clusters)
        add("cluster " + e.name + " (fingerprint " + e.fingerprint + ")" +
            (clusters.size() > 1 || syntheticRuns > 0 ? " for " + std::to_string(e.runs) + " run(s)" : ""));
    return out;
}

std::string TrainedTopology::mismatch(const Cluster* cluster, const std::string& modelFile) const
{
    if (!cluster) {
        if (!recorded || syntheticRuns > 0 || clusters.empty()) {
            if (syntheticWiring >= kSyntheticWiring)
                return {};
            return modelFile + " was trained on the synthetic cluster as MemX wired it before 2026-12-03 (every "
                               "NVLink 200 GB/s, every PCIe 16 GB/s); the synthetic cluster now wires each node as "
                               "a server of its GPU type (NVLink 300/450/900 GB/s for A100/H100/B200, PCIe 25 GB/s), "
                               "so its TP/DP link features differ from training: retrain with `memx-cli train`";
        }
    } else {
        const std::string fp = fingerprint(*cluster);
        if (std::any_of(clusters.begin(), clusters.end(), [&](const ClusterEntry& e) { return e.fingerprint == fp; }))
            return {};
    }
    return modelFile + " was trained on runs placed on " + describe() + " but is now used on " +
           describeUse(cluster) + ": the TP/DP links differ from training, so its corrections may not transfer; " +
           (cluster ? "retrain with `memx-cli train --cluster` on this cluster"
                    : "give the cluster it was trained on with --cluster");
}

nlohmann::json TrainedTopology::toJson() const
{
    nlohmann::json c = nlohmann::json::array();
    for (const ClusterEntry& e : clusters)
        c.push_back({{"name", e.name}, {"fingerprint", e.fingerprint}, {"runs", e.runs}});
    return {{"synthetic_runs", syntheticRuns}, {"synthetic_wiring", syntheticWiring}, {"clusters", c}};
}

TrainedTopology TrainedTopology::fromJson(const JsonReader& trainedOn)
{
    TrainedTopology t;
    if (!trainedOn.has("topology")) {
        t.recorded = false;
        t.syntheticWiring = 1;
        return t;
    }
    const JsonReader r = trainedOn.at("topology");
    const long long wiring = r.integer("synthetic_wiring", 1);
    if (wiring < 1 || wiring > kSyntheticWiring)
        r.fail("must be 1 or " + std::to_string(kSyntheticWiring) + " (got " + std::to_string(wiring) + ")",
               "synthetic_wiring");
    t.syntheticWiring = static_cast<int>(wiring);
    const auto count = [](const JsonReader& o, const char* key) {
        const long long v = o.integer(key, 0);
        if (v < 0) o.fail("must not be negative (got " + std::to_string(v) + ")", key);
        return static_cast<std::size_t>(v);
    };
    t.syntheticRuns = count(r, "synthetic_runs");
    for (const JsonReader& e : r.at("clusters").items())
        t.clusters.push_back({e.string("name"), e.string("fingerprint"), count(e, "runs")});
    return t;
}

}  // namespace memx
