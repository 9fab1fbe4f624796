#pragma once

#include <vector>

namespace memx {

// Coordinates of one global rank in Megatron-LM's dense process mesh.
struct RankCoords {
    int tp = 0;
    int pp = 0;
    int dp = 0;
    int cp = 0;

    friend bool operator==(const RankCoords&, const RankCoords&) = default;
};

// Megatron-LM's global-rank order, in one place: the log importer maps the
// ranks of memory lines to pipeline stages with it, and the exporter will use
// it to place stages on nodes. Only the dense groups (TP, CP, DP, PP) are
// modelled; EP does not change the dense order.
//
// Source: NVIDIA/Megatron-LM main @ d98e8a6, megatron/training/initialize.py:395
// passes order "tp-cp-ep-dp-pp" (or "tp-cp-ep-pp-dp" with
// --use-tp-pp-dp-mapping) to RankGenerator, core/parallel_state.py:269-330,
// which gives (reference/EXPORT_AND_LOGS.md, "How ranks map to stages"):
//   default:                rank = tp + TP*(cp + CP*(dp + DP*pp))
//   --use-tp-pp-dp-mapping: rank = tp + TP*(cp + CP*(pp + PP*dp))
// So by default stage i owns the global ranks [i*TP*CP*DP, (i+1)*TP*CP*DP).
class RankLayout {
public:
    enum class Order {
        TpCpDpPp,  // Megatron default ("tp-cp-ep-dp-pp")
        TpCpPpDp,  // --use-tp-pp-dp-mapping ("tp-cp-ep-pp-dp")
    };

    // Throws std::invalid_argument when a size is below 1.
    RankLayout(int tp, int pp, int dp, int cp = 1, Order order = Order::TpCpDpPp);

    int tp() const { return tp_; }
    int pp() const { return pp_; }
    int dp() const { return dp_; }
    int cp() const { return cp_; }
    Order order() const { return order_; }
    int worldSize() const { return tp_ * pp_ * dp_ * cp_; }

    // Throws std::out_of_range when rank is not in [0, worldSize()).
    RankCoords coordsOf(int rank) const;
    // Throws std::out_of_range when a coordinate is outside its size.
    int rankOf(int tp, int pp, int dp, int cp = 0) const;
    int rankOf(const RankCoords& c) const { return rankOf(c.tp, c.pp, c.dp, c.cp); }

    // Pipeline stage of a global rank (coordsOf(rank).pp).
    int stageOf(int rank) const { return coordsOf(rank).pp; }
    // All global ranks of pipeline stage pp, ascending. Throws std::out_of_range.
    std::vector<int> ranksOfStage(int pp) const;

private:
    int tp_;
    int pp_;
    int dp_;
    int cp_;
    Order order_;
};

}  // namespace memx
