#pragma once

namespace memx {

struct Problem;
struct Skeleton;
struct SkeletonTables;

// The paper's adaptive schedule rule (MemX 3.1.2), evaluated on the
// skeleton's even split without recomputation: interleave only with memory
// headroom (pressure index) and sufficiently similar devices (CV of compute).
struct ScheduleRule {
    static bool interleaveAllowed(const Problem& problem, const Skeleton& sk, const SkeletonTables& t);
};

}  // namespace memx
