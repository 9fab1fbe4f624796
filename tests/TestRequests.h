#pragma once

#include "TestClusters.h"
#include "TestPaths.h"

#include "search/SearchEngine.h"

#include <optional>

// The search most view tests display: LLaMA2-7B on the paper's 20-GPU,
// 3-vendor cluster, ranked under the three paper profiles, uniform meshes
// (every stage one TP and DP; perMeshRequest below has per-mesh plans).
namespace memx::test {
inline SearchRequest paperRequest()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatchSizes = {1, 2};
    req.problem.setup.meshes = MeshMode::Uniform;
    req.compareProfiles = {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst};
    return req;
}
// A search whose answer holds per-mesh plans: LLaMA2-13B on a node of 8
// H100 and one of 8 A100-80GB with per-type meshes (as docs/HETERO_MESHES.md,
// case 3).
inline SearchRequest perMeshRequest()
{
    SearchRequest req;
    req.problem.cluster = uniformNodes(2, 8, "H100-SXM", "A100-80GB");
    req.problem.model = ModelSpec::resolve("llama2-13b");
    req.problem.setup.globalBatch = 64;
    req.problem.setup.meshes = MeshMode::PerType;
    return req;
}
// A small search whose whole feasible set the engine keeps: a 24-layer
// LLaMA2-7B on the paper's 4 x V100 + 2 x T4 (fp16: neither has bf16),
// gbs 32, micro-batch 1, at most 4 stages, uniform meshes.
inline SearchRequest smallRequest()
{
    SearchRequest req;
    req.problem.setup.meshes = MeshMode::Uniform;
    req.problem.cluster = Cluster::fromFile(sampleCluster("paper-6gpu-v100-t4.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.model.numLayers = 24;
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1};
    req.problem.setup.maxPipelineStages = 4;
    return req;
}
inline SearchResult runPaperSearch() { return SearchEngine::run(paperRequest()); }
// A search several cases of one test start from: run on first use, then
// kept with the request it answered (a sanitizer-stage search costs seconds).
struct SearchOnce {
    template <typename MakeRequest> const SearchResult& run(MakeRequest make)
    {
        if (!result) {
            request = make();
            result = SearchEngine::run(request);
        }
        return *result;
    }
    SearchRequest request;
    std::optional<SearchResult> result;
};
}  // namespace memx::test
