#pragma once

#include "TestPaths.h"

#include "search/SearchEngine.h"

// The search most view tests display: LLaMA2-7B on the paper's 20-GPU,
// 3-vendor cluster, ranked under the three paper profiles.
namespace memx::test {
inline SearchRequest paperRequest()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatches = {1, 2};
    req.compareProfiles = {ProfileKind::Default, ProfileKind::SafetyFirst, ProfileKind::ThroughputFirst};
    return req;
}
inline SearchResult runPaperSearch()
{
    return SearchEngine::run(paperRequest());
}
}  // namespace memx::test
