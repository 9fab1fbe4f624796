// The pool the search runs its passes on: every item exactly once on any
// number of threads, cancel stops handing out items, progress never goes
// back across passes, and background workers are batch threads that
// yield to the thread that started them (the workbench's GUI thread).
#include "search/WorkerPool.h"

#include "TestMain.h"

#include <atomic>
#include <mutex>
#include <new>
#include <numeric>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>

namespace tst_worker_pool {
#endif

using namespace memx;

class TestWorkerPool : public QObject {
    Q_OBJECT
private slots:
    void everyItemOnce_data();
    void everyItemOnce();
    void cancelStopsHandingOutItems();
    void aThrowingBodyStopsThePassAndThrowsOnTheCaller();
    void progressNeverGoesBack();
    void backgroundWorkersAreBatchThreads();
};

void TestWorkerPool::everyItemOnce_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("count");
    QTest::newRow("one thread") << 1 << 100;
    QTest::newRow("three threads") << 3 << 100;
    QTest::newRow("more threads than items") << 8 << 3;
    QTest::newRow("no items") << 2 << 0;
}

void TestWorkerPool::everyItemOnce()
{
    QFETCH(int, threads);
    QFETCH(int, count);
    std::vector<std::size_t> order(static_cast<std::size_t>(count));
    std::iota(order.rbegin(), order.rend(), 0);  // handed out last first
    const std::vector<ProgressEstimate::Item> items(order.size());
    std::vector<std::atomic<int>> seen(order.size());
    std::atomic<bool> badWorker{false};
    WorkerPool pool(threads, {}, {});
    pool.run(1, order, items, {}, [&](int worker, std::size_t item) {
        if (worker < 0 || worker >= threads)
            badWorker = true;  // no QVERIFY off the test's thread
        ++seen[item];
    });
    QVERIFY(!badWorker);
    for (const auto& s : seen)
        QCOMPARE(s.load(), 1);
    QVERIFY(!pool.stopped());
}

void TestWorkerPool::cancelStopsHandingOutItems()
{
    std::vector<std::size_t> order(10000);
    std::iota(order.begin(), order.end(), 0);
    const std::vector<ProgressEstimate::Item> items(order.size());
    std::atomic<int> done{0};
    std::atomic<bool> cancel{false};
    WorkerPool pool(2, {}, [&] { return cancel.load(); });
    pool.run(1, order, items, {}, [&](int, std::size_t) {
        if (++done == 50)
            cancel = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    QVERIFY(pool.stopped());
    // The monitor polls every 20 ms: a few dozen more items at 1 ms each, not 10,000.
    QVERIFY2(done.load() < 1000, qPrintable(QString::number(done.load())));
}

// An exception leaving a worker thread would end the program
// (std::terminate): the pool stops handing out items and throws the first
// one again on the calling thread (a search then reports std::bad_alloc as
// "not enough memory" instead of aborting).
void TestWorkerPool::aThrowingBodyStopsThePassAndThrowsOnTheCaller()
{
    std::vector<std::size_t> order(10000);
    std::iota(order.begin(), order.end(), 0);
    const std::vector<ProgressEstimate::Item> items(order.size());
    std::atomic<int> done{0};
    WorkerPool pool(2, {}, {});
    bool caught = false;
    try {
        pool.run(1, order, items, {}, [&](int, std::size_t item) {
            if (item == 20)
                throw std::bad_alloc();
            ++done;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    } catch (const std::bad_alloc&) {
        caught = true;
    }
    QVERIFY(caught);
    QVERIFY(pool.stopped());
    // The other worker ends its item and takes no more: a few dozen, not 10,000.
    QVERIFY2(done.load() < 1000, qPrintable(QString::number(done.load())));
}

void TestWorkerPool::progressNeverGoesBack()
{
    std::vector<std::size_t> order(40);
    std::iota(order.begin(), order.end(), 0);
    const std::vector<ProgressEstimate::Item> items(order.size());
    std::mutex m;
    std::vector<int> permille;
    std::thread::id caller = std::this_thread::get_id();
    bool offThread = false;
    WorkerPool pool(2,
                    [&](const SearchProgress& p) {
                        std::lock_guard<std::mutex> lock(m);
                        permille.push_back(p.permille);
                        offThread = offThread || std::this_thread::get_id() != caller;
                    },
                    {});
    pool.run(1, order, items, {.estimable = false, .toPermille = 500},
             [](int, std::size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
    pool.run(2, order, items, {}, [](int, std::size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); });
    QVERIFY(!permille.empty());  // 2 x 40 x 5 ms on 2 threads: about 200 ms, reported every 100 ms
    QVERIFY(!offThread);  // progress comes from the thread that called run()
    for (std::size_t i = 0; i < permille.size(); ++i) {
        QVERIFY(permille[i] >= 0 && permille[i] <= 1000);
        if (i > 0)
            QVERIFY(permille[i] >= permille[i - 1]);  // across passes too
    }
}

void TestWorkerPool::backgroundWorkersAreBatchThreads()
{
#if defined(__linux__)
    auto policyOfThisThread = [] {
        int policy = -1;
        sched_param p{};
        pthread_getschedparam(pthread_self(), &policy, &p);
        return policy;
    };
    const int mine = policyOfThisThread();
    QCOMPARE(mine, SCHED_OTHER);
    const std::vector<std::size_t> order{0, 1, 2, 3};
    const std::vector<ProgressEstimate::Item> items(order.size());
    for (bool background : {false, true}) {
        std::atomic<int> batch{0}, other{0};
        WorkerPool pool(2, {}, {}, background);
        pool.run(1, order, items, {},
                 [&](int, std::size_t) { ++(policyOfThisThread() == SCHED_BATCH ? batch : other); });
        QCOMPARE(batch.load(), background ? 4 : 0);
        QCOMPARE(other.load(), background ? 0 : 4);
    }
    QCOMPARE(policyOfThisThread(), mine);  // the caller keeps its policy
#else
    QSKIP("thread policies are only changed on Linux");
#endif
}

MEMX_TEST_GUILESS_MAIN(TestWorkerPool)
}  // namespace tst_worker_pool

#include "tst_worker_pool.moc"
