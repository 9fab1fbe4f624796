#include "search/NearMiss.h"

#include "hardware/Cluster.h"
#include "model/Recompute.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace memx {

namespace {
double frugal(const SkeletonTables& t, int i, int n, int& level)
{
    double best = std::numeric_limits<double>::infinity();
    for (int lv = 0; lv < kRecomputeLevels; ++lv) {
        if (!t.row(i).allowed[lv])
            continue;
        double m = t.row(i).pred[n][lv].memoryMiB();
        if (m < best) {
            best = m;
            level = lv;
        }
    }
    return best;
}

std::string gib(double mib)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", mib / 1024.0);
    return buf;
}
}  // namespace

NearMiss NearMiss::of(const Cluster& cluster, const Skeleton& sk, const SkeletonTables& t)
{
    const int P = t.stages;
    const int step = sk.unitLayers();
    auto layersAt = [&](double ratio, int i) {
        int best = 0;
        for (int n = step; n <= t.maxLayers; n += step) {
            int lv = 0;
            if (frugal(t, i, n, lv) <= ratio * t.capacityMiB[i])
                best = n;
        }
        return best;
    };
    auto fits = [&](double ratio) {
        int total = 0;
        for (int i = 0; i < P; ++i) {
            int n = layersAt(ratio, i);
            if (n < step)
                return false;
            total += n;
        }
        return total >= t.layers;
    };
    double lo = 0, hi = 1;
    while (!fits(hi) && hi < 1e6)
        hi *= 2;
    if (!fits(hi))
        return {};
    for (int it = 0; it < 40; ++it) {
        double mid = 0.5 * (lo + hi);
        (fits(mid) ? hi : lo) = mid;
    }
    // The binding stage: the one that runs out first just below the ratio.
    int binding = 0, bindN = step, bindLevel = 0;
    double worst = 0;
    for (int i = 0; i < P; ++i) {
        int n = std::max(step, layersAt(hi, i));
        int lv = 0;
        double m = frugal(t, i, n, lv) / t.capacityMiB[i];
        if (m > worst) {
            worst = m;
            binding = i;
            bindN = n;
            bindLevel = lv;
        }
    }
    const auto& pred = t.row(binding).pred[bindN][bindLevel];
    const StageSlot& slot = sk.slot(binding);
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f", hi);
    NearMiss nm;
    nm.ratio = hi;
    std::string shape = "TP=" + std::to_string(sk.tp) + " PP=" + std::to_string(P) + " DP=" + std::to_string(sk.dp)
        + " mbs=" + std::to_string(sk.mbs);
    if (sk.perMesh()) {
        const StageShape b = sk.shapeOf(binding);
        shape = "per-mesh PP=" + std::to_string(P) + " (stage " + std::to_string(binding) + ": TP="
            + std::to_string(b.tp) + " DP=" + std::to_string(b.dp) + " mbs=" + std::to_string(b.microBatch) + ")";
    }
    nm.message = "closest plan: " + shape + " seq=" + std::to_string(sk.seq) + "; it needs " + ratio
        + "x the memory it has. Stage " + std::to_string(binding) + " on " + slot.name + " ("
        + cluster.types()[static_cast<std::size_t>(slot.type)].name + ", " + gib(t.capacityMiB[binding])
        + " GiB) needs " + gib(pred.memoryMiB()) + " GiB for " + std::to_string(bindN) + " layer(s) even with "
        + toString(static_cast<Recompute>(bindLevel)) + " recomputation: weights " + gib(pred.memory.weightsMiB)
        + ", gradients " + gib(pred.memory.gradientsMiB) + ", optimizer " + gib(pred.memory.optimizerMiB)
        + ", activations " + gib(pred.memory.activationsMiB) + ", reserve " + gib(pred.memory.reserveMiB) + " GiB";
    return nm;
}

}  // namespace memx
