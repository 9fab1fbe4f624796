#include "search/TaskSearch.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace memx {

namespace {

template <class T> std::vector<T> distinctInOrder(const std::vector<T>& values)
{
    std::vector<T> out;
    for (const T& v : values)
        if (std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    return out;
}

std::uint64_t addSaturating(std::uint64_t a, std::uint64_t b)
{
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// Each list's entries in turn: a[0], b[0], c[0], a[1], ...
std::vector<Plan> interleave(const std::vector<const std::vector<Plan>*>& lists)
{
    std::vector<Plan> out;
    for (std::size_t i = 0;; ++i) {
        bool any = false;
        for (const auto* list : lists)
            if (i < list->size()) {
                out.push_back((*list)[i]);
                any = true;
            }
        if (!any)
            return out;
    }
}

// Plan keys identify a plan within one search (skeleton index and split), so
// the same key comes back in every task's search for its own plan: each task
// after the first gets its keys mixed with its index, in every list alike.
void rekey(SearchResult& r, std::size_t task)
{
    if (task == 0)
        return;
    auto mix = [task](Plan& p) {
        std::uint64_t z = p.key + 0x9e3779b97f4a7c15ULL * (task + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        p.key = z ^ (z >> 31);
    };
    for (auto* list : {&r.best, &r.fastest, &r.plotSample})
        for (Plan& p : *list)
            mix(p);
    r.paretoTimeVariance.forEachPlan(mix);
    r.paretoTimeMemory.forEachPlan(mix);
    for (auto& pb : r.profilePicks) {
        mix(pb.plan);
        for (Plan& p : pb.ranking)
            mix(p);
    }
    for (auto& b : r.baselines)
        mix(b.plan);
}

}  // namespace

std::vector<TaskSearch::Task> TaskSearch::tasks(const SearchRequest& request)
{
    const auto& setup = request.problem.setup;
    const auto& model = request.problem.model;
    const std::vector<int> seqs
        = setup.seqLens.empty() ? std::vector<int>{model.seqLen} : distinctInOrder(setup.seqLens);
    const std::vector<int> groups
        = setup.queryGroups.empty() ? std::vector<int>{model.queryGroups} : distinctInOrder(setup.queryGroups);
    std::vector<Task> out;
    for (int seq : seqs)
        for (int qg : groups) {
            Task t{seq, qg, {}};
            if (seqs.size() > 1)
                t.label = "seq " + std::to_string(seq);
            if (groups.size() > 1)
                t.label += (t.label.empty() ? "" : ", ") + std::to_string(qg) + " query groups";
            if (t.label.empty())
                t.label = "seq " + std::to_string(seq);
            out.push_back(std::move(t));
        }
    return out;
}

SearchResult TaskSearch::run(const SearchRequest& request, const SearchFn& search, const ProgressFn& progress,
                             const CancelFn& cancelled)
{
    const std::vector<Task> list = tasks(request);
    const auto start = std::chrono::steady_clock::now();
    const double limitS = request.options.timeLimitS;
    std::vector<SearchResult> results;
    for (std::size_t i = 0; i < list.size(); ++i) {
        SearchRequest one = request;
        one.problem.setup.seqLens = {list[i].seqLen};
        one.problem.setup.queryGroups = {list[i].queryGroups};
        // The tasks share the budgets of one search: below sampleBudget
        // candidates a search visits every one (exact medians), which three
        // tasks of 1.5 M each would do three times over.
        const auto n = static_cast<std::size_t>(list.size());
        one.options.sampleBudget = std::max<std::size_t>(1, request.options.sampleBudget / n);
        one.options.estimateSamples = std::max<std::size_t>(1000, request.options.estimateSamples / n);
        if (limitS > 0) {
            // What is left of the limit, shared out over the tasks still to run.
            const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            one.options.timeLimitS = std::max(0.05, (limitS - spent) / static_cast<double>(list.size() - i));
        }
        const int count = static_cast<int>(n);
        const int index = static_cast<int>(i);
        ProgressFn scaled;
        if (progress)
            scaled = [&, count, index](const SearchProgress& p) {
                SearchProgress q = p;
                q.permille = (index * 1000 + p.permille) / count;
                q.remainingS = -1;  // the later tasks' share is not known
                progress(q);
            };
        results.push_back(search(std::move(one), scaled, cancelled));
        if (results.back().cancelled)
            break;
    }
    return merge(list, std::move(results));
}

namespace {

// One task's statistics added to the merged ones (counts saturate).
void addStats(SearchStats& s, const SearchStats& r)
{
    s.skeletons += r.skeletons;
    s.explored = addSaturating(s.explored, r.explored);
    s.feasible = addSaturating(s.feasible, r.feasible);
    s.searchNodes = addSaturating(s.searchNodes, r.searchNodes);
    for (const auto& [rule, n] : r.prunedByRule)
        s.prunedByRule[rule] = addSaturating(s.prunedByRule[rule], n);
    s.phase2Evaluated += r.phase2Evaluated;
    s.phase2Pruned += r.phase2Pruned;
    s.cacheHits += r.cacheHits;
    s.cacheMisses += r.cacheMisses;
    s.storeHits += r.storeHits;
    s.cacheResets += r.cacheResets;
    s.rowHits += r.rowHits;
    s.rowMisses += r.rowMisses;
    s.rowResets += r.rowResets;
    s.storeInvalidated = s.storeInvalidated || r.storeInvalidated;
    s.storeSize = r.storeSize;
    s.wallS += r.wallS;
    s.threads = std::max(s.threads, r.threads);
    s.feasibleShapes += r.feasibleShapes;
    s.plotShapes += r.plotShapes;
}

// One task's pick, and what its search said, into the merged result.
SearchResult::TaskPick pickOf(const TaskSearch::Task& t, const SearchResult& r)
{
    SearchResult::TaskPick tb;
    tb.seqLen = t.seqLen;
    tb.queryGroups = t.queryGroups;
    tb.label = t.label;
    tb.found = !r.best.empty();
    if (tb.found)
        tb.plan = r.best.front();
    if (!r.fastest.empty())
        tb.fastestMs = r.fastest.front().iterationMs;
    tb.references = r.references;
    tb.error = r.error;
    tb.incomplete = r.incomplete;
    return tb;
}

void addNotes(SearchResult& out, const TaskSearch::Task& t, const SearchResult& r)
{
    if (!r.incomplete.empty())
        out.incomplete += (out.incomplete.empty() ? "" : " ") + t.label + ": " + r.incomplete;
    if (!r.spaceCut.empty())
        out.spaceCut += (out.spaceCut.empty() ? "" : " ") + t.label + ": " + r.spaceCut;
    out.invalidRequest = out.invalidRequest && r.invalidRequest;
    out.cancelled = out.cancelled || r.cancelled;
    for (const auto& note : r.notes)
        if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end())
            out.notes.push_back(note);
}

}  // namespace

SearchResult TaskSearch::merge(const std::vector<Task>& list, std::vector<SearchResult> results)
{
    // The details (fronts, sample, references, profile bests) come from the
    // first task with a plan, else the first task.
    std::size_t lead = 0;
    for (std::size_t i = 0; i < results.size(); ++i)
        if (!results[i].best.empty()) {
            lead = i;
            break;
        }
    if (results.empty())
        return SearchResult();  // not {}: ParetoFront's default constructor is explicit
    for (std::size_t i = 0; i < results.size(); ++i)
        rekey(results[i], i);
    SearchResult out = results[lead];
    out.compareTasks = TaskCompare::PerTask;
    out.error.clear();
    out.incomplete.clear();
    out.spaceCut.clear();
    out.invalidRequest = true;
    out.cancelled = false;
    out.notes.clear();
    out.stats = {};
    std::vector<const std::vector<Plan>*> bests, fastest;
    std::string errors;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const SearchResult& r = results[i];
        const Task& t = list[i];
        out.tasks.push_back(pickOf(t, r));
        bests.push_back(&r.best);
        fastest.push_back(&r.fastest);
        if (!r.error.empty())
            errors += (errors.empty() ? "" : "; ") + t.label + ": " + r.error;
        addNotes(out, t, r);
        addStats(out.stats, r.stats);
    }
    out.stats.sampleFraction = results[lead].stats.sampleFraction;
    if (list.size() > 1)  // the references are the lead task's alone
        out.referencesOf
            = (results[lead].referencesOf.empty() ? std::to_string(results[lead].stats.feasible) + " feasible plans"
                                                  : results[lead].referencesOf)
            + " of " + list[lead].label;
    out.stats.candidatesPerS = out.stats.wallS > 0 ? static_cast<double>(out.stats.feasible) / out.stats.wallS : 0;
    out.best = interleave(bests);
    out.fastest = interleave(fastest);
    for (auto& tb : out.tasks)
        for (std::size_t j = 0; j < out.best.size(); ++j)
            if (tb.found && out.best[j].key == tb.plan.key && out.best[j].seqLen == tb.seqLen
                && out.best[j].queryGroups == tb.queryGroups) {
                tb.bestIndex = j;
                break;
            }
    const bool anyPlan = !out.best.empty();
    if (!anyPlan)
        out.error = results.size() == 1 ? results.front().error : "no task has a plan: " + errors;
    else
        out.invalidRequest = false;
    if (anyPlan && !errors.empty())
        out.notes.push_back("without a plan: " + errors);
    if (anyPlan && list.size() > 1)
        out.notes.push_back("several training tasks were searched (" + std::to_string(list.size())
                            + "): each is ranked on its own, its best plan first in each list; the fronts, sample "
                            + "and references shown are " + list[lead].label
                            + "'s; --compare-tasks per-token ranks them together by time per token");
    return out;
}

}  // namespace memx
