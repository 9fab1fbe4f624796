#include "model/TransformerMath.h"

#include "model/ModelSpec.h"

#include <algorithm>
#include <array>
#include <utility>

namespace memx {

double TransformerMath::layerParams(const ModelSpec& m)
{
    double h = m.hidden, ad = double(m.heads) * m.headDim, gd = double(m.queryGroups) * m.headDim;
    double attention = h * ad + 2.0 * h * gd + ad * h;
    double mlp = mlpMatrices(m.mlp) * h * m.ffnHidden;
    // Two norms of h scales each, LayerNorm's with as many biases; linear
    // biases on QKV, the attention projection, FC1 (2f gated) and FC2.
    const double norms = (m.style.norm == Normalization::LayerNorm ? 4.0 : 2.0) * h;
    const double fc1 = m.mlp == MlpKind::Gelu ? double(m.ffnHidden) : 2.0 * m.ffnHidden;
    const double biases = m.style.linearBias ? (ad + 2.0 * gd) + h + fc1 + h : 0.0;
    return attention + mlp + norms + biases;
}

double TransformerMath::layerReplicatedParams(const ModelSpec& m)
{
    // The two norms, and the biases of the row-parallel layers (attention
    // projection, FC2), which Megatron adds after the reduction.
    const double h = m.hidden;
    return (m.style.norm == Normalization::LayerNorm ? 4.0 : 2.0) * h + (m.style.linearBias ? 2.0 * h : 0.0);
}

double TransformerMath::finalNormParams(const ModelSpec& m)
{
    return m.style.norm == Normalization::LayerNorm ? 2.0 * m.hidden : m.hidden;
}

double TransformerMath::embeddingParamsOnRank(const ModelSpec& m, int tp)
{
    return embeddingParams(m) / tp + positionEmbeddingParams(m);
}

double TransformerMath::positionEmbeddingParams(const ModelSpec& m)
{
    return m.style.position == PositionEmbedding::LearnedAbsolute ? double(m.seqLen) * m.hidden : 0.0;
}

double TransformerMath::wgradBufferBytes(const ModelSpec& m, int t, Precision p)
{
    const double h = m.hidden, ad = double(m.heads) * m.headDim, gd = double(m.queryGroups) * m.headDim;
    const double f = m.ffnHidden, tp = std::max(1, t);
    const double fc1 = m.mlp == MlpKind::Gelu ? f : 2.0 * f;
    const std::array<std::pair<double, double>, 4> shapes{
        {{(ad + 2.0 * gd) / tp, h}, {h, ad / tp}, {fc1 / tp, h}, {h, f / tp}}};
    double elements = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const bool seen = std::find(shapes.begin(), shapes.begin() + i, shapes[i]) != shapes.begin() + i;
        if (!seen)
            elements += shapes[i].first * shapes[i].second;
    }
    return elements * bytesOf(p).weightGather;  // the parameters' own dtype (fp8 training keeps bf16 ones)
}

double TransformerMath::embeddingParams(const ModelSpec& m) { return double(m.vocab) * m.hidden; }

double TransformerMath::outputParams(const ModelSpec& m)
{
    return (m.tiedEmbeddings ? 0.0 : double(m.vocab) * m.hidden) + finalNormParams(m);
}

double TransformerMath::totalParams(const ModelSpec& m)
{
    return m.numLayers * layerParams(m) + embeddingParams(m) + positionEmbeddingParams(m) + outputParams(m);
}

double TransformerMath::stageParams(const ModelSpec& m, int layers, int tp, bool hasEmbedding, bool hasOutput)
{
    // Split over TP: the weight matrices, the column-parallel biases and the
    // word embedding. Whole on every TP rank: norms, row-parallel biases and
    // Megatron's learned position table (a plain embedding).
    double sharded = layers * (layerParams(m) - layerReplicatedParams(m));
    double whole = layers * layerReplicatedParams(m);
    if (hasEmbedding) {
        sharded += embeddingParams(m);
        whole += positionEmbeddingParams(m);
    }
    if (hasOutput) {
        sharded += outputParams(m) - finalNormParams(m);
        whole += finalNormParams(m);
    }
    // Tied embeddings over a pipeline: Megatron's last stage keeps its own
    // copy of the word embeddings for the output layer and all-reduces its
    // gradient with the first stage's (share_embeddings_and_output_weights).
    if (hasOutput && !hasEmbedding && m.tiedEmbeddings)
        sharded += embeddingParams(m);
    return sharded / tp + whole;
}

