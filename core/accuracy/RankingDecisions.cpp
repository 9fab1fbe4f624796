#include "accuracy/RankingDecisions.h"
#include "io/Statistics.h"

#include "accuracy/AccuracyMetrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace memx {

RankingDecisions::Group RankingDecisions::decide(const std::vector<double>& predictedMs,
                                                 const std::vector<double>& measuredMs)
{
    if (predictedMs.size() != measuredMs.size())
        throw std::invalid_argument("RankingDecisions::decide: size mismatch");
    if (measuredMs.empty())
        throw std::invalid_argument("RankingDecisions::decide: empty group");
    for (std::size_t i = 0; i < measuredMs.size(); ++i)
        if (!std::isfinite(predictedMs[i]) || !std::isfinite(measuredMs[i]))
            throw std::invalid_argument("RankingDecisions::decide: NaN or infinite time");

    Group g;
    g.runs = measuredMs.size();
    for (std::size_t i = 1; i < g.runs; ++i) {
        const double p = predictedMs[i], pp = predictedMs[g.picked];
        if (p < pp || (p == pp && measuredMs[i] > measuredMs[g.picked]))
            g.picked = i;
        const double m = measuredMs[i], mf = measuredMs[g.fastest];
        if (m < mf || (m == mf && predictedMs[i] < predictedMs[g.fastest]))
            g.fastest = i;
    }
    const double best = measuredMs[g.fastest];
    if (!(best > 0))
        throw std::invalid_argument("RankingDecisions::decide: the fastest measured time is not > 0");
    // Exactly 0 when the picked run is tied with the fastest.
    const auto regret = [best](double m) { return m == best ? 0.0 : 100.0 * (m / best - 1.0); };
    g.regretPct = regret(measuredMs[g.picked]);
    g.tiedAtPick = 0;
    double sum = 0;
    for (std::size_t i = 0; i < g.runs; ++i)
        if (predictedMs[i] == predictedMs[g.picked]) {
            ++g.tiedAtPick;
            sum += regret(measuredMs[i]);
        }
    g.expectedRegretPct = sum / static_cast<double>(g.tiedAtPick);
    const std::map<int, bool> hits = AccuracyMetrics::topKHits(predictedMs, measuredMs, {1, 3});
    g.top1 = hits.at(1);
    g.top3 = hits.at(3);
    return g;
}

RankingDecisions::Summary RankingDecisions::summarise(const std::vector<Group>& groups)
{
    Summary s;
    std::vector<double> regrets, expected;
    std::size_t top1 = 0, top3 = 0;
    for (const Group& g : groups) {
        if (g.runs < 2) {
            ++s.singleRunGroups;
            continue;
        }
        regrets.push_back(g.regretPct);
        expected.push_back(g.expectedRegretPct);
        s.tiedPicks += g.tiedAtPick >= 2 ? 1 : 0;
        top1 += g.top1 ? 1 : 0;
        top3 += g.top3 ? 1 : 0;
    }
    s.groups = regrets.size();
    if (regrets.empty())
        return s;
    const double n = static_cast<double>(s.groups);
    s.hitTop1 = static_cast<double>(top1) / n;
    s.hitTop3 = static_cast<double>(top3) / n;
    s.regretMedianPct = Statistics::median(regrets);
    s.regretMaxPct = *std::max_element(regrets.begin(), regrets.end());
    s.expectedRegretMedianPct = Statistics::median(expected);
    s.expectedRegretMaxPct = *std::max_element(expected.begin(), expected.end());
    return s;
}

}  // namespace memx
