#include "model/Precision.h"

namespace memx {

const char* toString(Precision p)
{
    switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Tf32: return "tf32";
    case Precision::Fp16: return "fp16";
    case Precision::Bf16: return "bf16";
    case Precision::Fp8: return "fp8";
    }
    return "?";
}

bool parsePrecision(const std::string& s, Precision& out)
{
    for (int i = 0; i < kPrecisions; ++i)
        if (s == toString(Precision(i))) {
            out = Precision(i);
            return true;
        }
    return false;
}

const char* toString(Fp32Matmul m)
{
    switch (m) {
    case Fp32Matmul::Unstated: return "";
    case Fp32Matmul::Tf32: return "tf32";
    case Fp32Matmul::Ieee: return "ieee";
    }
    return "";
}

bool parseFp32Matmul(const std::string& s, Fp32Matmul& out)
{
    for (Fp32Matmul m : {Fp32Matmul::Unstated, Fp32Matmul::Tf32, Fp32Matmul::Ieee})
        if (s == toString(m)) {
            out = m;
            return true;
        }
    return false;
}

const char* precisionChoices() { return "fp32, tf32, fp16, bf16 or fp8"; }

PrecisionBytes bytesOf(Precision p)
{
    // Megatron-LM docs/source/api-guide/dist_optimizer.md: bytes per
    // parameter 16 (fp32 param, fp32 grad), 20 (fp16 param, fp16 grad),
    // 18 (bf16 param, fp32 grad); the distributed optimizer shards the
    // optimizer share (8, 16, 12) over DP.
    switch (p) {
    case Precision::Fp32:
    case Precision::Tf32: return {4, 4, 8, 4, 4, 4};
    case Precision::Fp16: return {2, 2, 16, 2, 2, 2};
    case Precision::Bf16: return {2, 4, 12, 2, 2, 2};
    // Transformer Engine keeps an fp8 copy of each GEMM weight across the
    // micro-batches of an iteration (is_first_microbatch caching), and saves
    // GEMM inputs in fp8 for the backward; everything else is bf16.
    case Precision::Fp8: return {3, 4, 12, 2, 1, 2};
    }
    return {2, 4, 12, 2, 2, 2};
}

Precision attentionMath(Precision p) { return p == Precision::Fp8 ? Precision::Bf16 : p; }

}  // namespace memx
