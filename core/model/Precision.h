#pragma once

#include <string>
#include <vector>

namespace memx {

// Numeric format a job trains in (docs/PRECISION.md). Megatron-LM trains in
// one precision on every rank:
//   fp32  fp32 weights, gradients and math on the CUDA cores (no --bf16/--fp16);
//   tf32  the same storage, GEMMs on TF32 tensor cores (Ampere and later);
//   fp16  fp16 weights and gradients, fp32 main copy, dynamic loss scaling (--fp16);
//   bf16  bf16 weights, fp32 main gradients and main copy (--bf16);
//   fp8   bf16 training with Transformer Engine's fp8 GEMMs (--bf16 --fp8-format hybrid).
enum class Precision { Fp32 = 0, Tf32 = 1, Fp16 = 2, Bf16 = 3, Fp8 = 4 };
constexpr int kPrecisions = 5;

const char* toString(Precision p);
bool parsePrecision(const std::string& s, Precision& out);
// "fp32, tf32, fp16, bf16 or fp8", for messages.
const char* precisionChoices();

// Bytes the precision costs, per parameter and per activation element.
struct PrecisionBytes {
    double weight;  // model weights as the GEMMs read them (fp8: + the cached fp8 copy)
    double gradient;  // the gradient buffer DP reduces
    double optimizer;  // fp32 main copy (if any), main gradient (fp16) and two Adam moments
    double activation;  // one stored activation element
    double gemmInput;  // one GEMM input element as saved for the backward (fp8: 1)
    double weightGather;  // one weight element the distributed optimizer all-gathers
};

PrecisionBytes bytesOf(Precision p);

// The math a GEMM of the precision runs in: fp8 GEMMs keep bf16 attention
// (Transformer Engine runs the attention core in bf16 by default).
Precision attentionMath(Precision p);

// The precision that stores fp32 (fp32 and tf32) or 16-bit activations.
inline bool storesFp32(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32; }

// What a run's fp32 training did with its matmuls, where a run says so
// (docs/PRECISION.md, "fp32 or TF32: what a run used"). A Megatron log or a
// measurement row says only "fp32" (no --bf16/--fp16); whether cuBLAS ran
// the GEMMs on TF32 tensor cores depends on where the job ran:
//   Unstated  not said: read as kFp32MatmulDefault says;
//   Tf32      TF32 tensor cores (NVIDIA's PyTorch containers set
//             TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 in the image; PyTorch 1.7-1.11
//             allowed TF32 by default);
//   Ieee      IEEE fp32 on the CUDA cores (stock PyTorch since 1.12:
//             torch.backends.cuda.matmul.allow_tf32 is False).
enum class Fp32Matmul { Unstated = 0, Tf32 = 1, Ieee = 2 };
const char* toString(Fp32Matmul m);  // "", "tf32", "ieee"
bool parseFp32Matmul(const std::string& s, Fp32Matmul& out);  // "" is Unstated
// An fp32 run that does not say is read as run in NVIDIA's PyTorch container
// (the launcher Megatron-LM's README recommends): TF32 on GPUs that have it.
constexpr Fp32Matmul kFp32MatmulDefault = Fp32Matmul::Tf32;
// The precision a run's GEMMs were timed in: fp32 becomes tf32 where the
// matmul mode (or, unstated, the default) is TF32 and `hasTf32` (every GPU of
// the run has TF32); everything else is unchanged.
inline Precision runPrecision(Precision stated, Fp32Matmul m, bool hasTf32)
{
    const Fp32Matmul mode = m == Fp32Matmul::Unstated ? kFp32MatmulDefault : m;
    return stated == Precision::Fp32 && mode == Fp32Matmul::Tf32 && hasTf32 ? Precision::Tf32 : stated;
}

// The job's precision when the user asks for "auto": bf16 where every type
// has it, else fp16 (V100, T4, Turing), else fp32. `has(p)` says whether
// every GPU type of the job has precision p.
template <class Has> Precision autoPrecision(Has has)
{
    for (Precision p : {Precision::Bf16, Precision::Fp16, Precision::Tf32, Precision::Fp32})
        if (has(p))
            return p;
    return Precision::Fp32;
}

}  // namespace memx
