#pragma once

#include <string>

namespace memx {

class Cluster;
struct Skeleton;
struct SkeletonTables;

// When nothing fits: how far a skeleton is from fitting. `ratio` is the
// smallest factor by which the binding GPU's memory would have to grow for
// some layer split to fit with the most frugal allowed recomputation.
struct NearMiss {
    double ratio = 0;  // 0: not computed
    std::string message;

    static NearMiss of(const Cluster& cluster, const Skeleton& sk, const SkeletonTables& t);
};

}  // namespace memx
