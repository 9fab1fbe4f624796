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

// The rate a run that should have a dropout on is launched with (profiling
// runs: time and memory depend on whether a dropout runs, not on its rate).
inline double launchRate(bool on) { return on ? kMegatronDefaultDropout : 0.0; }

// A dropout runs when its rate is above zero (Megatron's default is 0.1).
inline Dropout dropoutOf(double attentionRate, double hiddenRate)
{
    return Dropout{attentionRate > 0, hiddenRate > 0};
}

}  // namespace memx
