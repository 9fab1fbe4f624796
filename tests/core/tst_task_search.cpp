// Issue #33, "tasks are not knobs": several sequence lengths or query groups
// are several training tasks. Per task, each is searched on its own (the
// same answer as searching it alone) and their bests stand side by side at
// the head of `best`; per token, one search ranks every plan by its time per
// token, and its fastest plan is the one with the most tokens per second of
// every task's whole feasible set.
#include "TestRequests.h"

#include "search/PlanCost.h"
#include "search/SearchEngine.h"
#include "search/TaskSearch.h"
#include "search/WeightSimplex.h"

#include "TestMain.h"

#include <set>

namespace tst_task_search {

using namespace memx;

namespace {

SearchRequest request(std::vector<int> seqs, std::vector<int> groups, TaskCompare compare = TaskCompare::PerTask)
{
    SearchRequest req = test::smallRequest();
    req.options.threads = 2;
    req.problem.setup.seqLens = std::move(seqs);
    req.problem.setup.queryGroups = std::move(groups);
    req.objective.compareTasks = compare;
    return req;
}

SearchResult alone(int seq, int groups) { return SearchEngine::run(request({seq}, {groups})); }

}  // namespace

class TestTaskSearch : public QObject {
    Q_OBJECT
private slots:
    void tasksOfARequest_data();
    void tasksOfARequest();
    void eachTaskIsItsOwnSearch_data();
    void eachTaskIsItsOwnSearch();
    void perTokenRanksTimePerToken();
    void aTaskWithoutPlanIsNamed();
};

void TestTaskSearch::tasksOfARequest_data()
{
    QTest::addColumn<std::vector<int>>("seqs");
    QTest::addColumn<std::vector<int>>("groups");
    QTest::addColumn<QStringList>("labels");
    // The model's own values when none are given: one task.
    QTest::newRow("none given") << std::vector<int>{} << std::vector<int>{} << QStringList{"seq 4096"};
    QTest::newRow("one of each") << std::vector<int>{2048} << std::vector<int>{8} << QStringList{"seq 2048"};
    QTest::newRow("two lengths, order kept")
        << std::vector<int>{4096, 1024} << std::vector<int>{} << QStringList{"seq 4096", "seq 1024"};
    QTest::newRow("a repeated value is one task")
        << std::vector<int>{1024, 1024} << std::vector<int>{} << QStringList{"seq 1024"};
    QTest::newRow("two group counts") << std::vector<int>{} << std::vector<int>{8, 32}
                                      << QStringList{"8 query groups", "32 query groups"};
    QTest::newRow("both") << std::vector<int>{1024, 2048} << std::vector<int>{8, 32}
                          << QStringList{"seq 1024, 8 query groups", "seq 1024, 32 query groups",
                                         "seq 2048, 8 query groups", "seq 2048, 32 query groups"};
}

void TestTaskSearch::tasksOfARequest()
{
    QFETCH(std::vector<int>, seqs);
    QFETCH(std::vector<int>, groups);
    QFETCH(QStringList, labels);
    const auto tasks = TaskSearch::tasks(request(seqs, groups));
    QStringList got;
    for (const auto& t : tasks)
        got << QString::fromStdString(t.label);
    QCOMPARE(got, labels);
}

void TestTaskSearch::eachTaskIsItsOwnSearch_data()
{
    QTest::addColumn<std::vector<int>>("seqs");
    QTest::addColumn<std::vector<int>>("groups");
    QTest::newRow("two sequence lengths") << std::vector<int>{1024, 4096} << std::vector<int>{32};
    QTest::newRow("two group counts") << std::vector<int>{2048} << std::vector<int>{32, 8};
}

void TestTaskSearch::eachTaskIsItsOwnSearch()
{
    QFETCH(std::vector<int>, seqs);
    QFETCH(std::vector<int>, groups);
    const SearchResult r = SearchEngine::run(request(seqs, groups));
    QVERIFY2(r.error.empty(), r.error.c_str());
    const auto tasks = TaskSearch::tasks(request(seqs, groups));
    QCOMPARE(r.tasks.size(), tasks.size());
    std::set<std::uint64_t> keys;
    for (const Plan& p : r.best)
        QVERIFY2(keys.insert(p.key).second, "two plans of the result share a key");
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const SearchResult one = alone(tasks[i].seqLen, tasks[i].queryGroups);
        QVERIFY2(one.error.empty(), one.error.c_str());
        const auto& t = r.tasks[i];
        QVERIFY(t.found);
        // Its own search: the same pick, Phi and references as searching it alone.
        QCOMPARE(t.plan.seqLen, tasks[i].seqLen);
        QCOMPARE(t.plan.queryGroups, tasks[i].queryGroups);
        QCOMPARE(t.plan.iterationMs, one.best.front().iterationMs);
        QCOMPARE(t.plan.layersString(), one.best.front().layersString());
        QCOMPARE(t.plan.shapeString(), one.best.front().shapeString());
        QCOMPARE(t.plan.phi, one.best.front().phi);
        QCOMPARE(t.references.time, one.references.time);
        QCOMPARE(t.references.variance, one.references.variance);
        QCOMPARE(t.fastestMs, one.fastest.front().iterationMs);
        // Side by side: the i-th entry of `best` is task i's best.
        QCOMPARE(t.bestIndex, i);
        QCOMPARE(r.best[i].key, t.plan.key);
        // The simplex map and the robust what-if re-rank the lead task's plans
        // only: its references are the result's.
        if (i == 0)
            for (const Plan& p : WeightSimplex::keptCandidates(r))
                QVERIFY(p.seqLen == t.seqLen && p.queryGroups == t.queryGroups);
        // Every plan's Phi is under its own task's references.
        for (const Plan& p : r.best)
            if (p.seqLen == t.seqLen && p.queryGroups == t.queryGroups)
                QCOMPARE(p.phi, Objective::phi(p.iterationMs, p.maxMemMiB, p.varMem, t.references, r.weights));
    }
}

