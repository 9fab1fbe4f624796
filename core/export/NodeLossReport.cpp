#include "export/NodeLossReport.h"

#include "export/PlanJson.h"
#include "io/Text.h"

namespace memx {

namespace {

std::string planShape(const Plan& p)
{
    return "PP" + std::to_string(p.pp) + " " + p.shapeString() + ", " + p.orderString() + ", layers " + p.layersString()
        + ", recompute " + p.recomputeString();
}

std::string percent(double fraction) { return Text::fmt("%+.1f%%", 100 * fraction); }

std::string nodeNames(const NodeLossWhatIf::Scenario& s)
{
    if (s.alike.empty())
        return s.name;
    return s.name + " (or any of " + std::to_string(s.alike.size()) + " like it: "
        + Text::join(s.alike.size() <= 6 ? s.alike : std::vector<std::string>(s.alike.begin(), s.alike.begin() + 6),
                     ", ")
        + (s.alike.size() > 6 ? ", ..." : "") + ")";
}

}  // namespace

std::string NodeLossReport::text(const NodeLossWhatIf::Result& w, const SearchResult& r)
{
    std::string out = "\nNode loss (" + std::to_string(w.scenarios.size()) + " scenario"
        + (w.scenarios.size() == 1 ? "" : "s")
        + (w.which == NodeLossWhatIf::Which::PerType ? ", each GPU type's first node"
                                                     : ", every node; alike nodes once")
        + "):\n";
    if (!w.error.empty())
        return out + "  " + w.error + "\n";
    out += "  Plan 1 takes " + Text::fmt("%.1f", w.plan1Ms) + " ms, " + Text::fmt("%.0f", w.plan1TokensPerS)
        + " tokens/s on the whole cluster.\n";
    for (const auto& s : w.scenarios) {
        out += "  without " + nodeNames(s) + " (" + s.gpus + "): ";
        if (!s.error.empty()) {
            out += "no plan fits (" + s.error + ")\n";
            continue;
        }
        out += "best " + Text::fmt("%.1f", s.plan.iterationMs) + " ms (" + percent(s.slowdown) + "), "
            + Text::fmt("%.0f", s.tokensPerS) + " tokens/s; " + planShape(s.plan)
            + (s.plan1Idle ? "; plan 1 does not use this node and keeps running" : "") + "\n";
    }
    if (!w.robust)
        return out;
    out += "  Robust ranking by the worst time over the scenarios (" + std::to_string(w.candidates)
        + " kept plans; a plan that used the lost node restarts with the same TP and micro-batch, "
          "its pipeline and DP chosen again on the GPUs left; Phi with that time and each plan's own M and V):\n";
    if (w.cannotResume > 0)
        out += "    " + std::to_string(w.cannotResume) + " of them cannot restart in their layout after some loss "
            + "and are left out\n";
    if (w.robustPlans.empty())
        return out + "    no kept plan can restart after every loss\n";
    out += "    " + Text::pad("#", 4) + Text::pad("plan", 100) + Text::rpad("T(ms)", 10) + Text::rpad("worst T", 10)
        + Text::rpad("Phi", 8) + Text::rpad("worst Phi", 10) + "  worst without\n";
    std::size_t i = 0;
    for (const auto& rp : w.robustPlans) {
        out += "    " + Text::pad(std::to_string(++i), 4) + Text::pad(planShape(rp.plan) + " ", 100)
            + Text::rpad(Text::fmt("%.1f", rp.plan.iterationMs), 10) + Text::rpad(Text::fmt("%.1f", rp.worstMs), 10)
            + Text::rpad(Text::fmt("%.4f", rp.plan.phi), 8) + Text::rpad(Text::fmt("%.4f", rp.worstPhi), 10) + "  "
            + w.scenarios[rp.worst].name + (rp.resumed[rp.worst] ? "" : " (node idle)")
            + (rp.plan.key == r.best.front().key ? "  <- plan 1" : "") + "\n";
    }
    return out;
}

nlohmann::json NodeLossReport::json(const NodeLossWhatIf::Result& w)
{
    nlohmann::json j;
    j["which"] = NodeLossWhatIf::toString(w.which);
    if (!w.error.empty()) {
        j["error"] = w.error;
        return j;
    }
    j["plan1_ms"] = w.plan1Ms;
    j["plan1_tokens_per_s"] = w.plan1TokensPerS;
    nlohmann::json scenarios = nlohmann::json::array();
    for (const auto& s : w.scenarios) {
        nlohmann::json sj = {{"node", s.name}, {"alike", s.alike}, {"gpus", s.gpus}, {"plan1_idle", s.plan1Idle}};
        if (!s.error.empty()) {
            sj["error"] = s.error;
        } else {
            sj["best"] = PlanJson::plan(s.plan);
            sj["slowdown"] = s.slowdown;
            sj["tokens_per_s"] = s.tokensPerS;
        }
        scenarios.push_back(sj);
    }
    j["scenarios"] = scenarios;
    j["robust"] = w.robust;
    if (w.robust) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& rp : w.robustPlans) {
            nlohmann::json ms = nlohmann::json::array();
            for (std::size_t k = 0; k < rp.scenarioMs.size(); ++k)
                ms.push_back(
                    {{"node", w.scenarios[k].name}, {"ms", rp.scenarioMs[k]}, {"restarted", bool(rp.resumed[k])}});
            a.push_back({{"worst_ms", rp.worstMs},
                         {"worst_phi", rp.worstPhi},
                         {"worst_node", w.scenarios[rp.worst].name},
                         {"scenarios", ms},
                         {"plan", PlanJson::plan(rp.plan)}});
        }
        j["robust_plans"] = a;
        j["robust_candidates"] = w.candidates;
        j["cannot_restart"] = w.cannotResume;
    }
    return j;
}

}  // namespace memx
