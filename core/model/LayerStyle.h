#pragma once

#include <string>

namespace memx {

// How a transformer layer is built beyond its sizes, in Megatron-LM's terms
// (docs/ANALYTIC_ACCURACY.md, "Layer style"):
//   position   --position-embedding-type: rope (LLaMA; a rotary kernel on
//              Q and K in every layer), learned_absolute (GPT, Megatron's
//              default; a seq x hidden table added to the first stage's
//              embeddings, whole on every TP rank) or none;
//   norm       --normalization: RMSNorm (LLaMA) or LayerNorm (Megatron's
//              default; a bias beside each scale);
//   linearBias biases on the linear layers (Megatron's default;
//              --disable-bias-linear drops them, as LLaMA has none).
// The default is LLaMA's, the planner's model family; GPT() is Megatron's
// own default and GPT-3's.
enum class PositionEmbedding { Rope = 0, LearnedAbsolute = 1, None = 2 };
enum class Normalization { RmsNorm = 0, LayerNorm = 1 };

struct LayerStyle {
    PositionEmbedding position = PositionEmbedding::Rope;
    Normalization norm = Normalization::RmsNorm;
    bool linearBias = false;

    static LayerStyle gpt() { return {PositionEmbedding::LearnedAbsolute, Normalization::LayerNorm, true}; }
    bool operator==(const LayerStyle&) const = default;
    // Four bits for hash signatures and keys.
    unsigned code() const
    {
        return static_cast<unsigned>(position) | (static_cast<unsigned>(norm) << 2) | (linearBias ? 8u : 0u);
    }
};

inline const char* toString(PositionEmbedding p)
{
    switch (p) {
    case PositionEmbedding::LearnedAbsolute: return "learned_absolute";
    case PositionEmbedding::None: return "none";
    default: return "rope";
    }
}

inline const char* toString(Normalization n) { return n == Normalization::LayerNorm ? "layernorm" : "rmsnorm"; }

// Megatron's spellings as well: RMSNorm, LayerNorm, and the enum names an
// argument dump may print (PositionEmbeddingType.rotary in Megatron-DeepSpeed).
inline bool parsePositionEmbedding(std::string s, PositionEmbedding& out)
{
    if (const auto dot = s.rfind('.'); dot != std::string::npos)
        s = s.substr(dot + 1);
    if (s == "rope" || s == "rotary")
        out = PositionEmbedding::Rope;
    else if (s == "learned_absolute" || s == "absolute")
        out = PositionEmbedding::LearnedAbsolute;
    else if (s == "none")
        out = PositionEmbedding::None;
    else
        return false;
    return true;
}

inline bool parseNormalization(const std::string& s, Normalization& out)
{
    if (s == "rmsnorm" || s == "RMSNorm")
        out = Normalization::RmsNorm;
    else if (s == "layernorm" || s == "LayerNorm")
        out = Normalization::LayerNorm;
    else
        return false;
    return true;
}

// For messages: "learned_absolute layernorm with biases".
inline std::string describe(const LayerStyle& s)
{
    return std::string(toString(s.position)) + " " + toString(s.norm) + (s.linearBias ? " with biases" : "");
}

// Megatron's flags for a style (megatron/training/arguments.py):
// --position-embedding-type, --normalization, --disable-bias-linear.
inline const char* megatronNormalization(Normalization n)
{
    return n == Normalization::LayerNorm ? "LayerNorm" : "RMSNorm";
}

}  // namespace memx
