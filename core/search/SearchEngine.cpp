#include "search/SearchEngine.h"
#include "search/SearchRun.h"
#include "search/TaskSearch.h"

#include <new>
#include <string>

namespace memx {

SearchResult SearchEngine::run(SearchRequest request, const ProgressFn& progress, const CancelFn& cancelled)
{
    auto one = [](SearchRequest r, const ProgressFn& p, const CancelFn& c) {
        const std::string what = "model " + r.problem.model.name + " (" + std::to_string(r.problem.model.numLayers)
            + " layers) on " + std::to_string(r.problem.cluster.deviceCount()) + " GPUs";
        try {
            return engine::SearchRun(std::move(r), p, c).run();
        } catch (const std::bad_alloc&) {
            // On any thread of the search (WorkerPool passes it on): said, not an abort.
            SearchResult out;
            out.error = "not enough memory for this search: " + what
                + "; a smaller model or cluster, a lower --max-pp, or a --max-memory budget may fit";
            out.invalidRequest = true;
            return out;
        }
    };
    if (request.objective.compareTasks == TaskCompare::PerTask && TaskSearch::tasks(request).size() > 1)
        return TaskSearch::run(request, one, progress, cancelled);
    const TaskCompare compare = request.objective.compareTasks;
    SearchResult r = one(std::move(request), progress, cancelled);
    r.compareTasks = compare;
    return r;
}

}  // namespace memx
