// Project files (memx-project/2; /1 still opens) refuse what memx-cli refuses, naming the
// file and the JSON path (issue #14): the objective's weights and epsilon,
// wrong JSON types, integers that do not fit in an int.
#include "TestInputErrors.h"
#include "TestPaths.h"

#include "ProjectFile.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"

#include "TestMain.h"

namespace tst_project_file {

using namespace memx;

namespace {

nlohmann::json projectDoc()
{
    Project p;
    p.cluster = Cluster::fromFile(test::sampleCluster("homogeneous-8xa100.json")).toJson();
    p.model = ModelSpec::resolve("llama2-7b").toJson();
    p.setup.globalBatch = 64;
    p.setup.microBatchSizes = {1, 2};
    return p.toJson();
}

nlohmann::json edited(const QString& edit, const QString& value)
{
    nlohmann::json doc = projectDoc();
    doc[nlohmann::json::json_pointer(edit.toStdString())] = nlohmann::json::parse(value.toStdString());
    return doc;
}

}  // namespace

class TestProjectFile : public QObject {
    Q_OBJECT
private slots:
    void goodProjectLoads();
    void bundledProjectLoads();
    void badProject_data();
    void badProject();
    void rangeOverride();
    void constraintsAndBalancedRoundTrip();
    void meshModeRoundTrip();
    void epsilonRuleRoundTrip();
    void compareTasksRoundTrip();
    void version1ProjectOpens();
};

void TestProjectFile::goodProjectLoads()
{
    const Project p = Project::fromJson(projectDoc(), "good.memx");
    QCOMPARE(p.setup.globalBatch, 64);
    QCOMPARE(p.objective.custom.time, 0.4);
}

// The project scripts/screenshots opens for the Baselines tab: Table 1's
// pair, every per-stage recomputation combination.
void TestProjectFile::bundledProjectLoads()
{
    const Project p = Project::load(test::sampleCluster("projects/table1-baselines.memx"));
    QCOMPARE(p.setup.globalBatch, 64);
    QCOMPARE(p.setup.recompute, RecomputeMode::Enumerate);
    QCOMPARE(p.model.at("num_layers").get<int>(), 32);
}

void TestProjectFile::badProject_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    // What `memx-cli search --weights` and `--eps` refuse.
    QTest::newRow("negative weights") << "/objective/custom_weights"
                                      << "[-1,-1,-1]"
                                      << "/objective/custom_weights"
                                      << "weights must not be negative";
    QTest::newRow("zero weights") << "/objective/custom_weights"
                                  << "[0,0,0]"
                                  << "/objective/custom_weights"
                                  << "at least one weight must be positive";
    QTest::newRow("weight not a number") << "/objective/custom_weights"
                                         << "[\"a\",1,2]"
                                         << "/objective/custom_weights/0"
                                         << "expected a number";
    QTest::newRow("two weights") << "/objective/custom_weights"
                                 << "[1,2]"
                                 << "/objective/custom_weights"
                                 << "three weights";
    QTest::newRow("epsilon -5") << "/objective/epsilon_fraction"
                                << "-5"
                                << "/objective/epsilon_fraction"
                                << "(0, 1)";
    QTest::newRow("epsilon 1") << "/objective/epsilon_fraction"
                               << "1"
                               << "/objective/epsilon_fraction"
                               << "(0, 1)";
    // Integers are range-checked before narrowing.
    QTest::newRow("global batch 2^32") << "/setup/global_batch"
                                       << "4294967296"
                                       << "/setup/global_batch"
                                       << "too large";
    QTest::newRow("micro-batch 2^32+1") << "/setup/micro_batch_sizes"
                                        << "[4294967297]"
                                        << "/setup/micro_batch_sizes/0"
                                        << "between 1 and 2147483647";
    QTest::newRow("micro-batch a string") << "/setup/micro_batch_sizes"
                                          << "[\"1\"]"
                                          << "/setup/micro_batch_sizes/0"
                                          << "expected an integer";
    QTest::newRow("max pipeline stages 5000") << "/setup/max_pipeline_stages"
                                              << "5000"
                                              << "/setup/max_pipeline_stages"
                                              << "outside the plausible range 1-1000";
    // The embedded cluster and model go through the same range layer.
    QTest::newRow("cluster bandwidth 1e-300") << "/cluster/links/0/bandwidth_gbps"
                                              << "1e-300"
                                              << "/cluster/links/0/bandwidth_gbps"
                                              << "plausible range";
    QTest::newRow("headroom 150%") << "/objective/min_headroom"
                                   << "{\"fraction\": 1.5}"
                                   << "/objective/min_headroom/fraction"
                                   << "[0, 1)";
    QTest::newRow("slowdown -1") << "/objective/max_slowdown"
                                 << "-1"
                                 << "/objective/max_slowdown"
                                 << "at least 0";
    QTest::newRow("precision fp4") << "/setup/precision"
                                   << "\"fp4\""
                                   << "/setup/precision"
                                   << "unknown precision \"fp4\"";
    QTest::newRow("attention dropout 1") << "/setup/attention_dropout"
                                         << "1"
                                         << "/setup/attention_dropout"
                                         << "must be in [0, 1)";
    QTest::newRow("hidden dropout a string") << "/setup/hidden_dropout"
                                             << "\"0.1\""
                                             << "/setup/hidden_dropout"
                                             << "expected a number";
    QTest::newRow("model layers 2000") << "/model/num_layers"
                                       << "2000"
                                       << "/model/num_layers"
                                       << "plausible range";
    // A project may hold a cluster with no nodes yet (File > New, saved), as
    // the editor does, but not links to nodes that are not there.
    QTest::newRow("links without nodes")
        << "/cluster"
        << R"({"format": "memx-cluster/1", "name": "x", "nodes": [], "links": [{"a": "n0", "b": "n1", "bandwidth_gbps": 100}]})"
        << "/cluster/links"
        << "a cluster without nodes can have no links";
}

