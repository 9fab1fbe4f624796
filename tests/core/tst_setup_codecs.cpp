// The one JSON codec of each value the files share (issue #34 item 3):
// TrainingSetup (plan, search and project files) and ObjectiveSpec (project
// files). A value written reads back equal, field by field (operator==), with
// every field away from its default; one spelling per field; the spellings of
// version-1 files still read; a bad value is refused naming its JSON path.
#include "TestPaths.h"

#include "io/InputError.h"
#include "io/JsonReader.h"
#include "search/Objective.h"
#include "search/ObjectiveSpecJson.h"
#include "space/TrainingSetup.h"
#include "space/TrainingSetupJson.h"

#include "TestMain.h"

namespace tst_setup_codecs {

using namespace memx;

namespace {

TrainingSetup unusualSetup()
{
    TrainingSetup s;
    s.globalBatch = 96;
    s.microBatchSizes = {1, 3};
    s.seqLens = {2048, 8192};
    s.queryGroups = {8};
    s.tensorParallel = {2, 4};
    s.maxPipelineStages = 12;
    s.minPipelineStages = 2;
    s.virtualStages = {2, 4};
    s.distributedOptimizer = false;
    s.overlapGradReduce = true;
    s.overlapParamGather = false;
    s.flashAttention = false;
    s.attentionDropout = 0.1;
    s.hiddenDropout = 0.05;
    s.sequenceParallel = false;
    s.precision = "fp16";
    s.schedule = ScheduleMode::Interleaved;
    s.recompute = RecomputeMode::Enumerate;
    s.placement = PlacementMode::All;
    s.meshes = MeshMode::PerType;
    s.allowIdleGpus = false;
    return s;
}

ObjectiveSpec unusualObjective()
{
    ObjectiveSpec o;
    o.profile = WeightProfile::Custom;
    o.custom = {0.5, 0.25, 0.25};
    o.variance = VarianceMode::Utilisation;
    o.epsilonRule = EpsilonRule::Absolute;
    o.epsilonValue = 4096;
    o.compareTasks = TaskCompare::PerToken;
    o.minHeadroom = 0.15;
    o.headroomAtUpper = true;
    o.maxSlowdown = 0.2;
    return o;
}

TrainingSetup readSetup(const nlohmann::json& j) { return TrainingSetupJson::read(JsonReader(j, "f.json", "/setup")); }

}  // namespace

class TestSetupCodecs : public QObject {
    Q_OBJECT
private slots:
    void setupRoundTrip();
    void setupOneSpellingPerField();
    void setupOlderSpellingsRead();
    void setupRefusals_data();
    void setupRefusals();
    void objectiveRoundTrip();
    void objectiveRefusals_data();
    void objectiveRefusals();
};

void TestSetupCodecs::setupRoundTrip()
{
    const TrainingSetup s = unusualSetup();
    QVERIFY(readSetup(TrainingSetupJson::write(s)) == s);
    QVERIFY(readSetup(TrainingSetupJson::write(TrainingSetup{})) == TrainingSetup{});
    // An outlier the user allowed reads back: the writer marks it.
    TrainingSetup big;
    big.globalBatch = 50000000;  // above the plausible 10,000,000
    const nlohmann::json j = TrainingSetupJson::write(big);
    QCOMPARE(j.at("allow_outside_range").get<bool>(), true);
    QCOMPARE(readSetup(j).globalBatch, 50000000);
}

void TestSetupCodecs::setupOneSpellingPerField()
{
    const nlohmann::json j = TrainingSetupJson::write(unusualSetup());
    for (const char* key : {"global_batch",
                            "micro_batch_sizes",
                            "seq_lens",
                            "query_groups",
                            "tensor_parallel",
                            "min_pipeline_stages",
                            "max_pipeline_stages",
                            "virtual_stages",
                            "distributed_optimizer",
                            "overlap_grad_reduce",
                            "overlap_param_gather",
                            "flash_attention",
                            "attention_dropout",
                            "hidden_dropout",
                            "sequence_parallel",
                            "precision",
                            "schedule",
                            "recompute",
                            "placement",
                            "meshes",
                            "allow_idle_gpus"})
        QVERIFY2(j.contains(key), key);
    for (const char* old : {"max_pp", "micro_batches"})
        QVERIFY2(!j.contains(old), old);
    QCOMPARE(j.size(), std::size_t(21));
}

void TestSetupCodecs::setupOlderSpellingsRead()
{
    // memx-plan/1 and memx-search/1 wrote max_pp and micro_batches.
    const TrainingSetup s = readSetup({{"global_batch", 32}, {"max_pp", 4}, {"micro_batches", {1}}});
    QCOMPARE(s.maxPipelineStages, 4);
    QCOMPARE(s.microBatchSizes, std::vector<int>{1});
    // An older key beside its new name is ambiguous.
    try {
        readSetup({{"global_batch", 32}, {"micro_batches", {1}}, {"micro_batch_sizes", {2}}});
        QFAIL("both spellings accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.field(), std::string("/setup/micro_batches"));
    }
}

void TestSetupCodecs::setupRefusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    QTest::newRow("global batch 0") << "global_batch"
                                    << "0"
                                    << "/setup/global_batch"
                                    << "";
    QTest::newRow("global batch 2^31") << "global_batch"
                                       << "2147483648"
                                       << "/setup/global_batch"
                                       << "";
    QTest::newRow("micro-batch 0") << "micro_batch_sizes"
                                   << "[1, 0]"
                                   << "/setup/micro_batch_sizes/1"
                                   << "";
    QTest::newRow("no micro-batch") << "micro_batch_sizes"
                                    << "[]"
                                    << "/setup/micro_batch_sizes"
                                    << "at least one";
    QTest::newRow("old spelling, no micro-batch") << "micro_batches"
                                                  << "[]"
                                                  << "/setup/micro_batches"
                                                  << "at least one";
    QTest::newRow("sequence 8") << "seq_lens"
                                << "[8]"
                                << "/setup/seq_lens"
                                << "at least 16";
    QTest::newRow("min above max") << "min_pipeline_stages"
                                   << "9"
                                   << "/setup/min_pipeline_stages"
                                   << "above max_pipeline_stages (8)";
    QTest::newRow("pipeline stages 5000") << "max_pipeline_stages"
                                          << "5000"
                                          << "/setup/max_pipeline_stages"
                                          << "";
    QTest::newRow("dropout 1") << "hidden_dropout"
                               << "1"
                               << "/setup/hidden_dropout"
                               << "[0, 1)";
    QTest::newRow("precision fp4") << "precision"
                                   << "\"fp4\""
                                   << "/setup/precision"
                                   << "unknown precision";
    QTest::newRow("param gather alone") << "overlap_param_gather"
                                        << "true"
                                        << "/setup/overlap_param_gather"
                                        << "";
    QTest::newRow("meshes all") << "meshes"
                                << "\"all\""
                                << "/setup/meshes"
                                << "uniform or per-type";
}

void TestSetupCodecs::setupRefusals()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    nlohmann::json j = TrainingSetupJson::write(TrainingSetup{});
    if (key == "micro_batches")
        j.erase("micro_batch_sizes");
    j[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        readSetup(j);
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QStringLiteral("f.json"));
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

void TestSetupCodecs::objectiveRoundTrip()
{
    const ObjectiveSpec o = unusualObjective();
    QVERIFY(ObjectiveSpecJson::read(JsonReader(ObjectiveSpecJson::write(o), "p.memx", "/objective")) == o);
    QVERIFY(ObjectiveSpecJson::read(JsonReader(ObjectiveSpecJson::write(ObjectiveSpec{}), "p.memx", "/objective"))
            == ObjectiveSpec{});
    // One spelling for the variance, the project's.
    QCOMPARE(ObjectiveSpecJson::write(o).at("variance").get<std::string>(), std::string("util"));
}

void TestSetupCodecs::objectiveRefusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::newRow("negative weights") << "custom_weights"
                                      << "[-1, 1, 1]"
                                      << "/objective/custom_weights";
    QTest::newRow("epsilon fraction 1") << "epsilon_fraction"
                                        << "1"
                                        << "/objective/epsilon_fraction";
    QTest::newRow("headroom 150%") << "min_headroom"
                                   << R"({"fraction": 1.5})"
                                   << "/objective/min_headroom/fraction";
    QTest::newRow("slowdown -1") << "max_slowdown"
                                 << "-1"
                                 << "/objective/max_slowdown";
    QTest::newRow("variance mib2") << "variance"
                                   << "\"mib2\""
                                   << "/objective/variance";
}

void TestSetupCodecs::objectiveRefusals()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, field);
    ObjectiveSpec custom;
    custom.profile = WeightProfile::Custom;
    nlohmann::json j = ObjectiveSpecJson::write(custom);
    j[key.toStdString()] = nlohmann::json::parse(value.toStdString());
    try {
        ObjectiveSpecJson::read(JsonReader(j, "p.memx", "/objective"));
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
    }
}

MEMX_TEST_APPLESS_MAIN(TestSetupCodecs)
}  // namespace tst_setup_codecs

#include "tst_setup_codecs.moc"
