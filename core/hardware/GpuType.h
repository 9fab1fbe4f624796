#pragma once

#include "model/Precision.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace memx {

// Per-GPU-type calibration from a cluster file. The same layers cost different
// time and memory on different vendors' software stacks (MemX, section 1 and
// Table 1), so the analytic model applies these factors per type.
struct GpuCalibration {
    double efficiencyMultiplier = 1.0;  // scales default_efficiency (dimensionless)
    double bandwidthMultiplier = 1.0;  // scales the achieved share of memory bandwidth (dimensionless)
    double memoryMultiplier = 1.0;  // scales weights, gradients, optimizer state and activations
    // Workspaces and buffers the framework allocates beyond the model's
    // tensors (cuBLAS and Transformer Engine workspaces, communication
    // buckets, loss temporaries), MiB per GPU; 0 unless calibrated.
    double frameworkMiB = 0;
    double runtimeReserveGiB = -1.0;  // overrides the catalog's reserve when >= 0 (GiB)
};

// One kind of accelerator. Units are in the member names.
struct GpuType {
    std::string name;
    std::string vendor;
    double peakTflopsBf16 = 0;  // dense bf16/fp16 tensor throughput, TFLOP/s
    // Dense peak per precision from the catalog's peak_tflops (TFLOP/s), by
    // Precision; 0 where the catalog gives none (bf16 and fp16 then fall back
    // to peakTflopsBf16, the others are unknown).
    std::array<double, kPrecisions> peakTflopsBy{};
    double memoryGiB = 0;  // usable device memory, GiB
    double memoryBandwidthGBps = 0;  // HBM/GDDR bandwidth, GB/s
    double defaultEfficiency = 0.5;  // fraction of peak sustained by large transformer GEMMs
    int smCount = 0;  // streaming multiprocessors / compute units (0: unknown)
    // Host time to issue one operator (framework dispatch + kernel launch), us:
    // a kernel shorter than this leaves the GPU idle (the CPU-bound regime).
    double launchOverheadUs = 20;
    // Host and synchronisation time of one collective or pipeline message, us.
    double commOverheadUs = 50;
    // Host time of one schedule step, us: Megatron's schedules call
    // forward_step and backward_step once per micro-batch and model chunk
    // (v times per micro-batch when interleaved), and each call runs the
    // framework's Python around the layers (input and loss handling, the
    // model wrappers, the autograd call) whatever the chunk holds.
    double stepOverheadUs = 50;
    // Per-iteration framework overhead outside the micro-batches (optimizer
    // launch, gradient zeroing, loss reduction, logging, timers), ms.
    double iterationOverheadMs = 5;
    // What nvidia-smi shows beyond PyTorch's reserved memory: the CUDA context
    // and the communication library's buffers, GiB.
    double runtimeReserveGiB = 1.5;
    // The caching allocator's reserved memory beyond the allocated peak, as a
    // fraction of it (rounding and fragmentation; reserved = allocated x (1 + this)).
    double allocatorSlack = 0.08;
    std::string source;  // where the numbers come from
    // What one GPU of this type costs per hour, in the user's currency
    // (catalog or cluster "price_per_gpu_hour"); < 0: unknown.
    double pricePerHour = -1;
    // Training precisions the hardware has ("fp32", "tf32", "fp16", "bf16",
    // "fp8"): V100 and T4 have no bf16, so they train in fp16 with loss scaling.
    std::vector<std::string> precisions{"bf16", "fp16", "fp32"};
    // The runtime's device-selection variable (CUDA_VISIBLE_DEVICES,
    // ASCEND_RT_VISIBLE_DEVICES, ...), from the catalog's vendor table;
    // visibleDevicesVerified is false where the catalog only guesses it.
    std::string visibleDevicesEnv = "CUDA_VISIBLE_DEVICES";
    bool visibleDevicesVerified = false;
    GpuCalibration calibration;

    bool hasPrecision(const std::string& p) const
    {
        return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
    }
    // Megatron runs its linear layers through Transformer Engine on this type
    // (docs/ANALYTIC_ACCURACY.md, "Transformer Engine's placeholder weight
    // gradients"): NVIDIA parts with bf16 tensor cores, Ampere and newer.
    // Assumed: Volta and Turing runs use Megatron's local layers, and other
    // vendors' ports are not known to use TE.
    bool runsTransformerEngine() const { return vendor == "NVIDIA" && hasPrecision(std::string("bf16")); }
    // A fused attention kernel that keeps no s x s scores runs on this type.
    // NVIDIA: Ampere and newer only (FlashAttention-2 supports Ampere, Ada
    // and Hopper, per the flash-attn README; Transformer Engine's cuDNN fused
    // attention needs sm80+), told apart as above by bf16; Volta and Turing
    // run the unfused core. Other vendors' fused attention is assumed.
    bool hasFlashAttention() const { return vendor != "NVIDIA" || hasPrecision(std::string("bf16")); }
    // Listed and with a known peak: a job can train in it on this type.
    bool hasPrecision(Precision p) const { return hasPrecision(toString(p)) && peakTflops(p) > 0; }
    // Dense peak of the precision's GEMMs, TFLOP/s (0: unknown).
    double peakTflops(Precision p) const
    {
        const double v = peakTflopsBy[static_cast<int>(p)];
        if (v > 0)
            return v;
        return p == Precision::Bf16 || p == Precision::Fp16 ? peakTflopsBf16 : 0.0;
    }
    // The peak a GEMM in p is timed at: peakTflops(p), or the 16-bit peak
    // where p's is unknown (jobPrecision refuses such a precision for a
    // search; a measured run or a simulation still gets a finite time).
    double gemmPeakTflops(Precision p) const
    {
        const double v = peakTflops(p);
        return v > 0 ? v : peakTflopsBf16;
    }

    double reserveGiB() const
    {
        return calibration.runtimeReserveGiB >= 0 ? calibration.runtimeReserveGiB : runtimeReserveGiB;
    }
    double memoryMiB() const { return memoryGiB * 1024.0; }
};

}  // namespace memx
