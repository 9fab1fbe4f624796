#pragma once

#include "model/ModelSpec.h"
#include "model/Precision.h"

#include <cstddef>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace memx {

class Predictor;
class Topology;
struct Problem;

// A lower bound on the iteration time of every plan of a per-type mesh
// choice, before its skeletons exist (issue #32; docs/HETERO_MESHES.md).
// Per (GPU type, TP, DP, micro-batch, sequence, query groups, first or last
// stage) the predictor times n = 1..L layers once, without recomputation and
// on the type's fastest TP ring: tau = min_n t(n) / n, tmin = min_n t(n).
// A pipeline of such stages with l_s layers (sum L) has its slowest stage at
// least B = max(L / sum_s 1/tau_s, max_s tmin_s) and its stage times sum to
// at least S = max(L min_s tau_s, sum_s tmin_s); IterationComposer's time is
// (G - c) B + c S + hops + fixed + sync with c = min(pipeline scale, G) and
// never falls as B or S grow, so (G - c) B + c S + fixed bounds it.
// Admissible where stage time never falls with a faster TP link, without
// recomputation or with fewer layers, which the analytic model guarantees; a learned model need
// not, so the search orders by it only with the analytic predictor.
class MeshTimeBound {
public:
    // One mesh: `stages` consecutive stages of one GPU type.
    struct Mesh {
        int type = 0;
        int tp = 1, dp = 1, microBatch = 1, stages = 1;
    };
    MeshTimeBound(const Problem& problem, const Predictor& predictor, const Topology& topo);

    // Meshes in pipeline order; G micro-batches; the task's sequence and query
    // groups. O(meshes): a mesh's stages share one row but for the pipeline's
    // first and last stage (the per-type enumerator asks it of every mesh
    // choice, 1.6 million at 512 GPUs).
    double iterationMs(const std::vector<Mesh>& meshes, int microBatchCount, int seq, int queryGroups);

    // The layer counts a row is predicted at: every one up to
    // kEveryLayerUpTo (every model the tool ships has fewer layers, so its
    // rows are exact), then a geometric grid to `layers`, so that a model of
    // 100,000 layers costs about 1,000 predictions a row, not 100,000.
    static std::vector<int> layerCounts(int layers);
    static constexpr int kEveryLayerUpTo = 256;
    static constexpr double kGridRatio = 1.01;

private:
    struct Row {
        double tau = 0, tmin = 0;
    };
    using Key = std::tuple<int, int, int, int, int, int, bool, bool>;  // type tp dp mbs seq qg first last
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    const Row& row(const Mesh& m, int seq, int queryGroups, bool first, bool last);
    double overheadMs(int type);
    // The best TP ring any stage of the type can have (highest bandwidth,
    // lowest latency, each on its own): no stage of the type has a faster one.
    std::pair<double, double> fastestRing(int type, int tp) const;

    const Problem& problem_;
    const Predictor& predictor_;
    const Topology& topo_;
    Precision precision_;
    std::unordered_map<Key, Row, KeyHash> rows_;
    std::vector<double> overheadMs_;  // per GPU type; negative: not asked yet
};

}  // namespace memx
