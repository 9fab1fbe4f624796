#pragma once

#include <string>

namespace memx {

// Activation recomputation level of a pipeline stage (MemX section 3.1.1).
// Selective recomputes the attention core (Korthikanti et al. 2022, Megatron's
// --recompute-granularity selective); full recomputes the whole layer and keeps
// only its input (--recompute-granularity full --recompute-method uniform).
enum class Recompute { None = 0, Selective = 1, Full = 2 };
constexpr int kRecomputeLevels = 3;

inline const char* toString(Recompute r)
{
    switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
    }
    return "?";
}

inline bool parseRecompute(const std::string& s, Recompute& out)
{
    if (s == "none")
        out = Recompute::None;
    else if (s == "selective")
        out = Recompute::Selective;
    else if (s == "full")
        out = Recompute::Full;
    else
        return false;
    return true;
}

}  // namespace memx
