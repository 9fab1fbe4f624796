#pragma once

#include "model/Dropout.h"
#include "model/Precision.h"
#include "model/Recompute.h"

namespace memx {

struct ModelSpec;

// Closed-form counts for a LLaMA-style block (or GPT's, with a GeLU MLP). Every function states its unit.
// Symbols: b micro-batch, s sequence, h hidden, a heads, d head dim,
// g query groups, f FFN size, V vocab, t tensor-parallel degree.
struct TransformerMath {
    // Parameters of one transformer layer (count, not bytes):
    // attention Wq h*a*d + Wk,Wv 2*h*g*d + Wo a*d*h; SwiGLU MLP 3*h*f (GeLU 2*h*f);
    // two RMSNorm weights 2*h.
    static double layerParams(const ModelSpec& m);
    static double embeddingParams(const ModelSpec& m);  // V*h
    static double positionEmbeddingParams(const ModelSpec& m);  // s*h for learned absolute positions, else 0
    // What a first-stage GPU holds of the embeddings: V*h / tp + the whole position table.
    static double embeddingParamsOnRank(const ModelSpec& m, int tp);
    static double layerReplicatedParams(const ModelSpec& m);  // of layerParams, whole on every TP rank
    static double finalNormParams(const ModelSpec& m);  // h (RMSNorm) or 2h (LayerNorm)
    static double outputParams(const ModelSpec& m);  // V*h (+ final norm h); 0 if tied
    static double totalParams(const ModelSpec& m);
    // Parameters one GPU of a pipeline stage holds: its layers, plus the
    // embedding on the first stage and the output layer on the last, / TP.
    // With tied embeddings a last stage that is not also the first holds a
    // copy of the embedding (Megatron's shared output weight).
    static double stageParams(const ModelSpec& m, int layers, int tp, bool hasEmbedding, bool hasOutput);

    // Forward FLOPs of one layer for one micro-batch (whole layer, not per GPU):
    // 2 FLOPs per multiply-add over the GEMMs (2*b*s*matmul params) plus the
    // attention core QK^T and AV, 4*b*s^2*a*d; causal flash attention skips the
    // masked half of the blocks (factor 1/2).
    static double layerForwardFlops(const ModelSpec& m, int b, int s, bool flashAttention);
    static double attentionCoreForwardFlops(const ModelSpec& m, int b, int s, bool flashAttention);
    // Training FLOPs of one layer: forward + backward (2x forward) + recompute
    // (full: one more forward; selective: the attention core forward again).
    static double layerTrainingFlops(const ModelSpec& m, int b, int s, bool flashAttention, Recompute r);
    // Output layer (logits) forward+backward: 3 * 2*b*s*h*V.
    static double outputTrainingFlops(const ModelSpec& m, int b, int s);

    // Activation bytes one layer keeps for one micro-batch on one GPU, bf16,
    // after Korthikanti et al. 2022 (Eq. 4: sequence parallelism with TP > 1
    // divides everything by t) adapted to a LLaMA block (dropout below):
    //   norm inputs 2*2sbh, QKV input 2sbh, Q 2sbh, K and V 2*2*s*b*g*d,
    //   attention output 2sbh, MLP input 2sbh, SwiGLU input 4sbf, FC2 input 2sbf
    //   = 12sbh + 4sbgd + 6sbf (a GeLU MLP keeps GeLU input 2sbf and FC2 input
    //   2sbf: 12sbh + 4sbgd + 4sbf, Korthikanti's 34sbh less the two dropout
    //   masks for f = 4h, g*d = h); without flash attention the softmax output
    //   2*a*s^2*b is kept too, and with attention dropout its 1-byte mask and
    //   the dropped-out probabilities, 3*a*s^2*b more (Korthikanti's 5as^2b
    //   in all). Hidden dropout keeps two 1-byte masks, 2sbh. Selective drops
    //   the s^2 terms; full keeps only the layer input 2sbh (Korthikanti
    //   Table 2).
    //   Without sequence parallelism (Korthikanti Eq. 2) the norm inputs, the QKV
    //   input and the MLP input (8sbh) and the hidden-dropout masks stay whole
    //   on every TP rank (Korthikanti's 10sbh with both masks), and full
    //   recomputation keeps the whole 2sbh input.
    //   Precision (docs/PRECISION.md): fp32/tf32 store every element in 4
    //   bytes; fp8 keeps the four GEMM inputs (QKV, projection, FC1, FC2) in
    //   1 byte, saving 3sbh + sbf.
    static double layerActivationBytes(const ModelSpec& m, int b, int s, int t, bool flashAttention, Recompute r,
                                       bool sequenceParallel = true, Precision p = Precision::Bf16, Dropout d = {});
    // Logits kept for the loss on the last stage: the output (2sbV/t in bf16,
    // 4sbV/t in fp32) and the fp32 copy of the fused cross-entropy 4sbV/t.
    static double logitsBytes(const ModelSpec& m, int b, int s, int t, Precision p = Precision::Bf16);
    // Bytes sent between pipeline stages per micro-batch by one GPU: 2sbh/t
    // (Megatron's scatter-gather of the boundary activation over TP ranks).
    static double boundaryActivationBytes(const ModelSpec& m, int b, int s, int t, Precision p = Precision::Bf16);

    // Model-state bytes per parameter with Adam (bytesOf(Precision)): bf16
    // weight 2, fp32 main gradient 4, fp32 master weight + two moments 12;
    // the distributed optimizer shards the optimizer share over DP (Megatron
    // docs: 18 or 6+12/d in bf16, 20 or 4+16/d in fp16, 16 or 8+8/d in fp32).
    static double weightBytesPerParam(Precision p = Precision::Bf16) { return bytesOf(p).weight; }
    static double gradBytesPerParam(Precision p = Precision::Bf16) { return bytesOf(p).gradient; }
    static double optimizerBytesPerParam(int dp, bool distributedOptimizer, Precision p = Precision::Bf16)
    {
        const double o = bytesOf(p).optimizer;
        return distributedOptimizer ? o / dp : o;
    }
    // Transformer Engine's placeholder weight gradients: with Megatron's
    // gradient-accumulation fusion the wgrad GEMM accumulates into the fp32
    // main gradient, and each linear layer's backward hands autograd a dummy
    // tensor of the weight's shape and dtype instead. TE caches one per
    // distinct (shape, dtype) for the life of the process (module/base.py,
    // get_dummy_wgrad, TE 2.x), so a GPU keeps one of each of its layers'
    // four weight shapes (QKV, attention projection, FC1, FC2; per TP rank)
    // at the parameters' dtype (bf16 under fp8 too), however many layers it
    // holds.
    static double wgradBufferBytes(const ModelSpec& m, int t, Precision p = Precision::Bf16);
};

}  // namespace memx
