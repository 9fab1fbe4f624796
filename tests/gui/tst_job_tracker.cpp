// The workbench's one job tracker (issue #34 item 4): every kind of work off
// the GUI thread (search, what-if, node loss and choice, ablation, simplex)
// shows its outcome on the GUI thread, and only while it is still wanted:
// starting the kind again or dropping it makes the running job stale, sets
// its cancel flag, and its outcome is never shown.
#include "JobTracker.h"

#include <QSignalSpy>
#include <QThread>
#include "TestMain.h"

#include <atomic>
#include <future>
#include <memory>

namespace tst_job_tracker {

using namespace memx;
using Job = JobTracker::Job;

namespace {

// A job that blocks until released, then returns `value`; it also returns
// early (with -1) when its cancel flag is set.
struct Gate {
    std::promise<void> open;
    std::shared_future<void> opened = open.get_future().share();
    std::atomic<bool> sawCancel{false};
};

auto gatedWork(std::shared_ptr<Gate> gate, int value)
{
    return [gate, value](const JobTracker::Ticket& t) {
        while (gate->opened.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready)
            if (t.cancel->load()) {
                gate->sawCancel = true;
                return -1;
            }
        return value;
    };
}

}  // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private slots:
    void outcomeIsShownOnTheGuiThread();
    void startingTheKindAgainDropsTheRunningJob();
    void dropSetsTheCancelFlagAndShowsNothing();
    void kindsAreIndependent_data();
    void kindsAreIndependent();
    void staleJobsCountUntilTheyReturn();
    void destroyingWaitsForRunningJobs();
};

void TestJobTracker::outcomeIsShownOnTheGuiThread()
{
    JobTracker jobs;
    QSignalSpy finished(&jobs, &JobTracker::jobFinished);
    QSignalSpy idle(&jobs, &JobTracker::idle);
    QThread* shownOn = nullptr;
    int shown = 0;
    jobs.start(
        Job::WhatIf, [](const JobTracker::Ticket&) { return 42; },
        [&](int v) {
            shown = v;
            shownOn = QThread::currentThread();
        });
    QVERIFY(jobs.isRunning(Job::WhatIf));
    QVERIFY(idle.wait(10000));
    QCOMPARE(shown, 42);
    QCOMPARE(shownOn, QThread::currentThread());
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished[0][0].value<Job>(), Job::WhatIf);
    QCOMPARE(finished[0][1].toBool(), true);
    QVERIFY(!jobs.isRunning(Job::WhatIf));
    QCOMPARE(jobs.running(), 0);
}

void TestJobTracker::startingTheKindAgainDropsTheRunningJob()
{
    JobTracker jobs;
    QSignalSpy finished(&jobs, &JobTracker::jobFinished);
    auto first = std::make_shared<Gate>();
    QList<int> shown;
    const quint64 g1 = jobs.start(Job::NodeLoss, gatedWork(first, 1), [&](int v) { shown << v; });
    const quint64 g2 = jobs.start(
        Job::NodeLoss, [](const JobTracker::Ticket&) { return 2; }, [&](int v) { shown << v; });
    QVERIFY(g2 > g1);
    QVERIFY(!jobs.isCurrent(Job::NodeLoss, g1));
    QVERIFY(jobs.isCurrent(Job::NodeLoss, g2));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 10000);
    QCOMPARE(shown, QList<int>{2});  // the first job's outcome never reached the view
    QVERIFY(first->sawCancel.load());
    int dropped = 0;
    for (const auto& args : finished)
        dropped += args[1].toBool() ? 0 : 1;
    QCOMPARE(dropped, 1);
}

void TestJobTracker::dropSetsTheCancelFlagAndShowsNothing()
{
    JobTracker jobs;
    QSignalSpy idle(&jobs, &JobTracker::idle);
    auto gate = std::make_shared<Gate>();
    bool shown = false;
    jobs.start(Job::Simplex, gatedWork(gate, 7), [&](int) { shown = true; });
    jobs.drop(Job::Simplex);
    QVERIFY(!jobs.isRunning(Job::Simplex));
    QVERIFY(idle.wait(10000));
    QVERIFY(gate->sawCancel.load());
    QVERIFY(!shown);
}

void TestJobTracker::kindsAreIndependent_data()
{
    QTest::addColumn<bool>("dropFollowUps");  // else start the other kind again
    QTest::newRow("a what-if started again leaves the search") << false;
    QTest::newRow("a new result drops the follow-ups, not the search") << true;
}

void TestJobTracker::kindsAreIndependent()
{
    QFETCH(bool, dropFollowUps);
    JobTracker jobs;
    QSignalSpy idle(&jobs, &JobTracker::idle);
    auto search = std::make_shared<Gate>();
    auto whatIf = std::make_shared<Gate>();
    QList<int> shown;
    jobs.start(Job::Search, gatedWork(search, 1), [&](int v) { shown << v; });
    jobs.start(Job::WhatIf, gatedWork(whatIf, 2), [&](int v) { shown << v; });
    if (dropFollowUps)
        jobs.dropFollowUps();
    else
        jobs.start(
            Job::WhatIf, [](const JobTracker::Ticket&) { return 3; }, [&](int v) { shown << v; });
    QVERIFY(jobs.isRunning(Job::Search));
    search->open.set_value();
    QVERIFY(idle.wait(10000));
    QVERIFY(whatIf->sawCancel.load());
    QVERIFY(!search->sawCancel.load());
    QVERIFY(shown.contains(1));
    QVERIFY(!shown.contains(2));
    QCOMPARE(shown.contains(3), !dropFollowUps);
}

void TestJobTracker::staleJobsCountUntilTheyReturn()
{
    // A stale what-if may still read the search's prediction store: the
    // window gives the next search a copy while running(WhatIf) > 0.
    JobTracker jobs;
    QSignalSpy idle(&jobs, &JobTracker::idle);
    auto gate = std::make_shared<Gate>();
    jobs.start(
        Job::WhatIf,
        [gate](const JobTracker::Ticket&) {
            gate->opened.wait();  // ignores its cancel flag
            return 0;
        },
        [](int) {});
    jobs.drop(Job::WhatIf);
    QVERIFY(!jobs.isRunning(Job::WhatIf));
    QCOMPARE(jobs.running(Job::WhatIf), 1);
    QCOMPARE(jobs.running(), 1);
    gate->open.set_value();
    QVERIFY(idle.wait(10000));
    QCOMPARE(jobs.running(Job::WhatIf), 0);
}

void TestJobTracker::destroyingWaitsForRunningJobs()
{
    auto gate = std::make_shared<Gate>();
    auto returned = std::make_shared<std::atomic<bool>>(false);
    {
        JobTracker jobs;
        jobs.start(
            Job::Ablation,
            [gate, returned](const JobTracker::Ticket& t) {
                const int v = gatedWork(gate, 1)(t);
                returned->store(true);
                return v;
            },
            [](int) { QFAIL("shown after the tracker was destroyed"); });
    }  // drops the job (its cancel flag ends it) and waits for it
    QVERIFY(returned->load());
    QVERIFY(gate->sawCancel.load());
}

MEMX_TEST_MAIN(TestJobTracker)
}  // namespace tst_job_tracker

#include "tst_job_tracker.moc"
