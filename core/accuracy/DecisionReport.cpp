#include "accuracy/DecisionReport.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace memx {

void DecisionReport::add(const std::string& group, const std::vector<std::string>& runIds,
                         const std::vector<double>& predictedMs, const std::vector<double>& measuredMs)
{
    if (predictedMs.size() != runIds.size() || measuredMs.size() != runIds.size())
        throw std::invalid_argument("DecisionReport::add: size mismatch");
    std::vector<std::size_t> kept;
    std::vector<double> p, m;
    for (std::size_t i = 0; i < runIds.size(); ++i) {
        if (!std::isfinite(predictedMs[i]) || !std::isfinite(measuredMs[i]) || !(measuredMs[i] > 0))
            continue;
        kept.push_back(i);
        p.push_back(predictedMs[i]);
        m.push_back(measuredMs[i]);
    }
    if (kept.empty())
        return;
    Named n;
    n.group = group;
    n.d = RankingDecisions::decide(p, m);
    n.pickedRun = runIds[kept[n.d.picked]];
    n.fastestRun = runIds[kept[n.d.fastest]];
    n.pickedMs = m[n.d.picked];
    n.fastestMs = m[n.d.fastest];
    groups.push_back(std::move(n));
    std::vector<RankingDecisions::Group> all;
    for (const Named& g : groups)
        all.push_back(g.d);
    summary = RankingDecisions::summarise(all);
}

nlohmann::json DecisionReport::toJson() const
{
    const auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    nlohmann::json j{{"groups", summary.groups},
                     {"single_run_groups", summary.singleRunGroups},
                     {"hit_top1", num(summary.hitTop1)},
                     {"hit_top3", num(summary.hitTop3)},
                     {"regret_median_pct", num(summary.regretMedianPct)},
                     {"regret_max_pct", num(summary.regretMaxPct)},
                     {"tied_picks", summary.tiedPicks},
                     {"expected_regret_median_pct", num(summary.expectedRegretMedianPct)},
                     {"expected_regret_max_pct", num(summary.expectedRegretMaxPct)}};
    nlohmann::json rows = nlohmann::json::array();
    for (const Named& g : groups)
        if (g.d.runs >= 2)
            rows.push_back({{"group", g.group},
                            {"runs", g.d.runs},
                            {"picked_run", g.pickedRun},
                            {"picked_ms", g.pickedMs},
                            {"fastest_run", g.fastestRun},
                            {"fastest_ms", g.fastestMs},
                            {"regret_pct", g.d.regretPct},
                            {"tied_at_pick", g.d.tiedAtPick},
                            {"expected_regret_pct", g.d.expectedRegretPct},
                            {"top1", g.d.top1},
                            {"top3", g.d.top3}});
    j["per_group"] = rows;
    return j;
}

std::string DecisionReport::formatText() const
{
    const RankingDecisions::Summary& s = summary;
    char buf[1024];
    if (s.groups == 0) {
        if (s.singleRunGroups == 0)
            return {};
        std::snprintf(buf, sizeof buf,
                      "ranking decisions: none (%zu group(s) of a single configuration, nothing to choose)\n",
                      s.singleRunGroups);
        return buf;
    }
    std::string out;
    std::snprintf(
        buf, sizeof buf,
        "ranking decisions over %zu group(s) of >= 2 configurations (%zu group(s) of one excluded; repeats of a "
        "configuration are one choice, at their median measured time):\n"
        "  truly fastest predicted fastest (top-1) %.0f%%, among the predicted 3 fastest (top-3) %.0f%%\n"
        "  regret (measured time of the predicted-fastest / fastest - 1): median %.1f%%, max %.1f%%\n",
        s.groups, s.singleRunGroups, 100 * s.hitTop1, 100 * s.hitTop3, s.regretMedianPct, s.regretMaxPct);
    out += buf;
    if (s.tiedPicks > 0) {
        std::snprintf(buf, sizeof buf,
                      "  %zu of the %zu pick(s) are ties in prediction (configurations the model cannot tell apart); "
                      "ties broken at random: regret median %.1f%%, max %.1f%%\n",
                      s.tiedPicks, s.groups, s.expectedRegretMedianPct, s.expectedRegretMaxPct);
        out += buf;
    }
    const Named* worst = nullptr;
    for (const Named& g : groups)
        if (g.d.runs >= 2 && (!worst || g.d.regretPct > worst->d.regretPct))
            worst = &g;
    if (worst && worst->d.regretPct > 0) {
        std::snprintf(buf, sizeof buf, "  largest regret: %s (%.1f ms) picked over %s (%.1f ms)%s, group %s\n",
                      worst->pickedRun.c_str(), worst->pickedMs, worst->fastestRun.c_str(), worst->fastestMs,
                      worst->d.tiedAtPick >= 2
                          ? (" (" + std::to_string(worst->d.tiedAtPick) + " tied in prediction, the slowest counted)")
                                .c_str()
                          : "",
                      worst->group.c_str());
        out += buf;
    }
    return out;
}

}  // namespace memx
