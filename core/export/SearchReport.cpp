#include "export/SearchReport.h"

#include "export/NodeChoiceReport.h"
#include "export/NodeLossReport.h"
#include "export/PlanJson.h"
#include "export/SimplexReport.h"
#include "export/TextReport.h"
#include "export/WhatIfReport.h"
#include "search/PlanCost.h"
#include "search/RecomputeAblation.h"
#include "search/SearchEngine.h"

#include <algorithm>

namespace memx {

SearchReport SearchReport::of(const SearchRequest& request, const SearchResult& result, const SearchFollowUps& asked)
{
    SearchReport out;
    const bool planned = result.error.empty() && !result.best.empty();
    if (planned && !asked.scenarios.empty()) {
        BandwidthWhatIf::Options whatIf = asked.whatIf;
        // --time-limit bounds the whole command: the what-if gets what the search left.
        if (request.options.timeLimitS > 0)
            whatIf.timeLimitS = std::max(0.05, request.options.timeLimitS - result.stats.wallS);
        out.whatIf = BandwidthWhatIf::run(request, result, asked.scenarios, whatIf);
    }
    if (planned && asked.chooseNodes) {
        // As the what-if: the choices get what the search left of --time-limit.
        SearchRequest again = request;
        if (request.options.timeLimitS > 0)
            again.options.timeLimitS = std::max(0.05, request.options.timeLimitS - result.stats.wallS);
        out.choice = NodeChoice::run(again, result, asked.choice);
    }
    if (planned && asked.nodeLoss)
        out.nodeLoss = NodeLossWhatIf::run(request, result, asked.nodeLossOptions);
    if (asked.whyNot)
        out.whyNot = ShapeExplanation::of(request.problem, (*asked.whyNot)[0], (*asked.whyNot)[1], (*asked.whyNot)[2],
                                          request.predictor);
    if (result.error.empty() && asked.simplex)
        out.simplex = WeightSimplex::map(WeightSimplex::keptCandidates(result), result.references);
    return out;
}

nlohmann::json SearchReport::json(const SearchRequest& request, const SearchResult& result,
                                  const SearchFollowUps& asked) const
{
    nlohmann::json doc = PlanJson::search(request.problem, result);
    if (whatIf)
        doc["what_if"] = WhatIfReport::json(*whatIf, asked.scenarioFile);
    if (nodeLoss)
        doc["node_loss"] = NodeLossReport::json(*nodeLoss);
    if (choice)
        doc["node_choice"] = NodeChoiceReport::json(*choice);
    if (whyNot)
        doc["why_not"] = whyNot->toJson();
    return doc;
}

std::string SearchReport::text(const SearchRequest& request, const SearchResult& result, const SearchFollowUps& asked,
                               const TextOptions& options) const
{
    const Problem& problem = request.problem;
    if (!result.error.empty()) {
        std::string report = "no feasible plan: " + result.error + "\n";
        if (whyNot)
            report += "\n" + whyNot->text();
        if (options.stats)
            report += TextReport::stats(result);
        return report;
    }
    std::string report = TextReport::table(problem, result, options.top) + TextReport::tasks(result)
        + TextReport::planDetail(problem, result);
    if (!result.best.empty()) {
        // What per-stage recomputation buys over one level everywhere.
        const Plan& plan = result.best.front();
        report += RecomputeAblation::line(plan,
                                          RecomputeAblation::uniform(problem, plan, request.predictor,
                                                                     result.varianceMode),
                                          result.varianceMode);
        const PlanCost cost = PlanCost::of(problem.cluster, plan);
        if (cost.perHour >= 0 || asked.chooseNodes)
            report += NodeChoiceReport::costLine(cost);
    }
    report += TextReport::profileComparison(result, problem.cluster);
    report += TextReport::baselines(result);
    if (whatIf)
        report += WhatIfReport::text(*whatIf, result, asked.scenarioFile);
    if (nodeLoss)
        report += NodeLossReport::text(*nodeLoss, result);
    if (choice)
        report += NodeChoiceReport::text(*choice, asked.choice);
    if (simplex)
        report += SimplexReport::summary(*simplex, problem.cluster);
    if (whyNot)
        report += "\n" + whyNot->text();
    if (options.stats)
        report += TextReport::stats(result);  // with the notes
    else if (!options.topologyNote.empty())
        report += "note: " + options.topologyNote + "\n";
    return report;
}

}  // namespace memx
