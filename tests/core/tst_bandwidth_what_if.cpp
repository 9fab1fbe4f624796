// What-if bandwidth (issue #13, item 6): scenario files are read strictly;
// a plan re-timed on a scaled network changes by exactly what its hops and
// collectives cost at the new bandwidth (hand arithmetic on MemX Table 1's
// pair); re-planning never does worse than keeping the plan and takes its
// compute from the prediction store; the robust ranking ranks by the worst
// (mean) time.
#include "TestPaths.h"
#include "TestRequests.h"

#include "hardware/BandwidthScenarioFile.h"
#include "io/InputError.h"
#include "predict/PredictionStore.h"
#include "search/BandwidthWhatIf.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <algorithm>

namespace tst_bandwidth_what_if {

using namespace memx;

class TestBandwidthWhatIf : public QObject {
    Q_OBJECT
private slots:
    void readsTheSampleScenarios();
    void refusesBadFiles_data();
    void refusesBadFiles();
    void factorsPerLink();
    void hopTimeByHand();
    void replanningAndTheStore();
    void robustRanking();
    void alikeScenariosArePlannedOnce();
    void timeLimitBoundsTheWhatIf();

private:
    test::SearchOnce paper20_;  // the base search of the cases that re-plan or rank it
};

namespace {

Cluster paper20() { return Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json")); }

SearchRequest request(const char* cluster, int gbs)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = gbs;
    req.problem.setup.allowIdleGpus = false;
    // The scenarios' replanning is the subject, on the uniform space the cases
    // were written for (per type, the sanitizer stage's run went 2x longer;
    // tst_cli's what-if runs plan per type).
    req.problem.setup.meshes = MeshMode::Uniform;
    req.options.threads = 2;
    req.store = std::make_shared<PredictionStore>();
    return req;
}

}  // namespace

void TestBandwidthWhatIf::readsTheSampleScenarios()
{
    const auto list = BandwidthScenarioFile::load(test::sampleCluster("scenarios/paper-20gpu-network.json"), paper20());
    QCOMPARE(list.size(), std::size_t(3));
    QCOMPARE(list[0].name, std::string("InfiniBand at 50%"));
    QVERIFY(!list[0].timeProfile());
    QCOMPARE(list[0].segments.front().scales.front().factor, 0.5);
    QVERIFY(list[2].timeProfile());
    QCOMPARE(list[2].segments.size(), std::size_t(3));
    for (const auto& seg : list[2].segments)
        QCOMPARE(seg.share, 1.0 / 3);  // three 20-minute segments
    QCOMPARE(BandwidthScenario::describe(list[2].segments[1].scales), std::string("medium inter-node x0.4"));
    QCOMPARE(BandwidthScenario::describe(list[2].segments[0].scales), std::string("as described"));
}

void TestBandwidthWhatIf::refusesBadFiles_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");  // in the message, after the file name
    const QString head = QStringLiteral(R"({"format": "memx-bandwidth-scenarios/1", "scenarios": [)");
    QTest::newRow("unknown kind") << head + R"({"name": "a", "scale": {"kind:Carrier-Pigeon": 0.5}}]})"
                                  << "/scenarios/0/scale/kind:Carrier-Pigeon: unknown link kind";
    QTest::newRow("kind not in the cluster") << head + R"({"name": "a", "scale": {"kind:RoCE": 0.5}}]})"
                                             << "has no RoCE link";
    QTest::newRow("no such link") << head + R"({"name": "a", "scale": {"link:nope": 0.5}}]})"
                                  << "has no link named \"nope\"";
    QTest::newRow("no such medium") << head + R"({"name": "a", "scale": {"medium:nope": 0.5}}]})"
                                    << "has no shared medium named \"nope\"";
    QTest::newRow("not a selector") << head + R"({"name": "a", "scale": {"InfiniBand": 0.5}}]})"
                                    << "is not kind:NAME, link:NAME or medium:NAME";
    QTest::newRow("factor zero") << head + R"({"name": "a", "scale": {"kind:InfiniBand": 0}}]})"
                                 << "/scenarios/0/scale/kind:InfiniBand: must be greater than 0";
    QTest::newRow("factor too large") << head + R"({"name": "a", "scale": {"kind:InfiniBand": 50}}]})"
                                      << "0.01-10";
    QTest::newRow("factor not a number") << head + R"({"name": "a", "scale": {"kind:InfiniBand": "half"}}]})"
                                         << "/scenarios/0/scale/kind:InfiniBand: expected a number";
    QTest::newRow("both scale and profile")
        << head + R"({"name": "a", "scale": {}, "profile": [{"minutes": 1, "scale": {}}]}]})"
        << "not both";
    QTest::newRow("neither") << head + R"({"name": "a"}]})"
                             << "not neither";
    QTest::newRow("duplicate name") << head + R"({"name": "a", "scale": {}}, {"name": "a", "scale": {}}]})"
                                    << "a second scenario named \"a\"";
    QTest::newRow("no scenarios") << head + R"(]})"
                                  << "expected a non-empty array of scenarios";
    QTest::newRow("segment of zero minutes") << head + R"({"name": "a", "profile": [{"minutes": 0, "scale": {}}]}]})"
                                             << "/scenarios/0/profile/0/minutes: must be greater than 0";
    QTest::newRow("wrong format") << QStringLiteral(R"({"format": "memx-cluster/1", "scenarios": []})")
                                  << "unsupported format";
}

