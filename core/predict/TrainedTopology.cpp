#include "predict/TrainedTopology.h"

#include "hardware/Cluster.h"
#include "io/JsonReader.h"
#include "predict/PredictorFile.h"

#include <algorithm>

namespace memx {

namespace {

constexpr const char* kSynthetic = "the synthetic cluster (one node per stage: NVLink inside a stage, InfiniBand "
                                   "between stages)";

void mergeTypes(std::vector<std::string>& into, const std::vector<std::string>& types)
{
    into.insert(into.end(), types.begin(), types.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
}

}  // namespace

void TrainedTopology::add(const Cluster* cluster, const std::vector<std::string>& gpuTypes)
{
    if (!cluster) {
        ++syntheticRuns;
        mergeTypes(syntheticGpuTypes, gpuTypes);
        return;
    }
    const std::string fp = fingerprint(*cluster);
    for (ClusterEntry& e : clusters)
        if (e.fingerprint == fp && e.name == cluster->name()) {
            ++e.runs;
            mergeTypes(e.gpuTypes, gpuTypes);
            return;
        }
    clusters.push_back({cluster->name(), fp, 1, {}});
    mergeTypes(clusters.back().gpuTypes, gpuTypes);
}

std::string TrainedTopology::fingerprint(const Cluster& cluster)
{
    nlohmann::json j = cluster.toJson();
    j.erase("name");
    j.erase("description");
    j.erase("source");
    for (nlohmann::json& l : j["links"])
        l.erase("name");
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
        return std::string(kSynthetic)
            + ", taken as such: the file records no topology (trained before topologies "
              "were recorded)";
    std::string out;
    const auto add = [&](const std::string& s) { out += (out.empty() ? "" : " and ") + s; };
    if (syntheticRuns > 0 || clusters.empty())
        add(std::string(kSynthetic) + (clusters.empty() ? "" : " for " + std::to_string(syntheticRuns) + " run(s)"));
    for (const ClusterEntry& e : clusters)
        add("cluster " + e.name + " (fingerprint " + e.fingerprint + ")"
            + (clusters.size() > 1 || syntheticRuns > 0 ? " for " + std::to_string(e.runs) + " run(s)" : ""));
    return out;
}

std::string TrainedTopology::mismatch(const Cluster* cluster, const std::string& modelFile,
                                      const std::vector<std::string>& gpuTypes) const
{
    std::string whole = wholeMismatch(cluster, modelFile);
    if (!whole.empty() || !recorded || !typesRecorded || gpuTypes.empty())
        return whole;
    // The topology it is used on was seen in training: for which types?
    const std::vector<std::string>* here = &syntheticGpuTypes;
    if (cluster) {
        const std::string fp = fingerprint(*cluster);
        for (const ClusterEntry& e : clusters)
            if (e.fingerprint == fp)
                here = &e.gpuTypes;
    }
    std::vector<std::string> elsewhere;  // every type trained anywhere
    mergeTypes(elsewhere, syntheticGpuTypes);
    for (const ClusterEntry& e : clusters)
        mergeTypes(elsewhere, e.gpuTypes);
    std::string missing;
    for (const std::string& t : gpuTypes)
        if (std::binary_search(elsewhere.begin(), elsewhere.end(), t)
            && !std::binary_search(here->begin(), here->end(), t) && missing.find(t) == std::string::npos)
            missing += (missing.empty() ? "" : ", ") + t;
    if (missing.empty())
        return {};
    return modelFile + " learned " + missing + " on runs placed on other topologies than " + describeUse(cluster)
        + " (it was trained on " + describe()
        + "): for those types the TP/DP links differ from training, so its "
          "corrections may not transfer; "
        + (cluster ? "retrain with runs of those types on this cluster"
                   : "give the cluster they ran on with --cluster");
}

std::string TrainedTopology::wholeMismatch(const Cluster* cluster, const std::string& modelFile) const
{
    if (!cluster) {
        if (!recorded || syntheticRuns > 0 || clusters.empty()) {
            if (syntheticWiring >= kSyntheticWiring)
                return {};
            return modelFile
                + " was trained on the synthetic cluster as MemX wired it before 2026-12-03 (every "
                  "NVLink 200 GB/s, every PCIe 16 GB/s); the synthetic cluster now wires each node as "
                  "a server of its GPU type (NVLink 300/450/900 GB/s for A100/H100/B200, PCIe 25 GB/s), "
                  "so its TP/DP link features differ from training: retrain with `memx-cli train`";
        }
    } else {
        const std::string fp = fingerprint(*cluster);
        if (std::any_of(clusters.begin(), clusters.end(), [&](const ClusterEntry& e) { return e.fingerprint == fp; }))
            return {};
    }
    return modelFile + " was trained on runs placed on " + describe() + " but is now used on " + describeUse(cluster)
        + ": the TP/DP links differ from training, so its corrections may not transfer; "
        + (cluster ? "retrain with `memx-cli train --cluster` on this cluster"
                   : "give the cluster it was trained on with --cluster");
}

nlohmann::json TrainedTopology::toJson() const
{
    nlohmann::json c = nlohmann::json::array();
    for (const ClusterEntry& e : clusters)
        c.push_back({{"name", e.name}, {"fingerprint", e.fingerprint}, {"runs", e.runs}, {"gpu_types", e.gpuTypes}});
    return {{"synthetic_runs", syntheticRuns},
            {"synthetic_gpu_types", syntheticGpuTypes},
            {"synthetic_wiring", syntheticWiring},
            {"clusters", c}};
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
        if (v < 0)
            o.fail("must not be negative (got " + std::to_string(v) + ")", key);
        return static_cast<std::size_t>(v);
    };
    t.syntheticRuns = count(r, "synthetic_runs");
    // The GPU types of each topology: absent before 2026-12-04.
    const auto types = [](const JsonReader& o, const char* key) {
        std::vector<std::string> v;
        for (const JsonReader& s : o.at(key).items())
            v.push_back(s.asString());
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    t.typesRecorded = r.has("synthetic_gpu_types");
    if (t.typesRecorded)
        t.syntheticGpuTypes = types(r, "synthetic_gpu_types");
    for (const JsonReader& e : r.at("clusters").items()) {
        t.clusters.push_back({e.name("name"), e.string("fingerprint"), count(e, "runs"), {}});
        if (t.typesRecorded) {
            if (!e.has("gpu_types"))
                e.fail("is missing (the file records synthetic_gpu_types, so every cluster needs its types)",
                       "gpu_types");
            t.clusters.back().gpuTypes = types(e, "gpu_types");
        }
    }
    return t;
}

}  // namespace memx
