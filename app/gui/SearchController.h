#pragma once

#include "search/SearchEngine.h"

#include <QFutureWatcher>
#include <QObject>

#include <atomic>
#include <memory>

Q_DECLARE_METATYPE(memx::SearchProgress)

namespace memx {

// Runs the engine's search on a worker thread (QtConcurrent) and reports back
// on the GUI thread. A new search cancels the running one; a cancelled or
// superseded search never delivers results (Hotspot's job-tracker pattern).
class SearchController : public QObject {
    Q_OBJECT
public:
    explicit SearchController(QObject* parent = nullptr);
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

signals:
    void started();
    void progress(const memx::SearchProgress& progress);
    void finished();  // lastResult() holds the new result
    void cancelled();
    void failed(const QString& reason);

private:
    using Watcher = QFutureWatcher<std::shared_ptr<const SearchResult>>;
    void onFinished(quint64 generation, Watcher* watcher, const SearchRequest& request);
    void replaceResult(std::shared_ptr<const SearchResult> r);

    struct Run {
        std::shared_ptr<std::atomic<bool>> cancel;
        std::shared_ptr<std::atomic<bool>> stop;
        Watcher* watcher = nullptr;
        quint64 generation = 0;
    };
    Run current_;
    quint64 generation_ = 0;
    SearchRequest request_;
    // Never null. Handed from the worker by pointer: a 128-GPU result holds
    // thousands of plans, and copying or freeing them on the GUI thread would
    // stall it.
    std::shared_ptr<const SearchResult> result_ = std::make_shared<const SearchResult>();
    bool hasResult_ = false;
    std::shared_ptr<PredictionStore> store_;  // kept across searches; emptied on the paper's conditions
};

}  // namespace memx