void TestBandwidthWhatIf::refusesBadFiles()
{
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
        BandwidthScenarioFile::fromJson(nlohmann::json::parse(json.toStdString()), "what-if.json", paper20());
        QFAIL("accepted");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(QStringLiteral("what-if.json")) && what.contains(expected), qPrintable(what));
    }
}

// Scales multiply where selectors overlap; unmatched links keep factor 1.
void TestBandwidthWhatIf::factorsPerLink()
{
    const Cluster c = paper20();
    const std::vector<double> f
        = BandwidthScenario::factors(c, {{"kind:InfiniBand", 0.5}, {"link:ib-vb-vc", 0.5}, {"link:b-switch0", 0.25}});
    for (std::size_t i = 0; i < c.links().size(); ++i) {
        const std::string& name = c.links()[i].name;
        const double expected = name == "ib-vb-vc"      ? 0.25
            : name == "b-switch0"                       ? 0.25
            : c.links()[i].kind == LinkKind::InfiniBand ? 0.5
                                                        : 1.0;
        QCOMPARE(f[i], expected);
    }
    const Cluster scaled = BandwidthScenario::apply(c, {{"kind:InfiniBand", 0.5}});
    QCOMPARE(scaled.links().back().bandwidthGBps, c.links().back().bandwidthGBps * 0.5);
}

// MemX Table 1's pair, one card per stage (TP 1, DP 1), joined by host-staged
// PCIe at 16 GB/s and 10 us. A micro-batch's boundary activation is 1 x 4096
// tokens x 4096 hidden x 2 bytes = 33,554,432 B: 2.097152 ms + 0.01 ms per
// hop. The iteration crosses the hop twice per pipeline fill (forward and
// backward), so halving the link adds 2 x 2.097152 = 4.194304 ms; nothing
// else depends on it (no TP or DP communication).
void TestBandwidthWhatIf::hopTimeByHand()
{
    SearchRequest req = request("paper-table1-xy.json", 32);
    req.problem.setup.microBatchSizes = {1};
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const Plan& plan = r.best.front();
    QCOMPARE(plan.pp, 2);
    QCOMPARE(plan.tp, 1);
    QVERIFY(std::abs(plan.hopMs.at(0) - 2.107152) < 1e-9);
    const Cluster half = BandwidthScenario::apply(req.problem.cluster, {{"kind:PCIe", 0.5}});
    const double t = BandwidthWhatIf::retime(req, half, plan);
    QVERIFY2(std::abs(t - plan.iterationMs - 4.194304) < 1e-6,
             qPrintable(QStringLiteral("%1 -> %2 ms").arg(plan.iterationMs, 0, 'f', 6).arg(t, 0, 'f', 6)));
    // As described: the same time to the last digit.
    QCOMPARE(BandwidthWhatIf::retime(req, req.problem.cluster, plan), plan.iterationMs);
}

