#pragma once

#include <string>

namespace memx {

// How attention is computed, as measurement files and Megatron logs name it
// (docs/MEASUREMENTS.md): "flash" keeps O(s) per head (FlashAttention, cuDNN
// fused attention, Megatron's --attention-backend flash|fused|auto with
// Transformer Engine); "unfused" materialises the s x s scores
// (--attention-backend unfused, or Megatron's local transformer layers).
inline const char* attentionName(bool flashAttention) { return flashAttention ? "flash" : "unfused"; }

// Accepts flash|unfused and Megatron's backend names fused, auto (flash) and
// local (unfused); false for anything else.
inline bool parseAttentionName(const std::string& s, bool& flashAttention)
{
    if (s == "flash" || s == "fused" || s == "auto")
        flashAttention = true;
    else if (s == "unfused" || s == "local")
        flashAttention = false;
    else
        return false;
    return true;
}

}  // namespace memx
