#include "export/NodeChoiceReport.h"

#include "export/PlanJson.h"
#include "io/Text.h"

#include <algorithm>

namespace memx {

namespace {

std::string money(double v) { return v < 0 ? std::string("unknown") : Text::fmt("%.2f", v); }

}  // namespace

std::string NodeChoiceReport::costLine(const PlanCost& c)
{
    std::string out
        = "Plan 1 delivers " + Text::fmt("%.0f", c.tokensPerS) + " tokens/s on " + std::to_string(c.usedGpus) + " GPUs";
    if (c.paidGpus != c.usedGpus)
        out += " (" + std::to_string(c.paidGpus) + " in the nodes it uses)";
    if (!c.unusedNodes.empty())
        out += "; it leaves out " + Text::join(c.unusedNodes, ", ");
    if (c.perHour >= 0)
        out += "; " + money(c.perHour) + " per hour, " + Text::fmt("%.3f", c.perMillionTokens) + " per million tokens";
    else
        out += "; cost unknown (give price_per_gpu_hour for every GPU type, in the catalog or the cluster's gpu_types)";
    return out + ".\n";
}

std::string NodeChoiceReport::text(const NodeChoice::Result& c, const NodeChoice::Options& o)
{
    std::string out
        = "\nChoosing nodes (the cluster searched again with the nodes of some GPU types, or some nodes of one type, "
          "left out; ranked by "
        + std::string(o.rank == NodeChoice::Rank::Cost ? "cost per million tokens" : "tokens per second") + "):\n";
    if (!c.error.empty())
        return out + "  " + c.error + "\n";
    if (o.maxCostPerHour >= 0 || o.minTokensPerS >= 0) {
        out += "  limits:";
        if (o.maxCostPerHour >= 0)
            out += " at most " + money(o.maxCostPerHour) + " per hour";
        if (o.minTokensPerS >= 0)
            out += std::string(o.maxCostPerHour >= 0 ? "," : "") + " at least " + Text::fmt("%.0f", o.minTokensPerS)
                + " tokens/s";
        out += "; " + std::to_string(c.dropped) + " choice" + (c.dropped == 1 ? "" : "s") + " dropped\n";
    }
    std::size_t width = 16;
    for (const auto& r : c.rows)
        width = std::max(width, NodeChoice::keptText(r, "+").size() + (r.whole ? 8 : 2));
    out += "  " + Text::pad("#", 4) + Text::pad("GPU types kept", width) + Text::rpad("GPUs", 6)
        + Text::rpad("T(ms)", 11) + Text::rpad("tokens/s", 10) + Text::rpad("per hour", 10) + Text::rpad("per Mtok", 10)
        + "  plan\n";
    std::size_t i = 0;
    for (const auto& r : c.rows) {
        out += "  " + Text::pad(std::to_string(++i), 4)
            + Text::pad(NodeChoice::keptText(r, "+") + (r.whole ? " (all)" : ""), width)
            + Text::rpad(std::to_string(r.gpus), 6);
        if (!r.error.empty()) {
            out += (r.error == NodeChoice::timeRanOut ? "  " : "  no plan fits: ") + r.error + "\n";
            continue;
        }
        out += Text::rpad(Text::fmt("%.1f", r.plan.iterationMs), 11)
            + Text::rpad(Text::fmt("%.0f", r.cost.tokensPerS), 10) + Text::rpad(money(r.cost.perHour), 10)
            + Text::rpad(r.cost.perMillionTokens < 0 ? std::string("unknown")
                                                     : Text::fmt("%.3f", r.cost.perMillionTokens),
                         10)
            + "  PP" + std::to_string(r.plan.pp) + " " + r.plan.shapeString()
            + (r.left.empty() ? "" : "; leaves out " + Text::join(r.left, ", "))
            + (r.cost.unusedNodes.empty() ? "" : "; its plan uses no GPU of " + Text::join(r.cost.unusedNodes, ", "))
            + (r.meetsLimits ? "" : "  (misses the limits)") + "\n";
    }
    if (c.notSearched > 0)
        out += "  " + std::to_string(c.notSearched) + " choice" + (c.notSearched == 1 ? " was" : "s were")
            + " not searched: the time limit (--time-limit) ran out.\n";
    if (!c.pricesKnown)
        out += "  Costs are unknown: give price_per_gpu_hour for every GPU type (catalog or the cluster's gpu_types).\n";
    return out;
}

nlohmann::json NodeChoiceReport::json(const NodeChoice::Result& c)
{
    nlohmann::json j;
    if (!c.error.empty())
        j["error"] = c.error;
    j["prices_known"] = c.pricesKnown;
    j["dropped"] = c.dropped;
    j["not_searched"] = c.notSearched;
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows) {
        nlohmann::json rj = {{"types", r.types}, {"nodes_left_out", r.left}, {"gpus", r.gpus}, {"whole", r.whole}};
        if (!r.part.empty()) {
            nlohmann::json part = nlohmann::json::array();
            for (const auto& p : r.part)
                part.push_back({{"type", p.type}, {"nodes_kept", p.kept}, {"nodes_of_type", p.of}});
            rj["partly_kept"] = part;
        }
        if (!r.error.empty()) {
            rj["error"] = r.error;
        } else {
            rj["best"] = PlanJson::plan(r.plan);
            rj["tokens_per_s"] = r.cost.tokensPerS;
            rj["paid_gpus"] = r.cost.paidGpus;
            if (r.cost.perHour >= 0) {
                rj["cost_per_hour"] = r.cost.perHour;
                rj["cost_per_million_tokens"] = r.cost.perMillionTokens;
            }
            rj["meets_limits"] = r.meetsLimits;
        }
        rows.push_back(rj);
    }
    j["rows"] = rows;
    return j;
}

}  // namespace memx