void TestBandwidthWhatIf::replanningAndTheStore()
{
    const SearchResult& r = paper20_.run([] { return request("paper-20gpu-3vendor.json", 128); });
    const SearchRequest& req = paper20_.request;
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(req.store->size() > 0);
    const auto scenarios
        = BandwidthScenarioFile::load(test::sampleCluster("scenarios/paper-20gpu-network.json"), req.problem.cluster);
    BandwidthWhatIf::Options o;
    const auto w = BandwidthWhatIf::run(req, r, scenarios, o);
    QCOMPARE(w.scenarios.size(), scenarios.size());
    const Plan& plan1 = r.best.front();
    for (const auto& s : w.scenarios) {
        QVERIFY2(s.nominalBestMs >= plan1.iterationMs * (1 - 1e-12), s.name.c_str());  // slower links never help
        QCOMPARE(s.segments.size(), scenarios[static_cast<std::size_t>(&s - w.scenarios.data())].segments.size());
        double weighted = 0;
        for (const auto& seg : s.segments) {
            QVERIFY2(seg.error.empty(), seg.error.c_str());
            weighted += seg.share * seg.nominalBestMs;
            // The search on the scaled network is exact: it never does worse than keeping plan 1.
            QVERIFY2(seg.plan.phi <= seg.keepPhi * (1 + 1e-12), seg.description.c_str());
            if (seg.samePlan)
                QCOMPARE(seg.plan.iterationMs, seg.nominalBestMs);
            // Only the inter-node and switch links change: no TP link, no predictor call.
            QCOMPARE(seg.predictorCalls, std::uint64_t(0));
            if (seg.description == "as described") {
                QVERIFY(seg.samePlan);
                QCOMPARE(seg.nominalBestMs, plan1.iterationMs);
            }
        }
        QVERIFY(std::abs(weighted - s.nominalBestMs) < 1e-9 * weighted);
    }
}

void TestBandwidthWhatIf::robustRanking()
{
    const SearchResult& r = paper20_.run([] { return request("paper-20gpu-3vendor.json", 128); });
    const SearchRequest& req = paper20_.request;
    QVERIFY2(r.error.empty(), r.error.c_str());
    const auto scenarios
        = BandwidthScenarioFile::load(test::sampleCluster("scenarios/paper-20gpu-network.json"), req.problem.cluster);
    for (auto mode : {BandwidthWhatIf::Robust::Worst, BandwidthWhatIf::Robust::Mean}) {
        BandwidthWhatIf::Options o;
        o.robust = mode;
        o.replan = false;
        o.topK = 20;
        const auto w = BandwidthWhatIf::run(req, r, scenarios, o);
        QVERIFY(w.candidates > 100);
        QCOMPARE(w.robustPlans.size(), std::size_t(20));
        for (std::size_t i = 0; i < w.robustPlans.size(); ++i) {
            const auto& rp = w.robustPlans[i];
            QCOMPARE(rp.scenarioMs.size(), scenarios.size());
            const double worst = *std::max_element(rp.scenarioMs.begin(), rp.scenarioMs.end());
            double mean = 0;
            for (double t : rp.scenarioMs)
                mean += t / rp.scenarioMs.size();
            QCOMPARE(rp.robustMs, mode == BandwidthWhatIf::Robust::Worst ? worst : mean);
            QCOMPARE(rp.scenarioMs[rp.worst], worst);
            QVERIFY(rp.robustMs >= rp.plan.iterationMs * (1 - 1e-12));  // every scenario here slows links down
            if (i > 0)
                QVERIFY(w.robustPlans[i - 1].robustPhi <= rp.robustPhi);
        }
        // No plan appears twice.
        for (std::size_t i = 0; i < w.robustPlans.size(); ++i)
            for (std::size_t j = i + 1; j < w.robustPlans.size(); ++j)
                QVERIFY(w.robustPlans[i].plan.key != w.robustPlans[j].plan.key);
    }
}