void TestTaskSearch::perTokenRanksTimePerToken()
{
    const SearchResult r = SearchEngine::run(request({1024, 4096}, {}, TaskCompare::PerToken));
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(r.tasks.empty());  // one ranking
    QCOMPARE(r.compareTasks, TaskCompare::PerToken);
    // Each plan counts T x 4096 / its sequence length.
    std::set<int> seqs;
    for (const Plan& p : r.fastest) {
        seqs.insert(p.seqLen);
        QCOMPARE(p.rankScale, 4096.0 / p.seqLen);
    }
    // Sorted by tokens per second, most first.
    for (std::size_t i = 1; i < r.fastest.size(); ++i)
        QVERIFY(PlanCost::tokensPerSecond(r.fastest[i]) <= PlanCost::tokensPerSecond(r.fastest[i - 1]) * (1 + 1e-12));
    // The plan with the most tokens per second of both tasks' whole feasible sets.
    double most = 0;
    for (int seq : {1024, 4096}) {
        const SearchResult one = alone(seq, 32);
        QVERIFY(one.plotSampleComplete);
        for (const Plan& p : one.plotSample)
            most = std::max(most, PlanCost::tokensPerSecond(p));
    }
    QCOMPARE(PlanCost::tokensPerSecond(r.fastest.front()), most);
    // Phi counts the per-token time.
    const Plan& b = r.best.front();
    QCOMPARE(b.phi, Objective::phi(b.rankMs(), b.maxMemMiB, b.varMem, r.references, r.weights));
}

void TestTaskSearch::aTaskWithoutPlanIsNamed()
{
    // 32 heads do not split into 3 query groups: that task has no plan; the
    // other keeps its answer and the result says why the first has none.
    const SearchResult r = SearchEngine::run(request({2048}, {3, 8}));
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.tasks.size(), std::size_t(2));
    QVERIFY(!r.tasks[0].found);
    QVERIFY(!r.tasks[0].error.empty());
    QVERIFY(r.tasks[1].found);
    QCOMPARE(r.best.front().queryGroups, 8);
    QCOMPARE(r.tasks[1].bestIndex, std::size_t(0));
    bool named = false;
    for (const auto& n : r.notes)
        named = named || n.find("3 query groups: ") != std::string::npos;
    QVERIFY(named);
    // Neither task has a plan: the error names both.
    const SearchResult none = SearchEngine::run(request({2048}, {3, 5}));
    QVERIFY(!none.error.empty());
    QVERIFY(none.error.find("3 query groups") != std::string::npos);
    QVERIFY(none.error.find("5 query groups") != std::string::npos);
    QVERIFY(none.best.empty());
}

MEMX_TEST_GUILESS_MAIN(TestTaskSearch)
}  // namespace tst_task_search

#include "tst_task_search.moc"
