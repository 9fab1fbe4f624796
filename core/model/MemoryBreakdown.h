#pragma once

#include "model/MemoryKind.h"

namespace memx {

// Peak memory of one GPU of a pipeline stage, by term, in MiB.
// allocated = weights + gradients + optimizer + activations + framework
// buffers (what PyTorch's allocator hands out); reserved adds the allocator's
// slack; the total adds
// the CUDA context and communication buffers (reserveMiB) and is what must
// fit in the GPU's memory.
struct MemoryBreakdown {
    double weightsMiB = 0;
    double gradientsMiB = 0;
    double optimizerMiB = 0;
    double activationsMiB = 0;
    double frameworkMiB = 0;  // workspaces and buffers beyond the model's tensors (calibrated; 0 from the catalog)
    double allocatorMiB = 0;  // caching-allocator rounding and fragmentation (reserved - allocated)
    double reserveMiB = 0;  // CUDA context and communication buffers (device - reserved)
    double tensorsMiB() const { return weightsMiB + gradientsMiB + optimizerMiB + activationsMiB; }  // the model's
    double allocatedMiB() const { return tensorsMiB() + frameworkMiB; }
    double reservedMiB() const { return allocatedMiB() + allocatorMiB; }
    double totalMiB() const { return reservedMiB() + reserveMiB; }
    double overheadMiB() const { return allocatorMiB + reserveMiB; }  // total - allocated
    double runtimeMiB() const { return frameworkMiB + overheadMiB(); }  // everything but the model's tensors
    double ofKind(MemoryKind k) const
    {
        return k == MemoryKind::Allocated ? allocatedMiB() : k == MemoryKind::Reserved ? reservedMiB() : totalMiB();
    }
    bool operator==(const MemoryBreakdown&) const = default;
};

}  // namespace memx