// Fifty copies of one scenario are one problem: planned once, each copy
// with the first's answer.
void TestBandwidthWhatIf::alikeScenariosArePlannedOnce()
{
    const SearchResult& r = paper20_.run([] { return request("paper-20gpu-3vendor.json", 128); });
    const SearchRequest& req = paper20_.request;
    QVERIFY2(r.error.empty(), r.error.c_str());
    const auto file
        = BandwidthScenarioFile::load(test::sampleCluster("scenarios/paper-20gpu-network.json"), req.problem.cluster);
    const BandwidthWhatIf::Result one = BandwidthWhatIf::run(req, r, {file.front()}, {});
    std::vector<BandwidthScenario> copies(50, file.front());
    for (std::size_t i = 0; i < copies.size(); ++i)
        copies[i].name = "copy " + std::to_string(i);
    const BandwidthWhatIf::Result many = BandwidthWhatIf::run(req, r, copies, {});
    QCOMPARE(many.replans, one.replans);
    QVERIFY(one.replans >= 1 && one.replans <= file.front().segments.size());
    QVERIFY(many.incomplete.empty());
    for (const auto& s : many.scenarios) {
        QCOMPARE(s.nominalBestMs, one.scenarios.front().nominalBestMs);
        for (std::size_t g = 0; g < s.segments.size(); ++g) {
            const auto& a = s.segments[g];
            const auto& b = one.scenarios.front().segments[g];
            QCOMPARE(a.description, b.description);
            QCOMPARE(a.plan.iterationMs, b.plan.iterationMs);
            QCOMPARE(a.samePlan, b.samePlan);
            QCOMPARE(a.keepPhi, b.keepPhi);
        }
    }
}

// --time-limit bounds the what-if too: with no time left nothing is
// re-planned or ranked, and the result says so.
void TestBandwidthWhatIf::timeLimitBoundsTheWhatIf()
{
    const SearchResult& r = paper20_.run([] { return request("paper-20gpu-3vendor.json", 128); });
    const SearchRequest& req = paper20_.request;
    QVERIFY2(r.error.empty(), r.error.c_str());
    const auto scenarios
        = BandwidthScenarioFile::load(test::sampleCluster("scenarios/paper-20gpu-network.json"), req.problem.cluster);
    BandwidthWhatIf::Options o;
    o.robust = BandwidthWhatIf::Robust::Worst;
    o.timeLimitS = 1e-9;
    const auto w = BandwidthWhatIf::run(req, r, scenarios, o);
    QCOMPARE(w.replans, std::size_t(0));
    QVERIFY2(w.incomplete.find("not re-planned") != std::string::npos, w.incomplete.c_str());
    QVERIFY2(w.incomplete.find("not ranked robustly") != std::string::npos, w.incomplete.c_str());
    QVERIFY(w.robustPlans.empty());
    for (const auto& s : w.scenarios) {
        QVERIFY(s.nominalBestMs > 0);  // plan 1's own time under each scenario is still there
        for (const auto& seg : s.segments)
            QVERIFY2(seg.error.find("time limit") != std::string::npos, seg.error.c_str());
    }
}

MEMX_TEST_GUILESS_MAIN(TestBandwidthWhatIf)
}  // namespace tst_bandwidth_what_if

#include "tst_bandwidth_what_if.moc"