double TransformerMath::attentionCoreForwardFlops(const ModelSpec& m, int b, int s, bool flashAttention)
{
    double full = 4.0 * b * double(s) * s * m.heads * m.headDim;
    return flashAttention ? 0.5 * full : full;
}

double TransformerMath::layerForwardFlops(const ModelSpec& m, int b, int s, bool flashAttention)
{
    double matmulParams = layerParams(m) - 2.0 * m.hidden;
    return 2.0 * b * double(s) * matmulParams + attentionCoreForwardFlops(m, b, s, flashAttention);
}

double TransformerMath::layerTrainingFlops(const ModelSpec& m, int b, int s, bool flashAttention, Recompute r)
{
    double fwd = layerForwardFlops(m, b, s, flashAttention);
    double extra = 0;
    if (r == Recompute::Full)
        extra = fwd;
    else if (r == Recompute::Selective)
        extra = attentionCoreForwardFlops(m, b, s, flashAttention);
    return 3.0 * fwd + extra;
}

double TransformerMath::outputTrainingFlops(const ModelSpec& m, int b, int s)
{
    return 3.0 * 2.0 * b * double(s) * m.hidden * m.vocab;
}

double TransformerMath::layerActivationBytes(const ModelSpec& m, int b, int s, int t, bool flashAttention, Recompute r,
                                             bool sequenceParallel, Precision p, Dropout d)
{
    const double sb = double(s) * b;
    const bool sp = sequenceParallel || t == 1;
    const PrecisionBytes pb = bytesOf(p);
    const double e = pb.activation / 2.0;  // the formula counts 2-byte elements
    if (r == Recompute::Full)
        return e * 2.0 * sb * m.hidden / (sp ? t : 1);
    // Saved GEMM inputs (QKV input, projection input, FC1 input: sbh each;
    // FC2 input sbf) at their own width instead of the activation's.
    const double gemmSaving = 2.0 * e - pb.gemmInput;  // bytes per element below the activation width
    // The MLP keeps its FC1 output (SwiGLU: gate and up, 2f; GeLU: f) and the
    // FC2 input f.
    const double mlpKept = m.mlp == MlpKind::Gelu ? 4.0 : 6.0;
    double perToken = e * (12.0 * m.hidden + 4.0 * double(m.queryGroups) * m.headDim + mlpKept * m.ffnHidden)
        - gemmSaving * (3.0 * m.hidden + m.ffnHidden);
    // Hidden dropout: two 1-byte masks of sbh, whatever the precision.
    const double masks = d.hidden ? 2.0 * m.hidden : 0.0;
    double bytes = sb * (perToken + masks);
    if (!flashAttention && r == Recompute::None) {
        const double scores = double(m.heads) * s * s * b;
        bytes += e * 2.0 * scores;  // softmax output
        if (d.attention)
            bytes += (1.0 + e * 2.0) * scores;  // dropout mask and the dropped-out probabilities
    }
    if (sp)
        return bytes / t;
    // Norm inputs 4sbh, QKV input and MLP input (GEMM inputs) and the
    // dropout masks stay whole.
    const double replicated = sb * (m.hidden * (4.0 * e + 2.0 * (2.0 * e - gemmSaving)) + masks);
    return replicated + (bytes - replicated) / t;
}

double TransformerMath::logitsBytes(const ModelSpec& m, int b, int s, int t, Precision p)
{
    return (bytesOf(p).activation + 4.0) * double(s) * b * m.vocab / t;
}

double TransformerMath::boundaryActivationBytes(const ModelSpec& m, int b, int s, int t, Precision p)
{
    return bytesOf(p).activation * double(s) * b * m.hidden / t;
}

}  // namespace memx
