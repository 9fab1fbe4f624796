#pragma once

#include "accuracy/RankingDecisions.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memx {

// RankingDecisions over the groups of competing runs of an accuracy report,
// with the runs named: which run the prediction picks in each group, which
// one is truly fastest, and what the difference costs.
struct DecisionReport {
    struct Named {
        std::string group, pickedRun, fastestRun;
        double pickedMs = 0, fastestMs = 0;  // measured
        RankingDecisions::Group d;
    };
    RankingDecisions::Summary summary;
    std::vector<Named> groups;  // every group added, single-run ones included (d.runs == 1)

    // One group: its choices (a run id, or a name for the repeats of one
    // configuration) with their predicted and measured times. Choices
    // without a finite prediction or a measured time > 0 are left out; a
    // group left empty is not added. Updates `summary`.
    void add(const std::string& group, const std::vector<std::string>& runIds, const std::vector<double>& predictedMs,
             const std::vector<double>& measuredMs);

    // memx-accuracy/1 "decisions": the summary and, per group of >= 2 runs,
    // the picked and the fastest run (docs/FILE_FORMATS.md).
    nlohmann::json toJson() const;
    // The report's lines: hits, regret, and the group where the pick costs most.
    std::string formatText() const;
};

}  // namespace memx
