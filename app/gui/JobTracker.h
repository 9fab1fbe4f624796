#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent>

#include <array>
#include <atomic>
#include <memory>

namespace memx {

// The workbench's one tracker of work off the GUI thread (Hotspot's job
// tracker): the search, the what-if bandwidth re-ranking, node loss, node
// choice, the recomputation ablation of the selected plan and the weight
// simplex each run on the thread pool as a job of their kind. Starting a kind
// again, or drop(), makes the job of that kind that runs now stale: its cancel
// flag is set (a job that polls it ends early) and its outcome is never shown.
// A stale job still counts in running() until it returns, since it may still
// read what it was given (the search's prediction store).
class JobTracker : public QObject {
    Q_OBJECT
public:
    enum class Job { Search, WhatIf, NodeLoss, NodeChoice, Ablation, Simplex };
    Q_ENUM(Job)
    static constexpr std::size_t kJobs = 6;

    // What a job is handed: its generation (the kind's count of starts) and
    // the flag that says it is no longer wanted.
    struct Ticket {
        quint64 generation = 0;
        std::shared_ptr<std::atomic<bool>> cancel;
    };

    explicit JobTracker(QObject* parent = nullptr);
    // Drops every job and waits for those still running.
    ~JobTracker() override;

    // Runs `work(ticket)` on the thread pool; `show(result)` runs on this
    // object's thread when it returns, unless a later start() or drop() of the
    // same kind came between. Returns the job's generation.
    template <class Work, class Show> quint64 start(Job job, Work work, Show show);

    // The job of this kind that runs now is no longer wanted.
    void drop(Job job);
    // Every job but the search's: a new result makes them all stale.
    void dropFollowUps();
    // True while `generation` is the kind's last start and was not dropped.
    bool isCurrent(Job job, quint64 generation) const;
    // A job of this kind runs whose outcome will be shown.
    bool isRunning(Job job) const;
    // Jobs of this kind still running, stale ones included.
    int running(Job job) const;
    int running() const;
    // Waits until no job runs (stale ones included); for tests and shutdown.
    void waitForAll();

signals:
    // A job returned; `shown`: its outcome was current and shown.
    void jobFinished(memx::JobTracker::Job job, bool shown);
    // No job runs any more, stale ones included.
    void idle();

private:
    struct Slot {
        quint64 generation = 0;
        bool dropped = true;  // no current job
        std::shared_ptr<std::atomic<bool>> cancel;
        int running = 0;
    };
    Ticket begin(Job job, QFutureWatcherBase* watcher);
    // Called when a job returns: true when its outcome is to be shown.
    bool end(Job job, quint64 generation, QFutureWatcherBase* watcher);
    void announce(Job job, bool shown);
    Slot& slot(Job job) { return slots_[static_cast<std::size_t>(job)]; }
    const Slot& slot(Job job) const { return slots_[static_cast<std::size_t>(job)]; }

    std::array<Slot, kJobs> slots_;
    QList<QFutureWatcherBase*> watchers_;
};

template <class Work, class Show> quint64 JobTracker::start(Job job, Work work, Show show)
{
    using Result = std::invoke_result_t<Work&, const Ticket&>;
    auto* watcher = new QFutureWatcher<Result>(this);
    const Ticket ticket = begin(job, watcher);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, ticket, show = std::move(show)] {
        const bool current = end(job, ticket.generation, watcher);
        if (current)
            show(watcher->result());
        watcher->deleteLater();
        announce(job, current);
    });
    watcher->setFuture(QtConcurrent::run([work = std::move(work), ticket]() mutable { return work(ticket); }));
    return ticket.generation;
}

}  // namespace memx
