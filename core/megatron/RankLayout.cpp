#include "megatron/RankLayout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace memx {

RankLayout::RankLayout(int tp, int pp, int dp, int cp, Order order) : tp_(tp), pp_(pp), dp_(dp), cp_(cp), order_(order)
{
    if (tp < 1 || pp < 1 || dp < 1 || cp < 1)
        throw std::invalid_argument("RankLayout: TP, PP, DP and CP must be at least 1 (got TP=" + std::to_string(tp)
                                    + " PP=" + std::to_string(pp) + " DP=" + std::to_string(dp)
                                    + " CP=" + std::to_string(cp) + ")");
}

RankCoords RankLayout::coordsOf(int rank) const
{
    if (rank < 0 || rank >= worldSize())
        throw std::out_of_range("RankLayout: rank " + std::to_string(rank) + " is outside [0, "
                                + std::to_string(worldSize()) + ")");
    // Innermost first: tp, then cp, then (dp, pp) or (pp, dp).
    RankCoords c;
    int r = rank;
    c.tp = r % tp_;
    r /= tp_;
    c.cp = r % cp_;
    r /= cp_;
    if (order_ == Order::TpCpDpPp) {
        c.dp = r % dp_;
        c.pp = r / dp_;
    } else {
        c.pp = r % pp_;
        c.dp = r / pp_;
    }
    return c;
}

int RankLayout::rankOf(int tp, int pp, int dp, int cp) const
{
    if (tp < 0 || tp >= tp_ || pp < 0 || pp >= pp_ || dp < 0 || dp >= dp_ || cp < 0 || cp >= cp_)
        throw std::out_of_range("RankLayout: coordinates (tp " + std::to_string(tp) + ", pp " + std::to_string(pp)
                                + ", dp " + std::to_string(dp) + ", cp " + std::to_string(cp)
                                + ") are outside the mesh");
    // default:                rank = tp + TP*(cp + CP*(dp + DP*pp))
    // --use-tp-pp-dp-mapping: rank = tp + TP*(cp + CP*(pp + PP*dp))
    const int outer = order_ == Order::TpCpDpPp ? dp + dp_ * pp : pp + pp_ * dp;
    return tp + tp_ * (cp + cp_ * outer);
}

std::vector<int> RankLayout::ranksOfStage(int pp) const
{
    if (pp < 0 || pp >= pp_)
        throw std::out_of_range("RankLayout: stage " + std::to_string(pp) + " is outside [0, " + std::to_string(pp_)
                                + ")");
    std::vector<int> ranks;
    ranks.reserve(static_cast<size_t>(tp_) * static_cast<size_t>(cp_) * static_cast<size_t>(dp_));
    for (int d = 0; d < dp_; ++d)
        for (int c = 0; c < cp_; ++c)
            for (int t = 0; t < tp_; ++t)
                ranks.push_back(rankOf(t, pp, d, c));
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

}  // namespace memx
