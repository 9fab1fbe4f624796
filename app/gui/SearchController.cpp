#include "SearchController.h"

#include "predict/PredictionStore.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent>

namespace memx {

using Job = JobTracker::Job;

SearchController::SearchController(QObject* parent, JobTracker* jobs)
    : QObject(parent)
    , jobs_(jobs ? jobs : new JobTracker(this))
{
    qRegisterMetaType<memx::SearchProgress>();
}

SearchController::~SearchController() { cancel(); }

bool SearchController::isRunning() const { return jobs_->isRunning(Job::Search); }

void SearchController::cancel()
{
    if (!isRunning())
        return;
    jobs_->drop(Job::Search);  // sets its cancel flag; whatever it still delivers is stale
    emit cancelled();
}

void SearchController::stopEarly()
{
    if (isRunning() && stop_)
        stop_->store(true);
}

void SearchController::detachStore()
{
    if (store_ && jobs_->running(Job::Search) == 0)
        store_ = std::make_shared<PredictionStore>(*store_);  // concurrent readers of the old one are fine
}

void SearchController::start(SearchRequest request)
{
    // A search still running (a superseded one included) holds the store:
    // one search per store.
    if (!store_ || jobs_->running(Job::Search) > 0)
        store_ = std::make_shared<PredictionStore>();
    request.store = store_;  // predictions carry over between searches (MemX 3.1.2)
    request.options.background = true;  // the GUI thread shares the cores: workers yield to it
    auto stopFlag = std::make_shared<std::atomic<bool>>(false);
    stop_ = stopFlag;
    request.options.stopEarly = [stopFlag] { return stopFlag->load(); };
    QPointer<SearchController> self(this);
    auto kept = std::make_shared<const SearchRequest>(request);  // for lastRequest(); the worker gets its own copy

    auto work = [self, request = std::move(request)](const JobTracker::Ticket& ticket) mutable {
        auto progressFn = [self, generation = ticket.generation](const SearchProgress& p) {
            if (!self)
                return;
            QMetaObject::invokeMethod(
                self.data(),
                [self, generation, p] {
                    if (self && self->jobs_->isCurrent(Job::Search, generation))
                        emit self->progress(p);
                },
                Qt::QueuedConnection);
        };
        auto cancelFn = [cancel = ticket.cancel] { return cancel->load(); };
        return std::make_shared<const SearchResult>(SearchEngine::run(std::move(request), progressFn, cancelFn));
    };
    jobs_->start(Job::Search, std::move(work),
                 [this, kept](std::shared_ptr<const SearchResult> r) { onFinished(std::move(r), *kept); });
    emit started();
}

void SearchController::onFinished(std::shared_ptr<const SearchResult> r, const SearchRequest& request)
{
    if (!r || r->cancelled)
        return;
    if (!r->error.empty() && r->best.empty()) {
        replaceResult(std::move(r));
        hasResult_ = false;
        emit failed(QString::fromStdString(result_->error));
        return;
    }
    replaceResult(std::move(r));
    request_ = request;
    hasResult_ = true;
    emit finished();
}

void SearchController::replaceResult(std::shared_ptr<const SearchResult> r)
{
    std::shared_ptr<const SearchResult> old = std::exchange(result_, std::move(r));
    // The last owner of the old result frees it on a pool thread, not here.
    if (old.use_count() == 1)
        (void)QtConcurrent::run([old = std::move(old)]() mutable { old.reset(); });
}

void SearchController::forgetResult()
{
    result_ = std::make_shared<const SearchResult>();
    hasResult_ = false;
}

}  // namespace memx
