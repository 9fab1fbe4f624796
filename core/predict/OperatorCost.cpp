#include "predict/OperatorCost.h"

#include "hardware/GpuType.h"

#include <algorithm>
#include <cmath>

namespace memx {

OperatorCost::Breakdown& OperatorCost::Breakdown::operator+=(const Breakdown& o)
{
    computeMs += o.computeMs;
    memoryMs += o.memoryMs;
    commMs += o.commMs;
    hostIdleMs += o.hostIdleMs;
    return *this;
}

OperatorCost::Breakdown OperatorCost::Breakdown::scaled(double k) const
{
    return {computeMs * k, memoryMs * k, commMs * k, hostIdleMs * k};
}

double OperatorCost::peakShare(const GpuType& gpu, Precision math) const
{
    // The type's efficiency is its tensor cores'; fp32 GEMMs run on the
    // CUDA cores, which SGEMM keeps far busier (params_.simtEfficiency).
    const double base = math == Precision::Fp32 ? params_.simtEfficiency : gpu.defaultEfficiency;
    return std::min(kMaxPeakShare, base * gpu.calibration.efficiencyMultiplier);
}

double OperatorCost::gemmEfficiency(const GpuType& gpu, const Operator& op) const
{
    const double peakShare = this->peakShare(gpu, op.math);
    if (gpu.smCount <= 0)
        return peakShare * op.flops / (op.flops + params_.halfEfficiencyGemmFlops);
    const double tiles = std::ceil(op.m / params_.tileM) * std::ceil(op.n / params_.tileN) * op.batch;
    const double waves = std::ceil(tiles / gpu.smCount);
    const double waveShare = tiles / (waves * gpu.smCount);
    const double kShare = op.k / (op.k + params_.halfEfficiencyK);
    return peakShare * waveShare * kShare;
}

OperatorCost::Breakdown OperatorCost::time(const GpuType& gpu, const Operator& op, int tp, const PathRate& tpRate) const
{
    Breakdown b;
    const double bytesPerMs
        = gpu.memoryBandwidthGBps * 1e6 * params_.bandwidthFraction * gpu.calibration.bandwidthMultiplier;
    const double memMs = op.bytes / bytesPerMs;
    double device = 0, host = gpu.launchOverheadUs * 1e-3;
    switch (op.kind) {
    case Operator::Kind::Gemm:
    case Operator::Kind::Attention: {
        const double eff = op.kind == Operator::Kind::Gemm ? gemmEfficiency(gpu, op) : peakShare(gpu, op.math);
        const double peak = gpu.gemmPeakTflops(op.math);
        const double flopMs = op.flops / (peak * 1e9 * eff);
        device = std::max(flopMs, memMs);
        b.computeMs = device;
        break;
    }
    case Operator::Kind::MemoryBound:
        device = memMs;
        b.memoryMs = device;
        break;
    case Operator::Kind::Collective:
        if (tp <= 1 || !tpRate.connected())
            return b;  // no collective is launched
        device = op.allReduceEquivalent * Topology::allReduceMs(op.commBytes, tp, tpRate);
        host = gpu.commOverheadUs * 1e-3;
        b.commMs = device;
        break;
    }
    b.hostIdleMs = std::max(0.0, host - device);
    return b;
}

OperatorCost::Breakdown OperatorCost::time(const GpuType& gpu, std::span<const Operator> ops, int tp,
                                           const PathRate& tpRate) const
{
    Breakdown sum;
    for (const Operator& op : ops)
        sum += time(gpu, op, tp, tpRate);
    return sum;
}

void OperatorCost::optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                                   std::span<double> out) const
{
    for (std::size_t i = 0; i < ownedParams.size() && i < out.size(); ++i)
        out[i] = time(gpu, LayerOperators::optimizerStep(ownedParams[i], p), 1, PathRate{}).totalMs();
}

}  // namespace memx
