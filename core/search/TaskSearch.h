#pragma once

#include "search/SearchResult.h"

#include <functional>
#include <string>
#include <vector>

namespace memx {

// Issue #33, "tasks are not knobs": a sequence length or a number of query
// groups is part of the training task, not a tuning knob. Given several,
// TaskCompare::PerTask searches each task on its own (its own references and
// eV) and sets the results side by side, so that no plan outranks another
// task's on raw iteration time; TaskCompare::PerToken leaves the request to
// one search that ranks time per token (SearchEngine).
struct TaskSearch {
    struct Task {
        int seqLen = 0;
        int queryGroups = 0;
        std::string label;
    };
    // Every sequence length x query-group value of the request, in the order
    // given; one task when neither has several values.
    static std::vector<Task> tasks(const SearchRequest& request);

    using ProgressFn = std::function<void(const SearchProgress&)>;
    using CancelFn = std::function<bool()>;
    using SearchFn = std::function<SearchResult(SearchRequest, const ProgressFn&, const CancelFn&)>;

    // Runs `search` once per task (a request narrowed to that task; the time
    // limit shared out over the tasks still to run, the exact-enumeration and
    // sample budgets over all tasks; progress scaled into one 0-1000 range)
    // and merges the results (merge()).
    static SearchResult run(const SearchRequest& request, const SearchFn& search, const ProgressFn& progress,
                            const CancelFn& cancelled);

    // `best` and `fastest` take each task's lists in turn (each task's best
    // first, in task order); `tasks` holds each task's best and references;
    // the fronts, sample, references and profile bests are those of the first
    // task that has a plan; statistics add up. No task with a plan: the error
    // names each task's reason.
    static SearchResult merge(const std::vector<Task>& tasks, std::vector<SearchResult> results);
};

}  // namespace memx
