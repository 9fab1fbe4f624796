#pragma once

namespace memx {

// Which dropouts a layer runs (Megatron --attention-dropout and
// --hidden-dropout with a rate above zero; docs/ANALYTIC_ACCURACY.md,
// "Attention backend and dropout"). Only whether a dropout runs changes time
// and memory, not its rate:
//   attention  on the softmax output. Unfused attention keeps a 1-byte mask
//              and the dropped-out probabilities (the AV input) per score,
//              a*s^2*b each; FlashAttention draws the mask inside the kernel
//              from a saved RNG state and keeps nothing more.
//   hidden     after the attention projection and after FC2 (Megatron's
//              bias-dropout-add): two 1-byte masks of s*b*h per layer.
struct Dropout {
    bool attention = false;
    bool hidden = false;

    bool operator==(const Dropout&) const = default;
};

// Megatron-LM's default --attention-dropout and --hidden-dropout.
inline constexpr double kMegatronDefaultDropout = 0.1;

// The rate a run launches a dropout with: the planned rate when the dropout
// is on and a rate was given, else Megatron's default (time and memory depend
// on whether a dropout runs, not on its rate); 0 when it is off.
inline double launchRate(bool on, double planned)
{
    return on ? (planned > 0 ? planned : kMegatronDefaultDropout) : 0.0;
}

// A dropout runs when its rate is above zero (Megatron's default is 0.1).
inline Dropout dropoutOf(double attentionRate, double hiddenRate) { return Dropout{attentionRate > 0, hiddenRate > 0}; }

}  // namespace memx
