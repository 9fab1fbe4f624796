#pragma once

#include "hardware/Topology.h"
#include "model/LayerOperators.h"

#include <span>

namespace memx {

struct GpuType;

// Time of one operator on one GPU type (docs/ANALYTIC_ACCURACY.md, "Operator
// model"). Device time is a roofline: the larger of FLOPs at a shape-dependent
// share of peak and bytes at the achieved share of memory bandwidth. GEMM
// efficiency is the type's large-GEMM efficiency times wave quantisation over
// its SMs (128 x 128 output tiles; Nvidia's "Matrix Multiplication Background"
// guide) and a short-K penalty k / (k + k0) (prologue and epilogue of each
// tile); where the SM count is unknown, a saturating curve in the GEMM's FLOPs
// stands in for both. The host issues every operator in launch_overhead_us
// (comm_overhead_us for a collective) and an operator costs the longer of
// its device and host time: Megatron's step synchronises often enough
// (pipeline receives, collectives, timers) that the host cannot bank time
// ahead of the GPU; fitting the Megatron-LM CI runs with "longer of the two
// streams" instead left the A100 fit worse than the catalog values.
class OperatorCost {
public:
    struct Params {
        double tileM = 128, tileN = 128;  // output tile of a GEMM kernel
        double halfEfficiencyK = 24;  // k0: K at which a tile reaches half its mainloop efficiency
        double halfEfficiencyGemmFlops = 1e9;  // without an SM count: FLOPs at half efficiency
        double bandwidthFraction = 0.85;  // share of HBM bandwidth streaming kernels reach
        // Share of the fp32 (CUDA-core) peak a large SGEMM sustains: the
        // calibration of the Sailor V100 and RTX-2080 fp32 profiles pushed
        // their tensor-core efficiency (0.45) to the 0.95 cap, and cuBLAS
        // SGEMM is documented near 90% of peak on large shapes.
        double simtEfficiency = 0.85;
    };
    static constexpr double kMaxPeakShare = 0.95;  // no kernel sustains more of peak

    struct Breakdown {
        double computeMs = 0;  // GEMMs and attention, device time
        double memoryMs = 0;  // memory-bound kernels, device time
        double commMs = 0;  // collectives on the wire
        double hostIdleMs = 0;  // what host issue adds where an operator is shorter than its launch
        double totalMs() const { return computeMs + memoryMs + commMs + hostIdleMs; }
        Breakdown& operator+=(const Breakdown& o);
        Breakdown scaled(double k) const;
    };

    OperatorCost() = default;
    explicit OperatorCost(Params p) : params_(p) { }

    // Share of peak a long GEMM of `math` reaches on `gpu` (before wave and K terms).
    double peakShare(const GpuType& gpu, Precision math) const;
    // Share of peak one GEMM (or batched GEMM) reaches on `gpu`.
    double gemmEfficiency(const GpuType& gpu, const Operator& op) const;
    // One operator; `tp` and `tpRate` time collectives over the TP group.
    Breakdown time(const GpuType& gpu, const Operator& op, int tp, const PathRate& tpRate) const;
    Breakdown time(const GpuType& gpu, std::span<const Operator> ops, int tp, const PathRate& tpRate) const;
    // The optimizer step (LayerOperators::optimizerStep) of a GPU that
    // updates ownedParams[i] parameters, into out[i], ms.
    void optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                         std::span<double> out) const;

    const Params& params() const { return params_; }

private:
    Params params_;
};

}  // namespace memx
