#pragma once

#include "predict/AnalyticPredictor.h"
#include "predict/GpuParamsFit.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {

class GpuCatalog;
class RunPlacement;
struct Measurement;
struct MeasuredRun;

// Fits each GPU type's few physical parameters to measured runs of that
// type (issue #12, "calibration from measurements"): the GEMM efficiency
// multiplier, the achieved-bandwidth multiplier, the host time per operator,
// per collective and per schedule step, and the per-iteration overhead; then, from the measured
// stage peaks, the memory multiplier and framework buffers (MemoryFit). Time
// by robust least squares:
// the mean Huber loss of the relative error (predicted / measured - 1) over
// the runs' iteration times and stage times (a loss in log space fitted the
// Sailor and simulated runs to a worse MAPE than the catalog values), plus a
// weak pull towards the
// catalog values (so that a parameter the runs cannot see stays where the
// catalog put it), minimised by coordinate sweeps over each parameter's
// range and then Nelder-Mead. A type's run that the fit then predicts far
// worse than the others (further from their median log error than 1.6x and
// four robust standard deviations; at most a fifth of 5 or more runs) is left
// out and the type refitted on the rest; `messages` and the fit's note name
// it. Predictions go through PlanEvaluator, the same composition as search.
//
// First each type on its homogeneous runs; then, when some runs mix types,
// the types those runs contain jointly on every run that contains one of
// them (a heterogeneous cluster's types are often measured only together).
// A type is fitted with at most (distinct configurations - 1) parameters, in
// the order above by how much they move the prediction; with fewer than two
// distinct configurations, when runs of one configuration contradict each
// other (times more than 3x apart), or when no fit lowers its runs' MAPE, the
// type keeps its catalog values and `messages` says why.
class Calibrator {
public:
    struct Options {
        int maxEvaluations = 400;  // Nelder-Mead evaluations per type (after the coordinate sweeps)
        double huberDelta = 0.1;  // in log ratio (about 10 %)
        double priorWeight = 0.002;  // per parameter, on (log value - log catalog value)^2
        double contradictionRatio = 3.0;
        // Threads the runs' plans are evaluated on (0: every usable core);
        // the fit is the same for any count.
        int threads = 0;
    };
    struct Result {
        std::vector<GpuParamsFit> fits;  // one per type with runs (fitted or not: see `fitted`)
        std::vector<std::string> messages;  // types left at catalog values and why; runs not used
    };

    // Runs are placed by `placement` (their own cluster, the default one, or
    // the synthetic one), as training and prediction place them.
    static Result fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog, const std::string& file,
                      RunPlacement& placement, const AnalyticPredictor::Params& params, const Options& options);
    // On the synthetic cluster, with default options.
    static Result fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog, const std::string& file);

    // What `train` and the accuracy protocol do first: the rows grouped into
    // runs (a run that cannot be completed is left out, as training leaves it
    // out), fitted on the built-in catalog, and the analytic model with the
    // fitted parameters, which the trees then correct.
    static std::shared_ptr<const AnalyticPredictor> calibratedModel(const std::vector<Measurement>& rows,
                                                                    const std::string& file, RunPlacement& placement,
                                                                    Result& result);
};

}  // namespace memx
