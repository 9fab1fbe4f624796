#include "search/MeshTimeBound.h"

#include "hardware/Cluster.h"
#include "hardware/Topology.h"
#include "predict/Predictor.h"
#include "search/SkeletonTables.h"
#include "space/JobPrecision.h"
#include "space/Problem.h"

#include <algorithm>
#include <limits>

namespace memx {

MeshTimeBound::MeshTimeBound(const Problem& problem, const Predictor& predictor, const Topology& topo)
    : problem_(problem)
    , predictor_(predictor)
    , topo_(topo)
    , precision_(jobPrecision(problem))
    , overheadMs_(problem.cluster.types().size(), -1.0)
{
}

std::size_t MeshTimeBound::KeyHash::operator()(const Key& k) const
{
    const auto [type, tp, dp, mbs, seq, qg, first, last] = k;
    std::size_t h = 1469598103934665603ULL;
    for (const std::size_t v :
         {static_cast<std::size_t>(type), static_cast<std::size_t>(tp), static_cast<std::size_t>(dp),
          static_cast<std::size_t>(mbs), static_cast<std::size_t>(seq), static_cast<std::size_t>(qg),
          static_cast<std::size_t>(first) * 2 + last})
        h = (h ^ v) * 1099511628211ULL;
    return h;
}

double MeshTimeBound::overheadMs(int type)
{
    double& known = overheadMs_[static_cast<std::size_t>(type)];
    if (known < 0)
        known = predictor_.iterationOverheadMs(problem_.cluster.types()[static_cast<std::size_t>(type)]);
    return known;
}

std::pair<double, double> MeshTimeBound::fastestRing(int type, int tp) const
{
    double bandwidth = 0, latency = std::numeric_limits<double>::infinity();
    for (const DeviceGroup& g : problem_.cluster.groups()) {
        if (g.type != type)
            continue;
        for (std::size_t at = 0; at + static_cast<std::size_t>(tp) <= g.devices.size();
             at += static_cast<std::size_t>(tp)) {
            const std::vector<int> ring(g.devices.begin() + static_cast<std::ptrdiff_t>(at),
                                        g.devices.begin() + static_cast<std::ptrdiff_t>(at) + tp);
            const PathRate rate = topo_.ring({ring});
            if (!rate.connected())
                continue;
            bandwidth = std::max(bandwidth, rate.bandwidthGBps);
            latency = std::min(latency, rate.latencyUs);
        }
    }
    // A TP group across nodes is slower than any inside one: the node's best bounds it too.
    return {bandwidth, std::isfinite(latency) ? latency : 0.0};
}

const MeshTimeBound::Row& MeshTimeBound::row(const Mesh& m, int seq, int queryGroups, bool first, bool last)
{
    const Key key{m.type, m.tp, m.dp, m.microBatch, seq, queryGroups, first, last};
    if (auto it = rows_.find(key); it != rows_.end())
        return it->second;
    ModelSpec model = problem_.model;
    model.seqLen = seq;
    model.queryGroups = queryGroups;
    StagePlace place;
    place.gpu = &problem_.cluster.types()[static_cast<std::size_t>(m.type)];
    place.shape = {m.tp, m.dp, m.microBatch};
    place.first = first;
    place.last = last;
    if (m.tp > 1) {
        const auto [bandwidth, latency] = fastestRing(m.type, m.tp);
        place.tpLinkGBps = bandwidth;
        place.tpLatencyUs = latency;
    }
    const std::vector<int> at = layerCounts(model.numLayers);
    std::vector<StageQuery> queries;
    for (int n : at)
        queries.push_back(SkeletonTables::queryOf(problem_.setup, model, precision_, place, n, 0));
    std::vector<StagePrediction> answers(queries.size());
    predictor_.predict(queries, answers);
    Row r;
    r.tau = r.tmin = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < at.size(); ++k) {
        const double t = answers[k].timeMs;
        // Stage time never falls with more layers, so every n in [at[k],
        // at[k+1]) has t(n) / n above t(at[k]) / at[k+1]; consecutive counts
        // (all of them up to kEveryLayerUpTo) give t(n) / n itself.
        const int next = k + 1 < at.size() && at[k + 1] > at[k] + 1 ? at[k + 1] : at[k];
        r.tau = std::min(r.tau, t / next);
        r.tmin = std::min(r.tmin, t);
    }
    return rows_.emplace(key, r).first->second;
}

std::vector<int> MeshTimeBound::layerCounts(int layers)
{
    std::vector<int> at;
    for (int n = 1; n <= layers; n = n < kEveryLayerUpTo ? n + 1 : std::max(n + 1, static_cast<int>(n * kGridRatio)))
        at.push_back(n);
    if (at.empty() || at.back() != layers)
        at.push_back(layers);
    return at;
}

double MeshTimeBound::iterationMs(const std::vector<Mesh>& meshes, int microBatchCount, int seq, int queryGroups)
{
    int P = 0;
    for (const Mesh& m : meshes)
        P += m.stages;
    double inverse = 0, slowestMin = 0, sumMin = 0, fastestTau = std::numeric_limits<double>::infinity();
    double fixedMs = 0;
    const auto add = [&](const Row& r, int stages) {
        inverse += stages / r.tau;
        slowestMin = std::max(slowestMin, r.tmin);
        sumMin += stages * r.tmin;
        fastestTau = std::min(fastestTau, r.tau);
    };
    int begin = 0;
    for (const Mesh& m : meshes) {
        fixedMs = std::max(fixedMs, overheadMs(m.type));
        const int end = begin + m.stages;
        int middle = m.stages;
        if (begin == 0 && middle > 0) {
            add(row(m, seq, queryGroups, true, P == 1), 1);
            --middle;
        }
        if (end == P && P > 1 && middle > 0) {
            add(row(m, seq, queryGroups, false, true), 1);
            --middle;
        }
        if (middle > 0)
            add(row(m, seq, queryGroups, false, false), middle);
        begin = end;
    }
    const IterationTerms& terms = predictor_.iterationTerms();
    const int L = problem_.model.numLayers;
    const double bottleneck = std::max(L / inverse, slowestMin);
    const double sum = std::max(L * fastestTau, sumMin);
    const double c = std::min(terms.pipeline, static_cast<double>(std::max(1, microBatchCount)));
    // A relative margin, as SplitBounds keeps, for sums taken in another order.
    return ((microBatchCount - c) * bottleneck + c * sum + fixedMs * terms.fixed) * (1 - 1e-9);
}

}  // namespace memx
