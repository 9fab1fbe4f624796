#pragma once

#include "model/Dropout.h"
#include "model/Precision.h"
#include "model/Recompute.h"

#include <vector>

namespace memx {

struct ModelSpec;

// One kernel (or collective) of a training step as one GPU runs it.
// Counts are per GPU: GEMM shapes are already divided by the tensor-parallel
// degree, and byte counts are what the kernel reads plus writes in HBM.
struct Operator {
    enum class Kind {
        Gemm,  // C[m x n] = A[m x k] B[k x n]; flops = 2mnk
        Attention,  // fused attention core (FlashAttention) or its unfused GEMMs
        MemoryBound,  // norms, activations, residual adds, rotary, softmax, loss
        Collective,  // tensor-parallel all-gather / reduce-scatter / all-reduce
    };
    Kind kind = Kind::MemoryBound;
    const char* name = "";
    double m = 0, n = 0, k = 0;  // GEMM shape (Gemm only), per matrix product
    double batch = 1;  // independent products of that shape (batched GEMM)
    double flops = 0;  // floating-point operations on this GPU
    double bytes = 0;  // HBM bytes read + written by this GPU
    double backwardBytes = 0;  // MemoryBound: its backward's bytes where they are not twice `bytes`
    double commBytes = 0;  // Collective: bytes of the whole (un-sharded) tensor
    double allReduceEquivalent = 0;  // Collective: 1 for an all-reduce, 0.5 for all-gather or reduce-scatter
    Precision math = Precision::Bf16;  // Gemm, Attention: the precision whose peak times the FLOPs
};

// The kernels of one transformer layer (norm, GQA attention with a rotary
// kernel on rotary models, SwiGLU or GeLU MLP; model/LayerStyle.h) for one micro-batch of b sequences of s
// tokens on one GPU of a TP group of t, in the job's precision (bf16: 2 bytes
// per element; fp32/tf32: 4; fp8: GEMM inputs in 1 byte, GEMMs at the fp8
// peak, attention and the output layer in bf16).
// Backward of a GEMM is two GEMMs of the same FLOPs (data and weight
// gradient); of a memory-bound kernel, twice its traffic (it reads the saved
// input and the incoming gradient and writes the outgoing one) unless the
// kernel states its own (Operator::backwardBytes: the softmax and dropout
// over the unfused scores); of the
// FlashAttention core, 2.5x its forward FLOPs (Dao 2023, FlashAttention-2,
// sec. 3: the backward recomputes the scores). With sequence parallelism the
// norms and residuals see s/t tokens, and the two all-reduces of the forward
// become two all-gathers and two reduce-scatters (Korthikanti et al. 2022).
// Dropout (model/Dropout.h) adds a kernel over the unfused attention scores
// and a mask write to each bias-dropout-add. Unfused attention in fp32/tf32
// scales, masks and normalises the scores in three kernels, not Megatron's
// one fused fp16/bf16 kernel.
struct LayerOperators {
    static std::vector<Operator> forward(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                         bool flashAttention, Precision p = Precision::Bf16, Dropout d = {});
    static std::vector<Operator> backward(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                          bool flashAttention, Precision p = Precision::Bf16, Dropout d = {});
    // What recomputation adds before the backward: full repeats the forward,
    // selective repeats the attention core (and, unfused, its softmax).
    static std::vector<Operator> recompute(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                           bool flashAttention, Recompute r, Precision p = Precision::Bf16,
                                           Dropout d = {});
    // Output layer and loss (last stage), forward + backward: the logits GEMM
    // and its two gradients, fused cross-entropy over fp32 logits.
    static std::vector<Operator> outputLayer(const ModelSpec& m, int b, int s, int t, Precision p = Precision::Bf16);
    // Input embedding (first stage), forward + backward: a gather of b*s rows
    // and the scatter-add of their gradients into the fp32 main gradient.
    static std::vector<Operator> embedding(const ModelSpec& m, int b, int s, int t, Precision p = Precision::Bf16);
    // The optimizer step over the `ownedParams` a GPU updates (its stage's
    // parameters, or their 1/DP share with the distributed optimizer), as
    // Megatron runs it: the L2 norm of the fp32 main gradients for gradient
    // clipping (--clip-grad 1.0 is its default), fused Adam (multi-tensor
    // apply: reads gradient, main weight and both moments, writes the last
    // three: 28 bytes a parameter) and, where the model's weights are 16-bit,
    // the copy of the fp32 main weights into them (read 4, write 2). fp16
    // first copies the 16-bit gradients into fp32 and unscales them.
    static std::vector<Operator> optimizerStep(double ownedParams, Precision p = Precision::Bf16);
};

}  // namespace memx
