#pragma once

#include <string>

namespace memx {

// The MLP of a transformer layer (docs/ANALYTIC_ACCURACY.md, "MLP kind"):
//   swiglu  gated (LLaMA, Megatron --swiglu): FC1 produces gate and up, 2f
//           wide; 3*h*f weights; the SwiGLU keeps both halves for backward;
//   gelu    plain (GPT, Megatron's default without --swiglu): FC1 is f wide;
//           2*h*f weights.
enum class MlpKind { SwiGlu = 0, Gelu = 1 };

inline const char* toString(MlpKind k) { return k == MlpKind::Gelu ? "gelu" : "swiglu"; }

inline bool parseMlpKind(const std::string& s, MlpKind& out)
{
    if (s == "swiglu")
        out = MlpKind::SwiGlu;
    else if (s == "gelu")
        out = MlpKind::Gelu;
    else
        return false;
    return true;
}

// Weight matrices of h x f in the MLP: 3 gated, 2 plain.
inline int mlpMatrices(MlpKind k) { return k == MlpKind::Gelu ? 2 : 3; }

}  // namespace memx
