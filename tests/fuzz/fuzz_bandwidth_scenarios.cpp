// What-if bandwidth scenarios (memx-bandwidth-scenarios/1), as
// `memx-cli search --bandwidth-scenarios` reads them against a cluster, and
// the scaled clusters they make: every factor the reader accepts gives a
// link bandwidth that is positive and finite.
#include "FuzzInput.h"

#include "hardware/BandwidthScenarioFile.h"
#include "hardware/GpuCatalog.h"
#include "io/JsonReader.h"

#include <cmath>

namespace {
// Two nodes with a link of each selector's kind: NVLink within each, and
// InfiniBand between them on a shared medium.
const memx::Cluster& cluster()
{
    static const memx::Cluster c = memx::Cluster::fromJson(nlohmann::json::parse(R"({
        "format": "memx-cluster/1", "name": "fuzz",
        "nodes": [{"name": "n0", "gpus": [{"type": "A100-80GB", "count": 4}]},
                  {"name": "n1", "gpus": [{"type": "H100-SXM", "count": 4}]}],
        "links": [{"name": "nv0", "kind": "NVLink", "within": "n0", "bandwidth_gbps": 300, "latency_us": 2},
                  {"name": "nv1", "kind": "NVLink", "within": "n1", "bandwidth_gbps": 450, "latency_us": 2},
                  {"name": "ib", "kind": "InfiniBand", "between": ["n0", "n1"], "bandwidth_gbps": 50,
                   "latency_us": 5, "medium": "nic"}]})"),
                                                           "fuzz-cluster.json", memx::GpuCatalog::builtin());
    return c;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return memx::fuzz::acceptOrRefuse([&] {
        const auto doc = memx::JsonReader::parseText(memx::fuzz::text(data, size), "fuzz.json");
        for (const auto& sc : memx::BandwidthScenarioFile::fromJson(doc, "fuzz.json", cluster())) {
            double shares = 0;
            for (const auto& seg : sc.segments) {
                shares += seg.share;
                (void)memx::BandwidthScenario::describe(seg.scales);
                const memx::Cluster scaled = memx::BandwidthScenario::apply(cluster(), seg.scales);
                for (const auto& link : scaled.links())
                    if (!(link.bandwidthGBps > 0) || !std::isfinite(link.bandwidthGBps))
                        memx::fuzz::broken("scenario " + sc.name + " gives link " + link.name + " a bandwidth of "
                                           + std::to_string(link.bandwidthGBps));
            }
            if (std::abs(shares - 1) > 1e-9)
                memx::fuzz::broken("the segments of " + sc.name + " do not add up to the whole time");
        }
    });
}
