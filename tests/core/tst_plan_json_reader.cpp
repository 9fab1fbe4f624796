// PlanJsonReader: memx-plan/2 and memx-search/2 (and their /1) read back, and every bad
// file refused with file, JSON path and reason.
#include "TestInputErrors.h"
#include "TestPaths.h"
#include "TestRequests.h"

#include "export/PlanJson.h"
#include "export/LaunchFiles.h"
#include "export/PlanJsonReader.h"
#include "io/InputError.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

namespace tst_plan_json_reader {

using namespace memx;

namespace {

SearchRequest smallRequest()
{
    SearchRequest req = test::smallRequest();
    req.options.topK = 5;
    return req;
}

const SearchResult& searchResult()
{
    static const SearchResult r = SearchEngine::run(smallRequest());
    return r;
}

const nlohmann::json& searchDoc()
{
    static const nlohmann::json doc = PlanJson::search(smallRequest().problem, searchResult());
    return doc;
}

}  // namespace

class TestPlanJsonReader : public QObject {
    Q_OBJECT
private slots:
    void searchBestByDefault();
    void searchRank();
    void incompleteSearchSaysSoInExports();
    void planDocumentRoundTrip();
    void badDocument_data();
    void badDocument();
    void rangeOverride_data();
    void rangeOverride();
    void version1FilesRead();
};

void TestPlanJsonReader::searchBestByDefault()
{
    const auto& doc = searchDoc();
    QVERIFY(!doc.at("best").empty());
    PlanDocument d = PlanJsonReader::fromJson(doc, "s.json");
    QCOMPARE(d.format, std::string("memx-search/2"));
    QCOMPARE(d.rank, 1);
    QCOMPARE(d.predictor, std::string("analytic"));
    QCOMPARE(d.problem.model.numLayers, 24);  // test::smallRequest's model
    QCOMPARE(d.problem.cluster.deviceCount(), 6);  // 4 V100 + 2 T4
    QCOMPARE(d.problem.setup.globalBatch, 32);
    // "auto" is written resolved: V100 and T4 have no bf16, so the plan was predicted in fp16.
    QCOMPARE(doc.at("setup").at("precision").get<std::string>(), std::string("fp16"));
    QCOMPARE(d.problem.setup.precision, std::string("fp16"));
    const auto& best = doc.at("best").at(0);
    QCOMPARE(d.plan.tp, best.at("tp").get<int>());
    QCOMPARE(d.plan.pp, static_cast<int>(d.plan.stages.size()));
    QCOMPARE(d.plan.iterationMs, best.at("iteration_ms").get<double>());
    int layers = 0;
    for (std::size_t i = 0; i < d.plan.stages.size(); ++i) {
        const auto& s = d.plan.stages[i];
        QCOMPARE(s.groupName, best.at("stages").at(i).at("group").get<std::string>());
        QCOMPARE(s.devices, best.at("stages").at(i).at("devices").get<std::vector<int>>());
        QCOMPARE(s.memory.totalMiB(), best.at("stages").at(i).at("peak_mib").get<double>());
        QCOMPARE(s.firstLayer, layers);
        layers += s.layers;
    }
    QCOMPARE(layers, 24);
}

void TestPlanJsonReader::searchRank()
{
    const auto& doc = searchDoc();
    const int n = static_cast<int>(doc.at("best").size());
    QVERIFY(n >= 2);
    PlanDocument d = PlanJsonReader::fromJson(doc, "s.json", 2);
    QCOMPARE(d.rank, 2);
    QCOMPARE(d.plan.key, doc.at("best").at(1).at("key").get<std::uint64_t>());
    try {
        PlanJsonReader::fromJson(doc, "s.json", n + 1);
        QFAIL("rank beyond the list accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.field(), std::string("--rank"));
        QVERIFY2(std::string(e.reason()).find(std::to_string(n) + " ranked plans") != std::string::npos, e.what());
    }
}

// A search stopped early (stopEarly before the first pass: a counted but
// unranked search has no plan, so stop at the rank pass instead) carries
// "incomplete" into the plan document and every exported header.
void TestPlanJsonReader::incompleteSearchSaysSoInExports()
{
    QVERIFY(searchDoc().at("complete").get<bool>());
    QVERIFY(!searchDoc().contains("incomplete"));
    QVERIFY(PlanJsonReader::fromJson(searchDoc(), "s.json").incomplete.empty());
    SearchRequest req = smallRequest();
    bool ranking = false;
    req.options.stopEarly = [&] { return ranking; };
    const SearchResult r = SearchEngine::run(req, [&](const SearchProgress& p) { ranking = ranking || p.phase == 2; });
    QVERIFY2(!r.incomplete.empty() && !r.best.empty(), r.error.c_str());
    const nlohmann::json doc = PlanJson::search(req.problem, r);
    QCOMPARE(doc.at("complete").get<bool>(), false);
    const PlanDocument d = PlanJsonReader::fromJson(doc, "s.json");
    QCOMPARE(d.incomplete, r.incomplete);
    const std::string header = LaunchFiles::header(d, "megatron");
    QVERIFY2(header.find("# INCOMPLETE SEARCH: " + r.incomplete + "; this is the best plan found so far")
                 != std::string::npos,
             header.c_str());
}

void TestPlanJsonReader::planDocumentRoundTrip()
{
    PlanDocument a = PlanJsonReader::fromJson(searchDoc(), "s.json", 2);
    SearchRequest req = smallRequest();
    nlohmann::json j = PlanJson::planDocument(req.problem, a.predictor, a.plan);
    QCOMPARE(j.at("format").get<std::string>(), std::string("memx-plan/2"));
    PlanDocument b = PlanJsonReader::fromJson(j, "p.json");
    QCOMPARE(b.format, std::string("memx-plan/2"));
    // Read back, every plan is the search's own, field by field (not the
    // writer's output compared with itself: a field the reader dropped
    // would be dropped on both sides).
    const SearchResult& r = searchResult();
    QVERIFY(a.plan == r.best[1]);
    QVERIFY(b.plan == r.best[1]);
    for (std::size_t k = 0; k < r.best.size(); ++k)
        QVERIFY2(PlanJsonReader::fromJson(searchDoc(), "s.json", static_cast<int>(k) + 1).plan == r.best[k],
                 qPrintable(QString("rank %1").arg(k + 1)));
    QCOMPARE(b.problem.cluster.toJson(), a.problem.cluster.toJson());
    QCOMPARE(b.problem.model.toJson(), a.problem.model.toJson());
    QVERIFY(b.problem.setup == a.problem.setup);
}

void TestPlanJsonReader::badDocument_data()
{
    QTest::addColumn<QString>("edit");  // JSON pointer to change ("" = whole doc)
    QTest::addColumn<QString>("value");  // JSON value, or "DELETE"
    QTest::addColumn<QString>("field");  // expected InputError::field()
    QTest::addColumn<QString>("reason");  // substring of the reason
    QTest::newRow("not an object") << ""
                                   << "[1,2]"
                                   << "/"
                                   << "expected a JSON object";
    QTest::newRow("unknown format") << "/format"
                                    << "\"memx-cluster/1\""
                                    << "/format"
                                    << "memx-plan/2";
    QTest::newRow("no cluster") << "/cluster"
                                << "DELETE"
                                << "/cluster"
                                << "missing";
    QTest::newRow("bad cluster gpu") << "/cluster/nodes/0/gpus/0/type"
                                     << "\"A1000\""
                                     << "/cluster/nodes/0/gpus/0/type"
                                     << "unknown GPU type";
    QTest::newRow("bad model layers") << "/model/num_layers"
                                      << "0"
                                      << "/model/num_layers"
                                      << "must be greater than 0";
    QTest::newRow("no best") << "/best"
                             << "[]"
                             << "/best"
                             << "no ranked plan";
    QTest::newRow("tp not an integer") << "/best/0/tp"
                                       << "\"two\""
                                       << "/best/0/tp"
                                       << "expected an integer";
    QTest::newRow("unknown group") << "/best/0/stages/0/group"
                                   << "\"nowhere\""
                                   << "/best/0/stages/0/group"
                                   << "no device group";
    QTest::newRow("device outside group") << "/best/0/stages/0/devices/0"
                                          << "99"
                                          << "/best/0/stages/0/devices"
                                          << "is not a device of group";
    QTest::newRow("layers do not add up") << "/best/0/stages/0/layers"
                                          << "1"
                                          << "/best/0/stages"
                                          << "add up to";
    QTest::newRow("unknown recompute") << "/best/0/stages/0/recompute"
                                       << "\"half\""
                                       << "/best/0/stages/0/recompute"
                                       << "none, selective or full";
    QTest::newRow("G inconsistent") << "/best/0/micro_batch_count"
                                    << "3"
                                    << "/best/0/micro_batch_count"
                                    << "micro_batch_count x dp x micro_batch";
    // Version 1's name for G beside version 2's is ambiguous.
    QTest::newRow("G spelled twice") << "/best/0/micro_batches"
                                     << "16"
                                     << "/best/0/micro_batches"
                                     << "give micro_batch_count only";
    QTest::newRow("unknown schedule") << "/best/0/schedule"
                                      << "\"zb\""
                                      << "/best/0/schedule"
                                      << "1f1b or interleaved";
    QTest::newRow("stages missing") << "/best/0/stages"
                                    << "DELETE"
                                    << "/best/0/stages"
                                    << "missing";
    QTest::newRow("precision") << "/setup/precision"
                               << "\"fp4\""
                               << "/setup/precision"
                               << "unknown precision";
    QTest::newRow("gather overlap alone") << "/setup/overlap_param_gather"
                                          << "true"
                                          << "/setup/overlap_param_gather"
                                          << "needs overlap_grad_reduce";
    QTest::newRow("attention dropout 1.5") << "/setup/attention_dropout"
                                           << "1.5"
                                           << "/setup/attention_dropout"
                                           << "must be in [0, 1)";
    QTest::newRow("hidden dropout negative") << "/setup/hidden_dropout"
                                             << "-0.1"
                                             << "/setup/hidden_dropout"
                                             << "must be in [0, 1)";
    // Issue #14: truncation before narrowing, negative and absurd results.
    QTest::newRow("device 2^32") << "/best/0/stages/0/devices/0"
                                 << "4294967296"
                                 << "/best/0/stages/0/devices/0"
                                 << "between 0 and 2147483647";
    QTest::newRow("negative iteration_ms") << "/best/0/iteration_ms"
                                           << "-0.5"
                                           << "/best/0/iteration_ms"
                                           << "must be greater than 0 (got -0.5 ms)";
    QTest::newRow("negative max_mem_mib") << "/best/0/max_mem_mib"
                                          << "-5"
                                          << "/best/0/max_mem_mib"
                                          << "must be greater than 0 (got -5 MiB)";
    QTest::newRow("iteration 1e302 ms") << "/best/0/iteration_ms"
                                        << "1e302"
                                        << "/best/0/iteration_ms"
                                        << "outside the plausible range 0.001-1000000000 ms";
    QTest::newRow("idle_gpus 2^32") << "/best/0/idle_gpus"
                                    << "4294967296"
                                    << "/best/0/idle_gpus"
                                    << "between 0 and 2147483647";
    QTest::newRow("negative rank_phi") << "/best/0/rank_phi"
                                       << "-1"
                                       << "/best/0/rank_phi"
                                       << "must not be negative";
}

void TestPlanJsonReader::badDocument()
{
    QFETCH(QString, edit);
    QFETCH(QString, value);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    nlohmann::json doc = searchDoc();
    const std::string ptr = edit.toStdString();
    if (ptr.empty())
        doc = nlohmann::json::parse(value.toStdString());
    else if (value == "DELETE")
        doc.at(nlohmann::json::json_pointer(ptr).parent_pointer()).erase(nlohmann::json::json_pointer(ptr).back());
    else
        doc[nlohmann::json::json_pointer(ptr)] = nlohmann::json::parse(value.toStdString());
    test::expectInputError([&] { PlanJsonReader::fromJson(doc, "bad.json"); }, "bad.json", field, reason);
}

void TestPlanJsonReader::rangeOverride_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("value");
    QTest::newRow("iteration_ms") << "/best/0/iteration_ms"
                                  << "2e9";
    QTest::newRow("max_mem_mib") << "/best/0/max_mem_mib"
                                 << "2e6";
}

void TestPlanJsonReader::rangeOverride()
{
    // A plan's real outlier is accepted with "allow_outside_range" on the plan.
    QFETCH(QString, edit);
    QFETCH(QString, value);
    nlohmann::json doc = searchDoc();
    doc[nlohmann::json::json_pointer(edit.toStdString())] = nlohmann::json::parse(value.toStdString());
    test::expectInputError([&] { PlanJsonReader::fromJson(doc, "big.json"); }, "big.json", edit, "allow_outside_range");
    doc["best"][0]["allow_outside_range"] = true;
    QCOMPARE(PlanJsonReader::fromJson(doc, "big.json").plan.iterationMs, doc["best"][0]["iteration_ms"].get<double>());
}

void TestPlanJsonReader::version1FilesRead()
{
    // Written by MemX before 2026-12-06 (tests/data/formats_v1/, from the fuzz
    // corpus): 2 x 4 A100 plans with "max_pp": 4, "micro_batches": [1] in the
    // setup and the plan's G as "micro_batches": 16 = 32 / (DP 2 x mbs 1).
    const PlanDocument plan = PlanJsonReader::read(test::dataFile("formats_v1/plan.json"));
    QCOMPARE(plan.format, std::string("memx-plan/1"));
    QCOMPARE(plan.plan.microBatchCount, 16);
    QCOMPARE(plan.problem.setup.maxPipelineStages, 4);
    QCOMPARE(plan.problem.setup.microBatchSizes, std::vector<int>{1});
    const PlanDocument search = PlanJsonReader::read(test::dataFile("formats_v1/search.json"));
    QCOMPARE(search.format, std::string("memx-search/1"));
    QCOMPARE(search.plan.microBatchCount, 16);
    QCOMPARE(search.problem.setup.globalBatch, 32);
    // What this version writes reads back the same.
    const nlohmann::json again = PlanJson::planDocument(plan.problem, plan.predictor, plan.plan);
    QCOMPARE(again.at("format").get<std::string>(), std::string("memx-plan/2"));
    QCOMPARE(again.at("micro_batch_count").get<int>(), 16);
    const PlanDocument back = PlanJsonReader::fromJson(again, "again.json");
    QVERIFY(back.problem.setup == plan.problem.setup);
    QVERIFY(back.plan == plan.plan);
}

MEMX_TEST_APPLESS_MAIN(TestPlanJsonReader)
}  // namespace tst_plan_json_reader

#include "tst_plan_json_reader.moc"
