#pragma once

#include "search/Objective.h"

#include <string>
#include <vector>

namespace memx {

struct Plan;
struct SearchResult;

// "Why this plan?": what Phi weighs, the chosen plan against the fastest
// feasible one, which of Phi's three factors decided between them, and the
// rule of the profile in use. Plain sentences, for the workbench's
// "Why this plan?" panel.
//
// Phi = (T/Tref)^wT (M/Mref)^wM ((V+eV)/(Vref+eV))^wV, so the ratio of two
// plans' Phi is the product of three factors (T'/T)^wT (M'/M)^wM
// ((V'+eV)/(V+eV))^wV: a factor above 1 counts against the other plan.
struct PlanExplanation {
    // Under the profile the search ranked by (r.profileUsed, r.weights).
    static std::vector<std::string> lines(const SearchResult& r, const Plan& chosen);
    // How eV was chosen (References::epsilonRule), for the report and the
    // explanation: "memory predictions +-25% on a fullest GPU of ...".
    static std::string epsilonReason(const SearchResult& r);
    // Under another profile the search also ranked (its ProfilePick).
    static std::vector<std::string> lines(const SearchResult& r, const Plan& chosen, WeightProfile kind,
                                          const Weights& weights);
};

}  // namespace memx