void TestProjectFile::badProject()
{
    QFETCH(QString, edit);
    QFETCH(QString, value);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    const nlohmann::json doc = edited(edit, value);
    test::expectInputError([&] { Project::fromJson(doc, "bad.memx"); }, "bad.memx", field, reason);
}

void TestProjectFile::rangeOverride()
{
    nlohmann::json doc = edited("/setup/max_pipeline_stages", "5000");
    doc["setup"]["allow_outside_range"] = true;
    const Project p = Project::fromJson(doc, "big.memx");
    QCOMPARE(p.setup.maxPipelineStages, 5000);
    // Saved, it keeps the flag and reads back.
    QCOMPARE(Project::fromJson(p.toJson(), "saved.memx").setup.maxPipelineStages, 5000);
    // The training precision is saved as chosen (auto stays auto).
    QCOMPARE(p.setup.precision, std::string("auto"));
    Project chosen = p;
    chosen.setup.precision = "tf32";
    QCOMPARE(Project::fromJson(chosen.toJson(), "saved.memx").setup.precision, std::string("tf32"));
    // So are the dropout rates; a project from before them planned without dropout.
    QCOMPARE(p.setup.attentionDropout, 0.0);
    chosen.setup.attentionDropout = 0.1;
    chosen.setup.hiddenDropout = 0.05;
    const Project back = Project::fromJson(chosen.toJson(), "saved.memx");
    QCOMPARE(back.setup.attentionDropout, 0.1);
    QCOMPARE(back.setup.hiddenDropout, 0.05);
}

void TestProjectFile::constraintsAndBalancedRoundTrip()
{
    // What the Objective panel sets comes back after save and load.
    Project p = Project::fromJson(projectDoc(), "good.memx");
    p.objective.profile = WeightProfile::Balanced;
    p.objective.minHeadroom = 0.1;
    p.objective.headroomAtUpper = true;
    p.objective.maxSlowdown = 0.05;
    const Project back = Project::fromJson(p.toJson(), "saved.memx");
    QCOMPARE(back.objective, p.objective);
    // Off stays off.
    const Project plain = Project::fromJson(projectDoc(), "good.memx");
    QCOMPARE(plain.objective.minHeadroom, 0.0);
    QCOMPARE(plain.objective.maxSlowdown, -1.0);
}

