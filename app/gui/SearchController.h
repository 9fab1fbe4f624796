#pragma once

#include "JobTracker.h"
#include "search/SearchEngine.h"

#include <QObject>

#include <atomic>
#include <memory>

Q_DECLARE_METATYPE(memx::SearchProgress)

namespace memx {

// Runs the engine's search as the job tracker's Search job and reports back
// on the GUI thread. A new search cancels the running one; a cancelled or
// superseded search never delivers results or progress.
class SearchController : public QObject {
    Q_OBJECT
public:
    // `jobs`: the workbench's tracker; null: one of its own.
    explicit SearchController(QObject* parent = nullptr, JobTracker* jobs = nullptr);
    ~SearchController() override;

    void start(SearchRequest request);
    void cancel();
    // Ends the running search soon with the best plans found so far; it
    // finishes (finished()) with SearchResult::incomplete saying so.
    void stopEarly();
    bool isRunning() const;
    // The next search writes its predictions into a copy of the store, so
    // that someone still reading the current one (a what-if re-ranking) is
    // never raced. Call on the GUI thread, between searches.
    void detachStore();
    const SearchResult& lastResult() const { return *result_; }
    // The same result, shared: views keep it alive instead of copying plans.
    std::shared_ptr<const SearchResult> lastResultShared() const { return result_; }
    // The request lastResult() answers (cluster, model, setup, predictor): what
    // an export of one of its plans was made for, whatever was edited since.
    const SearchRequest& lastRequest() const { return request_; }
    bool hasResult() const { return hasResult_; }
    // Drops the last result (another project was opened or started): it
    // answers nothing the panels now hold. Not while a search runs.
    void forgetResult();
    JobTracker* jobs() const { return jobs_; }

signals:
    void started();
    void progress(const memx::SearchProgress& progress);
    void finished();  // lastResult() holds the new result
    void cancelled();
    void failed(const QString& reason);

private:
    void onFinished(std::shared_ptr<const SearchResult> r, const SearchRequest& request);
    void replaceResult(std::shared_ptr<const SearchResult> r);

    JobTracker* jobs_ = nullptr;
    std::shared_ptr<std::atomic<bool>> stop_;  // the running search's stopEarly flag
    SearchRequest request_;
    // Never null. Handed from the worker by pointer: a 128-GPU result holds
    // thousands of plans, and copying or freeing them on the GUI thread would
    // stall it.
    std::shared_ptr<const SearchResult> result_ = std::make_shared<const SearchResult>();
    bool hasResult_ = false;
    std::shared_ptr<PredictionStore> store_;  // kept across searches; emptied on the paper's conditions
};

}  // namespace memx
