#pragma once

namespace memx {

// Peak memory of one GPU of a pipeline stage, by term, in MiB.
struct MemoryBreakdown {
    double weightsMiB = 0;
    double gradientsMiB = 0;
    double optimizerMiB = 0;
    double activationsMiB = 0;
    double reserveMiB = 0;
    double totalMiB() const { return weightsMiB + gradientsMiB + optimizerMiB + activationsMiB + reserveMiB; }
};

}  // namespace memx
