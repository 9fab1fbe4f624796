#include "SearchController.h"

#include "predict/PredictionStore.h"

#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent>

namespace memx {

SearchController::SearchController(QObject* parent) : QObject(parent) { qRegisterMetaType<memx::SearchProgress>(); }

SearchController::~SearchController()
{
    cancel();
    if (current_.watcher)
        current_.watcher->waitForFinished();
}

bool SearchController::isRunning() const { return current_.watcher && current_.watcher->isRunning(); }

void SearchController::cancel()
{
    if (!isRunning())
        return;
    current_.cancel->store(true);
    ++generation_;  // whatever it still delivers is stale
    emit cancelled();
}

void SearchController::stopEarly()
{
    if (isRunning())
        current_.stop->store(true);
}

void SearchController::detachStore()
{
    if (store_ && !isRunning())
        store_ = std::make_shared<PredictionStore>(*store_);  // concurrent readers of the old one are fine
}

void SearchController::start(SearchRequest request)
{
    if (isRunning()) {
        current_.cancel->store(true);
        ++generation_;
        // The superseded search still holds the store: one search per store.
        store_ = std::make_shared<PredictionStore>();
    }
    if (!store_)
        store_ = std::make_shared<PredictionStore>();
    request.store = store_;  // predictions carry over between searches (MemX 3.1.2)
    request.options.background = true;  // the GUI thread shares the cores: workers yield to it
    const quint64 generation = ++generation_;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    auto stopFlag = std::make_shared<std::atomic<bool>>(false);
    request.options.stopEarly = [stopFlag] { return stopFlag->load(); };
    QPointer<SearchController> self(this);

    auto progressFn = [self, generation](const SearchProgress& p) {
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, p] {
                if (self && self->generation_ == generation)
                    emit self->progress(p);
            },
            Qt::QueuedConnection);
    };
    auto cancelFn = [cancelFlag] { return cancelFlag->load(); };

    auto* watcher = new Watcher(this);
    auto kept = std::make_shared<const SearchRequest>(request);  // for lastRequest(); the worker gets its own copy
    connect(watcher, &Watcher::finished, this,
            [this, generation, watcher, kept] { onFinished(generation, watcher, *kept); });
    current_ = Run{cancelFlag, stopFlag, watcher, generation};
    watcher->setFuture(QtConcurrent::run([request = std::move(request), progressFn, cancelFn]() mutable {
        return std::make_shared<const SearchResult>(SearchEngine::run(std::move(request), progressFn, cancelFn));
    }));
    emit started();
}

void SearchController::onFinished(quint64 generation, Watcher* watcher, const SearchRequest& request)
{
    watcher->deleteLater();
    if (current_.watcher == watcher)
        current_.watcher = nullptr;
    if (generation != generation_)
        return;  // superseded or cancelled: drop it
    std::shared_ptr<const SearchResult> r = watcher->result();
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
