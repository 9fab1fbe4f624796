#pragma once

#include "measure/MeasuredRun.h"
#include "profiling/ProfilingPlanner.h"

#include <string>
#include <utility>
#include <vector>

namespace memx {

// Measured pre-sampling runs (paper section 3.2.1: `profile-plan
// --presample`, then the runs measured and imported, or simulated) as the
// profiler's MeasureFn: each query answered with the iteration time and the
// peak memory of the single-stage run that ran it, found by its shape (GPU
// type, TP, micro-batch, sequence, layers, recomputation, query groups).
class PresampleMeasurements {
public:
    // Single-stage (PP = 1, DP = 1) runs with a time or a peak; others are
    // not pre-sampling runs and are counted in ignored().
    explicit PresampleMeasurements(const std::vector<MeasuredRun>& runs);

    // (iteration time ms, peak MiB); NaN where no run of that shape has the
    // number (never measured, or out of memory). A shape measured twice
    // answers the median of its repeats.
    std::pair<double, double> find(const StageQuery& q) const;

    // find() as a MeasureFn that also records the shapes it had no number
    // for in `missing` (run ids as profile-plan names them). `this` and
    // `missing` must outlive it.
    ProfilingPlanner::MeasureFn measure(std::vector<std::string>& missing) const;

    std::size_t used() const { return runs_.size(); }
    std::size_t ignored() const { return ignored_; }

    // The run id profile-plan gives a query: "<gpu>_tp<t>_mbs<b>_seq<s>_l<l>_g<g>_rc<none|sel|full>".
    static std::string runIdOf(const StageQuery& q);

private:
    struct Shape {
        std::string gpu;
        int tp, mbs, seq, layers, queryGroups;
        Recompute recompute;
        bool operator==(const Shape&) const = default;
    };
    struct Values {
        Shape shape;
        std::vector<double> times, peaks;
    };
    std::vector<Values> runs_;
    std::size_t ignored_ = 0;
};

}  // namespace memx
