#pragma once

#include "measure/MeasuredRun.h"
#include "profiling/ProfilingPlanner.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace memx {

// Measured pre-sampling runs (paper section 3.2.1: `profile-plan
// --presample`, then the runs measured and imported, or simulated) as the
// profiler's MeasureFn: each query answered with the iteration time and the
// peak memory of the single-stage run that ran it, found by its shape (GPU
// type, TP, micro-batch, sequence, layers, recomputation, query groups).
//
// A GPU type with no single-stage run may be answered from stage profiles
// instead (Sailor's per-layer profiles: one measured stage inside a longer
// pipeline): a measured stage between the first and the last (no embedding,
// no output layer) gives its stage time per micro-batch for its shape, and no
// peak (a stage inside a pipeline holds other micro-batches in flight). One
// source per type, so that every sweep compares like with like.
class PresampleMeasurements {
public:
    // Single-stage (PP = 1, DP = 1) runs with a time or a peak, and for types
    // without one the measured inner stages of longer runs; others are not
    // pre-sampling runs and are counted in ignored().
    explicit PresampleMeasurements(const std::vector<MeasuredRun>& runs);

    // (iteration time ms, peak MiB); NaN where no run of that shape has the
    // number (never measured, or out of memory). A shape measured twice
    // answers the median of its repeats.
    std::pair<double, double> find(const StageQuery& q) const;

    // find() as a MeasureFn that also records the shapes it had no time for
    // in `missing` and those with a time but no peak in `noPeak` (run ids as
    // profile-plan names them). `this` and both lists must outlive it.
    ProfilingPlanner::MeasureFn measure(std::vector<std::string>& missing, std::vector<std::string>& noPeak) const;

    std::size_t used() const { return runs_.size(); }
    std::size_t ignored() const { return ignored_; }
    // Types answered from stage profiles (no single-stage run), sorted.
    const std::vector<std::string>& profiledTypes() const { return profiledTypes_; }
    // The layer counts a type's stage profiles measured, ascending; empty for
    // a type of single-stage runs or none.
    std::vector<int> profiledLayers(const std::string& gpu) const;

    // The run id profile-plan gives a query: "<gpu>_tp<t>_mbs<b>_seq<s>_l<l>_g<g>_rc<none|sel|full>".
    static std::string runIdOf(const StageQuery& q);

private:
    struct Shape {
        std::string gpu;
        int tp, mbs, seq, layers, queryGroups;
        Recompute recompute;
        auto operator<=>(const Shape&) const = default;
    };
    static Shape shapeOf(const MeasuredStage& stage, const Measurement& run)
    {
        return {stage.gpuType, stage.tp, run.mbs, run.seqLen, stage.layers, run.queryGroups, stage.recompute};
    }
    struct Values {
        std::vector<double> times, peaks;
    };
    std::map<Shape, Values> runs_;
    std::vector<std::string> profiledTypes_;
    std::size_t ignored_ = 0;
};

}  // namespace memx
