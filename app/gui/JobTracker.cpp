#include "JobTracker.h"

namespace memx {

JobTracker::JobTracker(QObject* parent) : QObject(parent) { }

JobTracker::~JobTracker()
{
    for (std::size_t i = 0; i < kJobs; ++i)
        drop(static_cast<Job>(i));
    waitForAll();
}

JobTracker::Ticket JobTracker::begin(Job job, QFutureWatcherBase* watcher)
{
    drop(job);
    Slot& s = slot(job);
    ++s.generation;
    s.dropped = false;
    s.cancel = std::make_shared<std::atomic<bool>>(false);
    ++s.running;
    watchers_.append(watcher);
    return {s.generation, s.cancel};
}

bool JobTracker::end(Job job, quint64 generation, QFutureWatcherBase* watcher)
{
    watchers_.removeOne(watcher);
    Slot& s = slot(job);
    --s.running;
    const bool current = !s.dropped && s.generation == generation;
    if (current)
        s.dropped = true;  // returned: nothing of this kind runs now
    return current;
}

void JobTracker::announce(Job job, bool shown)
{
    emit jobFinished(job, shown);
    if (running() == 0)
        emit idle();
}

void JobTracker::drop(Job job)
{
    Slot& s = slot(job);
    if (s.cancel)
        s.cancel->store(true);
    s.dropped = true;
}

void JobTracker::dropFollowUps()
{
    for (std::size_t i = 0; i < kJobs; ++i)
        if (static_cast<Job>(i) != Job::Search)
            drop(static_cast<Job>(i));
}

bool JobTracker::isCurrent(Job job, quint64 generation) const
{
    const Slot& s = slot(job);
    return !s.dropped && s.generation == generation;
}

bool JobTracker::isRunning(Job job) const { return !slot(job).dropped && slot(job).running > 0; }

int JobTracker::running(Job job) const { return slot(job).running; }

int JobTracker::running() const
{
    int n = 0;
    for (const Slot& s : slots_)
        n += s.running;
    return n;
}

void JobTracker::waitForAll()
{
    // Copies: a watcher leaves the list only in its finished handler, which
    // does not run while this waits.
    const QList<QFutureWatcherBase*> all = watchers_;
    for (QFutureWatcherBase* w : all)
        w->waitForFinished();
}

}  // namespace memx
