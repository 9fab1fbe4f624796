#include "search/RecomputePolicy.h"

#include <cstdio>
#include <limits>

namespace memx {

namespace {
double rho(const StagePrediction& from, const StagePrediction& to)
{
    double savedGiB = (from.memoryMiB() - to.memoryMiB()) / 1024.0;
    double extraMs = to.timeMs - from.timeMs;
    return savedGiB > 1e-9 ? extraMs / savedGiB : std::numeric_limits<double>::infinity();
}
}  // namespace

RecomputePolicy::ExchangeRates RecomputePolicy::rates(const std::array<StagePrediction, kRecomputeLevels>& lv,
                                                      double collapseFraction)
{
    ExchangeRates r;
    const auto& none = lv[0];
    const auto& sel = lv[1];
    const auto& full = lv[2];
    r.rhoNoneToSelective = rho(none, sel);
    r.rhoNoneToFull = rho(none, full);
    r.rhoSelectiveToFull = rho(sel, full);
    double act = none.memory.activationsMiB;
    r.selectiveSavingFraction = act > 0 ? (none.memoryMiB() - sel.memoryMiB()) / act : 0;
    r.collapseSelective = r.selectiveSavingFraction < collapseFraction || r.rhoNoneToSelective > r.rhoNoneToFull;
    return r;
}

int RecomputePolicy::choose(const std::array<StagePrediction, kRecomputeLevels>& levels,
                            const std::array<bool, kRecomputeLevels>& allowed, double capacityMiB)
{
    int best = -1;
    for (int lv = 0; lv < kRecomputeLevels; ++lv) {
        if (!allowed[lv] || levels[lv].memoryMiB() > capacityMiB)
            continue;
        if (best < 0 || levels[lv].timeMs < levels[best].timeMs)
            best = lv;
    }
    return best;
}

std::string RecomputePolicy::describe(const std::string& gpuType, const ExchangeRates& r)
{
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "recomputation on %s: rho none->full %.1f ms/GiB, none->selective %.1f ms/GiB "
                  "(selective saves %.1f%% of activations)%s",
                  gpuType.c_str(), r.rhoNoneToFull, r.rhoNoneToSelective, 100 * r.selectiveSavingFraction,
                  r.collapseSelective ? "; selective collapsed, the choice is binary none/full" : "");
    return buf;
}

}  // namespace memx
