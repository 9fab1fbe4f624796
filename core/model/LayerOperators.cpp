#include "model/LayerOperators.h"

#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

namespace memx {

namespace {

constexpr double kFp32 = 4.0;

// A GEMM in `math`: inputs at the precision's GEMM-input width (fp8: 1 byte),
// output at its activation width.
Operator gemm(Precision math, const char* name, double m, double n, double k, double batch = 1)
{
    const PrecisionBytes pb = bytesOf(math);
    Operator op;
    op.kind = Operator::Kind::Gemm;
    op.math = math;
    op.name = name;
    op.m = m;
    op.n = n;
    op.k = k;
    op.batch = batch;
    op.flops = 2.0 * m * n * k * batch;
    op.bytes = (pb.gemmInput * (m * k + k * n) + pb.activation * m * n) * batch;
    return op;
}

Operator memoryBound(const char* name, double bytes, double backwardBytes = 0)
{
    Operator op;
    op.kind = Operator::Kind::MemoryBound;
    op.name = name;
    op.bytes = bytes;
    op.backwardBytes = backwardBytes;
    return op;
}

Operator collective(const char* name, double commBytes, double allReduceEquivalent)
{
    Operator op;
    op.kind = Operator::Kind::Collective;
    op.name = name;
    op.commBytes = commBytes;
    op.allReduceEquivalent = allReduceEquivalent;
    return op;
}

// Per-GPU sizes of one layer.
struct Shape {
    double T;  // tokens of the micro-batch, b*s
    double Tl;  // tokens a norm or residual sees: T/t with sequence parallelism
    double h, ad, gd, f, s, b, a, t;
    bool sp;
    bool gated;  // SwiGLU: FC1 is 2f wide
    Precision p;  // the job's precision
    double e;  // bytes of one activation element
};

Shape shapeOf(const ModelSpec& m, int b, int s, int t, bool sequenceParallel, Precision p)
{
    Shape x{};
    x.p = p;
    x.e = bytesOf(p).activation;
    x.T = double(b) * s;
    x.sp = sequenceParallel && t > 1;
    x.Tl = x.sp ? x.T / t : x.T;
    x.h = m.hidden;
    x.ad = double(m.heads) * m.headDim;
    x.gd = double(m.queryGroups) * m.headDim;
    x.f = m.ffnHidden;
    x.gated = m.mlp != MlpKind::Gelu;
    x.s = s;
    x.b = b;
    x.a = m.heads;
    x.t = t;
    return x;
}

// The attention core forward: fused (one kernel reading Q, K, V and writing
// O) or unfused (QK^T, softmax over the s x s scores, AV).
// FlashAttention draws its dropout mask inside the kernel (its extra RNG
// work is not counted); unfused attention runs a dropout kernel over the
// probabilities that reads them and writes them and a 1-byte mask.
void attentionCore(std::vector<Operator>& ops, const ModelSpec& m, const Shape& x, bool flash, Dropout d)
{
    if (flash) {
        Operator op;
        op.kind = Operator::Kind::Attention;
        op.math = attentionMath(x.p);
        op.name = "flash attention";
        op.flops = TransformerMath::attentionCoreForwardFlops(m, int(x.b), int(x.s), true) / x.t;
        op.bytes = x.e * x.T * (2.0 * x.ad + 2.0 * x.gd) / x.t;
        ops.push_back(op);
        return;
    }
    const double heads = x.b * x.a / x.t;
    ops.push_back(gemm(attentionMath(x.p), "attention scores QK^T", x.s, x.s, m.headDim, heads));
    const double scores = heads * x.s * x.s;
    // Megatron's fused scale-mask-softmax reads and writes the scores once,
    // and its backward reads the probabilities and their gradient and writes
    // the scores' gradient. The kernel takes fp16/bf16 scores only
    // (FusedScaleMaskSoftmax.forward: input_in_float16): in fp32 PyTorch
    // first scales them by the query-key layer-scaling coefficient and
    // masks them (masked_fill_), each a read and a write, forward and back.
    if (storesFp32(x.p)) {
        ops.push_back(memoryBound("attention scale", 2.0 * x.e * scores, 2.0 * x.e * scores));
        ops.push_back(memoryBound("attention mask", 2.0 * x.e * scores, 2.0 * x.e * scores));
    }
    ops.push_back(memoryBound("softmax", 2.0 * x.e * scores, 3.0 * x.e * scores));
    if (d.attention)
        // backward: reads the gradient and the mask, writes the gradient
        ops.push_back(memoryBound("attention dropout", (2.0 * x.e + 1.0) * scores, (2.0 * x.e + 1.0) * scores));
    ops.push_back(gemm(attentionMath(x.p), "attention values AV", x.s, m.headDim, x.s, heads));
}

void tpCollective(std::vector<Operator>& ops, const char* name, const Shape& x, int t)
{
    if (t <= 1)
        return;
    ops.push_back(collective(name, x.e * x.T * x.h, x.sp ? 0.5 : 1.0));
}

}  // namespace

std::vector<Operator> LayerOperators::forward(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                              bool flashAttention, Precision p, Dropout d)
{
    const Shape x = shapeOf(m, b, s, t, sequenceParallel, p);
    // Megatron's bias-dropout-add: with hidden dropout it also writes a 1-byte mask.
    const double residualBytes = (3.0 * x.e + (d.hidden ? 1.0 : 0.0)) * x.Tl * x.h;
    std::vector<Operator> ops;
    ops.reserve(16);
    ops.push_back(memoryBound("input norm", 2.0 * x.e * x.Tl * x.h));
    if (x.sp)
        tpCollective(ops, "all-gather before QKV", x, t);
    ops.push_back(gemm(x.p, "QKV projection", x.T, (x.ad + 2.0 * x.gd) / t, x.h));
    if (m.style.position == PositionEmbedding::Rope)  // learned positions are added once, at the embedding
        ops.push_back(memoryBound("rotary embedding", 2.0 * x.e * x.T * (x.ad + x.gd) / t));
    attentionCore(ops, m, x, flashAttention, d);
    ops.push_back(gemm(x.p, "attention output projection", x.T, x.h, x.ad / t));
    tpCollective(ops, x.sp ? "reduce-scatter after attention" : "all-reduce after attention", x, t);
    ops.push_back(memoryBound("residual add", residualBytes));
    ops.push_back(memoryBound("pre-MLP norm", 2.0 * x.e * x.Tl * x.h));
    if (x.sp)
        tpCollective(ops, "all-gather before MLP", x, t);
    if (x.gated) {
        ops.push_back(gemm(x.p, "MLP up and gate (FC1)", x.T, 2.0 * x.f / t, x.h));
        ops.push_back(memoryBound("SwiGLU", 3.0 * x.e * x.T * x.f / t));  // reads 2f, writes f
    } else {
        ops.push_back(gemm(x.p, "MLP up (FC1)", x.T, x.f / t, x.h));
        ops.push_back(memoryBound("GeLU", 2.0 * x.e * x.T * x.f / t));  // reads f, writes f
    }
    ops.push_back(gemm(x.p, "MLP down (FC2)", x.T, x.h, x.f / t));
    tpCollective(ops, x.sp ? "reduce-scatter after MLP" : "all-reduce after MLP", x, t);
    ops.push_back(memoryBound("residual add", residualBytes));
    return ops;
}

std::vector<Operator> LayerOperators::backward(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                               bool flashAttention, Precision p, Dropout d)
{
    std::vector<Operator> ops;
    ops.reserve(24);
    const Shape x = shapeOf(m, b, s, t, sequenceParallel, p);
    const double gradBytes = bytesOf(p).gradient;
    for (const Operator& f : forward(m, b, s, t, sequenceParallel, flashAttention, p, d)) {
        switch (f.kind) {
        case Operator::Kind::Gemm:
            if (f.batch > 1) {  // unfused attention: gradients of both operands, no weights
                ops.push_back(gemm(f.math, f.name, f.m, f.k, f.n, f.batch));
                ops.push_back(gemm(f.math, f.name, f.k, f.n, f.m, f.batch));
            } else {
                ops.push_back(gemm(f.math, f.name, f.m, f.k, f.n));  // data gradient
                Operator w = gemm(f.math, f.name, f.k, f.n, f.m);  // weight gradient,
                w.bytes += 2.0 * gradBytes * f.k * f.n;  // accumulated into the main gradient
                ops.push_back(w);
            }
            break;
        case Operator::Kind::Attention: {
            Operator a = f;
            a.flops = 2.5 * f.flops;
            a.bytes = 2.0 * f.bytes + x.e * x.T * x.ad / t;  // also reads O and dO
            ops.push_back(a);
            break;
        }
        case Operator::Kind::MemoryBound: {
            Operator mb = f;
            mb.bytes = f.backwardBytes > 0 ? f.backwardBytes : 2.0 * f.bytes;
            mb.backwardBytes = 0;
            ops.push_back(mb);
            break;
        }
        case Operator::Kind::Collective:
            ops.push_back(f);  // all-gather <-> reduce-scatter, same bytes
            break;
        }
    }
    return ops;
}

std::vector<Operator> LayerOperators::recompute(const ModelSpec& m, int b, int s, int t, bool sequenceParallel,
                                                bool flashAttention, Recompute r, Precision p, Dropout d)
{
    if (r == Recompute::Full)
        return forward(m, b, s, t, sequenceParallel, flashAttention, p, d);
    std::vector<Operator> ops;
    if (r == Recompute::Selective)
        attentionCore(ops, m, shapeOf(m, b, s, t, sequenceParallel, p), flashAttention, d);
    return ops;
}

std::vector<Operator> LayerOperators::outputLayer(const ModelSpec& m, int b, int s, int t, Precision p)
{
    const Shape x = shapeOf(m, b, s, t, true, p);
    // Megatron's output layer is not a Transformer Engine module: bf16 under fp8.
    const Precision outputMath = p == Precision::Fp8 ? Precision::Bf16 : p;
    const double gradBytes = bytesOf(p).gradient;
    const double V = m.vocab;
    std::vector<Operator> ops;
    ops.push_back(memoryBound("final norm", 2.0 * x.e * x.Tl * x.h));
    tpCollective(ops, "all-gather before the output layer", x, t);
    ops.push_back(gemm(outputMath, "output layer (logits)", x.T, V / t, x.h));
    // Vocabulary-parallel cross-entropy: read the bf16 logits, keep fp32
    // softmax, and in backward read it and write bf16 gradients.
    ops.push_back(memoryBound("cross-entropy", (x.e + kFp32) * x.T * V / t));
    if (t > 1)
        ops.push_back(collective("cross-entropy all-reduces", 3.0 * kFp32 * x.T, 1.0));
    ops.push_back(memoryBound("cross-entropy backward", (kFp32 + x.e) * x.T * V / t));
    ops.push_back(gemm(outputMath, "output layer data gradient", x.T, x.h, V / t));
    Operator w = gemm(outputMath, "output layer weight gradient", x.h, V / t, x.T);
    w.bytes += 2.0 * gradBytes * x.h * V / t;
    ops.push_back(w);
    tpCollective(ops, "reduce-scatter after the output layer", x, t);
    ops.push_back(memoryBound("final norm backward", 4.0 * x.e * x.Tl * x.h));
    return ops;
}

std::vector<Operator> LayerOperators::optimizerStep(double ownedParams, Precision p)
{
    constexpr double kMain = kFp32;  // main gradients, main weights and Adam moments are fp32
    const PrecisionBytes pb = bytesOf(p);
    const bool mainCopy = pb.weightGather < kMain;  // 16-bit (and fp8's bf16) model weights
    std::vector<Operator> ops;
    if (ownedParams <= 0)
        return ops;
    if (p == Precision::Fp16)  // fp16 gradients into the fp32 main gradients, unscaled and checked for inf
        ops.push_back(memoryBound("gradients to fp32 and unscale", (pb.gradient + 2.0 * kMain) * ownedParams));
    ops.push_back(memoryBound("gradient norm", kMain * ownedParams));
    ops.push_back(memoryBound("Adam", 7.0 * kMain * ownedParams));
    if (mainCopy)
        ops.push_back(memoryBound("main weights to model weights", (kMain + pb.weightGather) * ownedParams));
    return ops;
}

std::vector<Operator> LayerOperators::embedding(const ModelSpec& m, int b, int s, int t, Precision p)
{
    const Shape x = shapeOf(m, b, s, t, true, p);
    std::vector<Operator> ops;
    ops.push_back(memoryBound("embedding lookup", 2.0 * x.e * x.T * x.h));
    tpCollective(ops, "embedding reduce", x, t);
    // Learned positions: look up the s x h table and add it (reads both,
    // writes the sum), and in backward accumulate its gradient.
    const bool learned = m.style.position == PositionEmbedding::LearnedAbsolute;
    if (learned)
        ops.push_back(memoryBound("position embedding add", 3.0 * x.e * x.T * x.h));
    ops.push_back(memoryBound("embedding gradient", (x.e + 2.0 * bytesOf(p).gradient) * x.T * x.h));
    if (learned)
        ops.push_back(memoryBound("position embedding gradient", (x.e + 2.0 * bytesOf(p).gradient) * x.T * x.h));
    return ops;
}

}  // namespace memx
