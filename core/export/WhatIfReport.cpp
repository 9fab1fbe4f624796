#include "export/WhatIfReport.h"

#include "export/PlanJson.h"
#include "io/Text.h"

namespace memx {

namespace {

std::string planShape(const Plan& p)
{
    return "TP" + std::to_string(p.tp) + " PP" + std::to_string(p.pp) + " DP" + std::to_string(p.dp) + " mbs"
        + std::to_string(p.microBatch) + " " + p.orderString() + " layers " + p.layersString() + " recompute "
        + p.recomputeString();
}

std::string percent(double fraction) { return Text::fmt("%+.1f%%", 100 * fraction); }

}  // namespace

std::string WhatIfReport::text(const BandwidthWhatIf::Result& w, const SearchResult& r, const std::string& file)
{
    std::string out = "\nWhat-if bandwidth (" + file + ", " + std::to_string(w.scenarios.size()) + " scenario"
        + (w.scenarios.size() == 1 ? "" : "s") + "):\n";
    if (!w.error.empty())
        return out + "  " + w.error + "\n";
    const Plan& best = r.best.front();
    if (!w.incomplete.empty())
        out += "  INCOMPLETE: the time limit ran out: " + w.incomplete + ".\n";
    out += "  Plan 1 takes " + Text::fmt("%.1f", best.iterationMs) + " ms on the network as described";
    std::size_t segments = 0;
    for (const auto& s : w.scenarios)
        segments += s.segments.size();
    if (w.replans < segments && w.incomplete.empty())
        out += "; " + std::to_string(segments) + " segments, " + std::to_string(w.replans)
            + " distinct networks re-planned (alike segments share one search)";
    out += ".\n";
    for (const auto& s : w.scenarios) {
        out += "  " + s.name + (s.timeProfile ? " (time profile, times weighted by segment length)" : "") + ": plan 1 ";
        out += s.nominalBestMs < 0
            ? std::string("cannot run (a link it needs is gone)\n")
            : "takes " + Text::fmt("%.1f", s.nominalBestMs) + " ms (" + percent(s.slowdown) + ")\n";
        for (const auto& seg : s.segments) {
            out += "    " + (s.timeProfile ? Text::fmt("%.0f%% of the time, ", 100 * seg.share) : std::string())
                + seg.description + ": ";
            if (!seg.error.empty()) {
                out += "re-planning found no plan (" + seg.error + ")\n";
                continue;
            }
            if (seg.samePlan) {
                out += "re-planning keeps plan 1";
            } else {
                out += "re-planned best " + planShape(seg.plan) + ", " + Text::fmt("%.1f", seg.plan.iterationMs)
                    + " ms";
                if (seg.nominalBestMs > 0)
                    out += " (" + percent(seg.plan.iterationMs / seg.nominalBestMs - 1) + " time, "
                        + percent(seg.plan.phi / seg.keepPhi - 1) + " Phi against keeping plan 1)";
            }
            out += "; " + std::to_string(seg.predictorCalls)
                + " predictor calls (the rest from the prediction store)\n";
        }
    }
    if (w.robust == BandwidthWhatIf::Robust::None)
        return out;
    out += "  Robust ranking by the " + std::string(w.robust == BandwidthWhatIf::Robust::Worst ? "worst" : "mean")
        + " time over the scenarios (" + std::to_string(w.candidates)
        + " kept plans; Phi with that time and each plan's own M and V):\n";
    out += "    " + Text::pad("#", 4) + Text::pad("plan", 90) + Text::rpad("T(ms)", 10) + Text::rpad("robust T", 10)
        + Text::rpad("Phi", 8) + Text::rpad("robust Phi", 11) + "  worst under\n";
    std::size_t i = 0;
    for (const auto& rp : w.robustPlans) {
        out += "    " + Text::pad(std::to_string(++i), 4) + Text::pad(planShape(rp.plan) + " ", 90)
            + Text::rpad(Text::fmt("%.1f", rp.plan.iterationMs), 10) + Text::rpad(Text::fmt("%.1f", rp.robustMs), 10)
            + Text::rpad(Text::fmt("%.4f", rp.plan.phi), 8) + Text::rpad(Text::fmt("%.4f", rp.robustPhi), 11) + "  "
            + w.scenarios[rp.worst].name + (rp.plan.key == best.key ? "  <- plan 1" : "") + "\n";
    }
    return out;
}

nlohmann::json WhatIfReport::json(const BandwidthWhatIf::Result& w, const std::string& file)
{
    nlohmann::json j;
    j["scenarios_file"] = file;
    if (!w.error.empty())
        j["error"] = w.error;
    if (!w.incomplete.empty())
        j["incomplete"] = w.incomplete;
    j["searches"] = w.replans;
    nlohmann::json scenarios = nlohmann::json::array();
    for (const auto& s : w.scenarios) {
        nlohmann::json segs = nlohmann::json::array();
        for (const auto& seg : s.segments) {
            nlohmann::json sj = {{"scale", seg.description},
                                 {"share", seg.share},
                                 {"plan1_ms", seg.nominalBestMs},
                                 {"predictor_calls", seg.predictorCalls},
                                 {"plan1_phi", seg.keepPhi}};
            if (!seg.error.empty()) {
                sj["error"] = seg.error;
            } else {
                sj["best"] = PlanJson::plan(seg.plan);
                sj["keeps_plan1"] = seg.samePlan;
            }
            segs.push_back(sj);
        }
        scenarios.push_back({{"name", s.name},
                             {"time_profile", s.timeProfile},
                             {"plan1_ms", s.nominalBestMs},
                             {"plan1_slowdown", s.slowdown},
                             {"replanned", segs}});
    }
    j["scenarios"] = scenarios;
    j["robust"] = BandwidthWhatIf::toString(w.robust);
    if (w.robust != BandwidthWhatIf::Robust::None) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& rp : w.robustPlans)
            a.push_back({{"robust_ms", rp.robustMs},
                         {"robust_phi", rp.robustPhi},
                         {"scenario_ms", rp.scenarioMs},
                         {"worst_scenario", w.scenarios[rp.worst].name},
                         {"plan", PlanJson::plan(rp.plan)}});
        j["robust_plans"] = a;
        j["robust_candidates"] = w.candidates;
    }
    return j;
}

}  // namespace memx