void TestProjectFile::meshModeRoundTrip()
{
    // A new project plans per GPU type and says so in its file; a project
    // written before per-mesh plans (no "meshes") reads as uniform, the space
    // it was planned in; either choice survives save and load.
    const nlohmann::json fresh = projectDoc();
    QCOMPARE(fresh.at("setup").at("meshes").get<std::string>(), std::string("per-type"));
    nlohmann::json old = fresh;
    old["setup"].erase("meshes");
    Project p = Project::fromJson(old, "old.memx");
    QCOMPARE(p.setup.meshes, MeshMode::Uniform);
    QCOMPARE(Project::fromJson(p.toJson(), "saved.memx").setup.meshes, MeshMode::Uniform);
    p.setup.meshes = MeshMode::PerType;
    const nlohmann::json saved = p.toJson();
    QCOMPARE(saved.at("setup").at("meshes").get<std::string>(), std::string("per-type"));
    QCOMPARE(Project::fromJson(saved, "saved.memx").setup.meshes, MeshMode::PerType);
    nlohmann::json bad = saved;
    bad["setup"]["meshes"] = "per-node";
    test::expectInputError([&] { Project::fromJson(bad, "bad.memx"); }, "bad.memx", "/setup/meshes",
                           "expected uniform or per-type");
}
void TestProjectFile::epsilonRuleRoundTrip()
{
    // A project written before the eV rule holds epsilon_fraction only, and
    // keeps the paper's eV it was searched with.
    nlohmann::json old = projectDoc();
    old["objective"].erase("epsilon_rule");
    old["objective"]["epsilon_fraction"] = 0.02;
    const Project before = Project::fromJson(old, "old.memx");
    QCOMPARE(before.objective.epsilonRule, EpsilonRule::Fraction);
    QCOMPARE(before.objective.epsilonFraction, 0.02);
    // A new project follows the uncertainty; each rule survives save and load.
    nlohmann::json fresh = projectDoc();
    fresh["objective"].erase("epsilon_rule");
    fresh["objective"].erase("epsilon_fraction");
    Project p = Project::fromJson(fresh, "new.memx");
    QCOMPARE(p.objective.epsilonRule, EpsilonRule::Uncertainty);
    for (EpsilonRule rule : {EpsilonRule::Uncertainty, EpsilonRule::Fraction, EpsilonRule::Absolute}) {
        p.objective.epsilonRule = rule;
        p.objective.epsilonValue = rule == EpsilonRule::Absolute ? 4.0 * 1048576 : 0.0;
        QCOMPARE(Project::fromJson(p.toJson(), "saved.memx").objective, p.objective);
    }
    nlohmann::json bad = p.toJson();
    bad["objective"]["epsilon_rule"] = "median";
    test::expectInputError([&] { Project::fromJson(bad, "bad.memx"); }, "bad.memx", "/objective/epsilon_rule",
                           "expected uncertainty, fraction or absolute");
    bad["objective"]["epsilon_rule"] = "absolute";
    bad["objective"]["epsilon"] = -3;
    test::expectInputError([&] { Project::fromJson(bad, "bad.memx"); }, "bad.memx", "/objective/epsilon",
                           "expected a finite number >= 0");
}

void TestProjectFile::compareTasksRoundTrip()
{
    // Several sequence lengths: per task unless the project says per token.
    Project p = Project::fromJson(projectDoc(), "good.memx");
    QCOMPARE(p.objective.compareTasks, TaskCompare::PerTask);
    p.objective.compareTasks = TaskCompare::PerToken;
    const nlohmann::json saved = p.toJson();
    QCOMPARE(saved.at("objective").at("compare_tasks").get<std::string>(), std::string("per-token"));
    QCOMPARE(Project::fromJson(saved, "saved.memx").objective.compareTasks, TaskCompare::PerToken);
    nlohmann::json bad = saved;
    bad["objective"]["compare_tasks"] = "raw";
    test::expectInputError([&] { Project::fromJson(bad, "bad.memx"); }, "bad.memx", "/objective/compare_tasks",
                           "expected per-task or per-token");
}

void TestProjectFile::version1ProjectOpens()
{
    // A memx-project/1 file (tests/data/formats_v1/project.memx): setup
    // "micro_batches": [1, 2, 4], "max_pipeline_stages": 8; objective
    // "epsilon_fraction": 0.01 without a rule (the paper's fraction rule).
    const Project p = Project::load(test::dataFile("formats_v1/project.memx"));
    QCOMPARE(p.setup.microBatchSizes, (std::vector<int>{1, 2, 4}));
    QCOMPARE(p.setup.maxPipelineStages, 8);
    QCOMPARE(p.objective.epsilonRule, EpsilonRule::Fraction);
    QCOMPARE(p.objective.epsilonFraction, 0.01);
    // Saved again, it is version 2 with one spelling, and reads back equal.
    const nlohmann::json j = p.toJson();
    QCOMPARE(j.at("format").get<std::string>(), std::string("memx-project/2"));
    QCOMPARE(j.at("setup").at("micro_batch_sizes"), nlohmann::json({1, 2, 4}));
    QVERIFY(!j.at("setup").contains("micro_batches"));
    const Project again = Project::fromJson(j, "again.memx");
    QVERIFY(again.setup == p.setup);
    QVERIFY(again.objective == p.objective);
}

MEMX_TEST_MAIN(TestProjectFile)
}  // namespace tst_project_file

#include "tst_project_file.moc"
