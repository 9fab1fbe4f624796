// FlagScale heterogeneous export: FlagScale's validation rules one by one, the
// per-stage recompute lists by hand, and the YAML of real plans parsed back
// (minimally) and checked against the same rules and the hostfile.
#include "TestPaths.h"

#include "export/FlagScaleExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "io/InputError.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <filesystem>
#include <map>
#include <numeric>
#include <sstream>

namespace tst_flagscale_export {

using namespace memx;

namespace {

// --- a minimal YAML reader: nested maps by indentation, scalars, flow lists ---
// Keys are flattened to dotted paths ("train.system.hetero.hetero_device_types").
std::map<std::string, std::string> readYaml(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::vector<std::pair<int, std::string>> stack;  // (indent, key)
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto hash = line.find(" #");
        if (!line.empty() && line.find_first_not_of(' ') != std::string::npos
            && line[line.find_first_not_of(' ')] == '#')
            continue;
        if (hash != std::string::npos && line.find('"') > hash)
            line = line.substr(0, hash);
        if (line.find_first_not_of(' ') == std::string::npos)
            continue;
        const int indent = static_cast<int>(line.find_first_not_of(' '));
        std::string body = line.substr(static_cast<std::size_t>(indent));
        if (body.rfind("- ", 0) == 0)  // list items of "defaults:" are not needed
            continue;
        const auto colon = body.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = body.substr(0, colon);
        if (key.size() >= 2 && key.front() == '"' && key.back() == '"')  // a double-quoted key (no escapes needed here)
            key = key.substr(1, key.size() - 2);
        std::string value = body.substr(colon + 1);
        while (!value.empty() && value.front() == ' ')
            value.erase(value.begin());
        while (!value.empty() && value.back() == ' ')
            value.pop_back();
        while (!stack.empty() && stack.back().first >= indent)
            stack.pop_back();
        std::string path;
        for (const auto& s : stack)
            path += s.second + ".";
        path += key;
        if (value.empty())
            stack.push_back({indent, key});
        else
            out[path] = value;
    }
    return out;
}

// "[1, 2, [3, 4]]" -> flat integers in order; strings are unquoted.
std::vector<std::string> flowItems(std::string v)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : v) {
        if (c == '[' || c == ']' || c == ',' || c == ' ') {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else if (c != '"') {
            cur += c;
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

std::vector<int> flowInts(const std::string& v)
{
    std::vector<int> out;
    for (const auto& s : flowItems(v))
        out.push_back(std::stoi(s));
    return out;
}

// Top-level sub-lists of "[[a, b, c], [d, e, f]]".
std::vector<std::vector<int>> subLists(const std::string& v)
{
    std::vector<std::vector<int>> out;
    int depth = 0;
    std::string cur;
    for (char c : v) {
        if (c == '[' && ++depth == 2)
            cur.clear();
        else if (c == ']' && depth-- == 2)
            out.push_back(flowInts(cur));
        else if (depth == 2)
            cur += c;
    }
    return out;
}

PlanDocument searchBest(const std::string& cluster, ScheduleMode schedule, int rank = 1)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1};
    req.problem.setup.maxPipelineStages = 4;
    req.problem.setup.schedule = schedule;
    req.options.topK = 5;
    const SearchResult r = SearchEngine::run(req);
    return PlanJsonReader::fromJson(PlanJson::search(req.problem, r), cluster, rank);
}

HeteroConfig validConfig()
{
    HeteroConfig c;
    c.numLayers = 32;
    c.pipelineParallel = 3;
    c.microBatch = 1;
    c.globalBatch = 64;
    c.meshes = {{2, 1, 1, 2, 1, "A100"}, {2, 1, 1, 2, 2, "VendorB"}};
    c.layerSplit = {12, 10, 10};
    c.deviceTypes = {"A100", "VendorB"};
    c.currentDeviceType = "A100";
    c.stageRecompute = {Recompute::None, Recompute::Full, Recompute::Full};
    return c;
}

std::string yamlOf(const std::vector<ExportedFile>& files, const std::string& name)
{
    for (const auto& f : files)
        if (f.name == name)
            return f.content;
    return {};
}

}  // namespace

class TestFlagScaleExport : public QObject {
    Q_OBJECT
private slots:
    void validConfigPasses();
    void rules_data();
    void rules();
    void perStageLists();
    void selectiveBecomesFullWhenMixed();
    void samplePlanYaml_data();
    void samplePlanYaml();
    void refusals_data();
    void refusals();
    void visibleDevicesPerTypeAndHost_data();
    void visibleDevicesPerTypeAndHost();
    void precisionAndAttention();
};

void TestFlagScaleExport::validConfigPasses()
{
    const auto why = FlagScaleExport::validate(validConfig());
    QVERIFY2(why.empty(), why.empty() ? "" : why.front().c_str());
}

void TestFlagScaleExport::rules_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("reason");
    QTest::newRow("sum of mesh pp") << 0 << "add up to 4";
    QTest::newRow("equal cp") << 1 << "context parallelism";
    QTest::newRow("micro-batch divisibility") << 2 << "is not an integer";
    QTest::newRow("split length") << 3 << "entries";
    QTest::newRow("split sum") << 4 << "not num_layers";
    QTest::newRow("no vpp") << 5 << "virtual pipeline";
    QTest::newRow("tied embedding tp") << 6 << "same TP";
    QTest::newRow("tied embedding partial reduce") << 7 << "partial-reduce";
    QTest::newRow("types per mesh") << 8 << "device types";
    QTest::newRow("current type") << 9 << "not among";
    QTest::newRow("no per-stage selective") << 10 << "none or full";
    QTest::newRow("standalone embedding") << 11 << "standalone";
}

void TestFlagScaleExport::rules()
{
    QFETCH(int, which);
    QFETCH(QString, reason);
    HeteroConfig c = validConfig();
    switch (which) {
    case 0: c.meshes[1].pp = 3; break;
    case 1: c.meshes[1].cp = 2; break;
    case 2:
        c.meshes[1].dp = 4;
        c.meshes[0].dp = 2;
        c.microBatch = 1;
        break;  // 2 x 1 / 4
    case 3: c.layerSplit = {16, 16}; break;
    case 4: c.layerSplit = {12, 10, 11}; break;
    case 5: c.virtualStages = 2; break;
    case 6:
        c.tiedEmbeddings = true;
        c.meshes[1].tp = 4;
        break;
    case 7:
        c.tiedEmbeddings = true;
        c.meshes[1].dp = 1;
        break;
    case 8: c.deviceTypes = {"A100"}; break;
    case 9: c.currentDeviceType = "H100"; break;
    case 10: c.stageRecompute = {Recompute::None, Recompute::Selective, Recompute::Full}; break;
    case 11: c.standaloneEmbeddingStage = true; break;
    }
    const auto why = FlagScaleExport::validate(c);
    QVERIFY(!why.empty());
    std::string all;
    for (const auto& w : why)
        all += w + "; ";
    QVERIFY2(all.find(reason.toStdString()) != std::string::npos, all.c_str());
}

void TestFlagScaleExport::perStageLists()
{
    using R = Recompute;
    using L = FlagScaleExport::RecomputeList;
    const std::vector<R> levels{R::None, R::Full, R::Full};
    // The reference's illustration: stage 0 off, stages 1-2 full, 32 micro-batches.
    QCOMPARE(FlagScaleExport::perStageList(levels, 32, L::Granularity), std::string("[[1, 32, 0], [2, 32, 1]]"));
    QCOMPARE(FlagScaleExport::perStageList(levels, 32, L::Method), std::string("[[3, 32, 0]]"));
    QCOMPARE(FlagScaleExport::perStageList(levels, 32, L::NumLayers), std::string("[[1, 32, 0], [2, 32, 1]]"));
    QCOMPARE(FlagScaleExport::perStageList({R::Full, R::None, R::Full}, 8, L::Granularity),
             std::string("[[1, 8, 1], [1, 8, 0], [1, 8, 1]]"));
}

void TestFlagScaleExport::selectiveBecomesFullWhenMixed()
{
    using R = Recompute;
    QCOMPARE(FlagScaleExport::expressibleRecompute({R::None, R::Selective, R::Full}),
             (std::vector<R>{R::None, R::Full, R::Full}));
    QCOMPARE(FlagScaleExport::expressibleRecompute({R::Selective, R::Selective}),
             (std::vector<R>{R::Selective, R::Selective}));
}

void TestFlagScaleExport::samplePlanYaml_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<int>("rank");
    QTest::newRow("modern 3 types") << "modern-h100-h20-910b.json" << 1;
    QTest::newRow("v100-t4") << "paper-6gpu-v100-t4.json" << 1;
    QTest::newRow("20gpu 1f1b") << "paper-20gpu-3vendor.json" << 1;
    QTest::newRow("homogeneous") << "homogeneous-8xa100.json" << 1;
}

void TestFlagScaleExport::samplePlanYaml()
{
    QFETCH(QString, cluster);
    QFETCH(int, rank);
    const PlanDocument doc = searchBest(cluster.toStdString(), ScheduleMode::OneF1B, rank);
    const Plan& p = doc.plan;
    const auto files = FlagScaleExport::files(doc);
    const auto train = readYaml(yamlOf(files, "conf/train/memx_plan.yaml"));
    const auto exp = readYaml(yamlOf(files, "conf/train_hetero.yaml"));
    QVERIFY(!train.empty());
    QCOMPARE(train.at("system.hetero.enable_hetero"), std::string("True"));
    const int pp = std::stoi(train.at("system.pipeline_model_parallel_size"));
    const int layers = std::stoi(train.at("model.num_layers"));
    const int mbs = std::stoi(train.at("model.micro_batch_size"));
    const int gbs = std::stoi(train.at("model.global_batch_size"));
    const auto meshes = flowInts(train.at("system.hetero.hetero_process_meshes"));
    const auto types = flowItems(train.at("system.hetero.hetero_device_types"));
    const auto split = flowInts(train.at("system.hetero.hetero_pipeline_layer_split"));
    // FlagScale's rules.
    QCOMPARE(meshes.size() % 5, std::size_t(0));  // 5 integers per mesh
    const std::size_t nMesh = meshes.size() / 5;
    QCOMPARE(types.size(), nMesh);
    int ppSum = 0, world = 0;
    for (std::size_t m = 0; m < nMesh; ++m) {
        const int tp = meshes[5 * m], cp = meshes[5 * m + 1], ep = meshes[5 * m + 2], dp = meshes[5 * m + 3],
                  mpp = meshes[5 * m + 4];
        ppSum += mpp;
        world += tp * cp * ep * dp * mpp / ep;
        QCOMPARE(cp, meshes[1]);  // equal CP
        QCOMPARE((meshes[3] * mbs) % dp, 0);  // micro-batch divisibility
        QCOMPARE(doc.problem.model.heads % tp, 0);
    }
    QCOMPARE(ppSum, pp);
    QCOMPARE(static_cast<int>(split.size()), pp);
    QCOMPARE(std::accumulate(split.begin(), split.end(), 0), layers);
    QVERIFY(!train.count("system.num_layers_per_virtual_pipeline_stage"));
    QCOMPARE(train.at("system.hetero.standalone_embedding_stage"), std::string("False"));
    QVERIFY(std::find(types.begin(), types.end(), flowItems(train.at("system.hetero.hetero_current_device_type")).at(0))
            != types.end());
    QCOMPARE(gbs % (meshes[3] * mbs), 0);
    // What the plan says.
    QCOMPARE(pp, p.pp);
    for (std::size_t i = 0; i < p.stages.size(); ++i)
        QCOMPARE(split[i], p.stages[i].layers);
    // Per-stage recompute lists: sums of stages and micro-batches.
    if (train.count("system.recompute.recompute_granularity_per_stage_micro_batch")) {
        QCOMPARE(train.at("system.recompute.recompute_granularity"), std::string("\"full\""));
        for (const char* key : {"recompute_granularity_per_stage_micro_batch", "recompute_method_per_stage_micro_batch",
                                "recompute_num_layers_per_stage_micro_batch"}) {
            int stages = 0;
            for (const auto& sub : subLists(train.at(std::string("system.recompute.") + key))) {
                stages += sub.at(0);
                int mb = 0;
                for (std::size_t k = 1; k < sub.size(); k += 2)
                    mb += sub[k];
                QCOMPARE(mb, p.microBatchCount);
            }
            QCOMPARE(stages, p.pp);
        }
    }
    // Runner: static rendezvous, hostfile with one type= per host from the types list.
    QCOMPARE(exp.at("experiment.runner.rdzv_backend"), std::string("static"));
    std::istringstream hf(yamlOf(files, "hostfile"));
    std::string line;
    int nSlots = 0, hosts = 0;
    while (std::getline(hf, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream w(line);
        std::string host, s, t;
        w >> host >> s >> t;
        QVERIFY2(s.rfind("slots=", 0) == 0 && t.rfind("type=", 0) == 0, line.c_str());
        nSlots += std::stoi(s.substr(6));
        QVERIFY2(std::find(types.begin(), types.end(), t.substr(5)) != types.end(), line.c_str());
        ++hosts;
    }
    QCOMPARE(nSlots, world);
    QCOMPARE(std::stoi(exp.at("experiment.runner.nnodes")), hosts);
}

void TestFlagScaleExport::refusals_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<int>("schedule");
    QTest::addColumn<QString>("reason");
    // The 20-GPU cluster's best plan with interleaving allowed is interleaved.
    QTest::newRow("interleaved") << "paper-20gpu-3vendor.json" << static_cast<int>(ScheduleMode::Interleaved)
                                 << "virtual pipeline";
    // Table 1's X and Y sit in one host: one hostfile line cannot carry two types.
    QTest::newRow("two types in one host")
        << "paper-table1-xy.json" << static_cast<int>(ScheduleMode::OneF1B) << "two GPU types";
}

void TestFlagScaleExport::refusals()
{
    QFETCH(QString, cluster);
    QFETCH(int, schedule);
    QFETCH(QString, reason);
    const PlanDocument doc = searchBest(cluster.toStdString(), static_cast<ScheduleMode>(schedule));
    try {
        FlagScaleExport::files(doc);
        QFAIL("exported a plan FlagScale cannot run");
    } catch (const InputError& e) {
        QCOMPARE(e.field(), std::string("--target flagscale"));
        QVERIFY2(e.reason().find(reason.toStdString()) != std::string::npos, e.what());
    }
}

namespace {
// Two nodes of 8 GPUs of `type`; stage 0 on n0's GPUs 0-3, stage 1 on n1's
// GPUs `n1Local` (TP 4, DP 1, LLaMA2-7B 16 + 16 layers).
PlanDocument twoHostPlan(const std::string& type, const std::vector<int>& n1Local, bool flash = true,
                         MlpKind mlp = MlpKind::SwiGlu)
{
    nlohmann::json cluster = nlohmann::json::parse(R"({"format":"memx-cluster/1","name":"two-hosts",
      "nodes":[{"name":"n0","gpus":[{"type":"T","count":8}]},{"name":"n1","gpus":[{"type":"T","count":8}]}],
      "links":[{"name":"f0","kind":"PCIe","within":"n0","bandwidth_gbps":64},
               {"name":"f1","kind":"PCIe","within":"n1","bandwidth_gbps":64},
               {"name":"ib","kind":"InfiniBand","between":["n0","n1"],"bandwidth_gbps":25}]})");
    for (auto& n : cluster["nodes"])
        n["gpus"][0]["type"] = type;
    std::vector<int> n1;
    for (int d : n1Local)
        n1.push_back(8 + d);
    nlohmann::json plan = {{"format", "memx-plan/1"},
                           {"tp", 4},
                           {"pp", 2},
                           {"dp", 1},
                           {"micro_batch", 1},
                           {"global_batch", 16},
                           {"micro_batches", 16},
                           {"seq_len", 4096},
                           {"query_groups", 32},
                           {"schedule", "1f1b"},
                           {"virtual_stages", 1},
                           {"iteration_ms", 1000.0},
                           {"max_mem_mib", 30000.0},
                           {"provenance", "analytic"}};
    plan["stages"].push_back({{"group", "n0"},
                              {"devices", {0, 1, 2, 3}},
                              {"first_layer", 0},
                              {"layers", 16},
                              {"recompute", "none"},
                              {"peak_mib", 30000.0},
                              {"capacity_mib", 65536.0}});
    plan["stages"].push_back({{"group", "n1"},
                              {"devices", n1},
                              {"first_layer", 16},
                              {"layers", 16},
                              {"recompute", "none"},
                              {"peak_mib", 30000.0},
                              {"capacity_mib", 65536.0}});
    plan["tool_version"] = "test";
    plan["predictor"] = "analytic";
    plan["cluster"] = cluster;
    ModelSpec model = ModelSpec::resolve("llama2-7b");
    model.mlp = mlp;
    plan["model"] = model.toJson();
    plan["setup"] = {{"global_batch", 16}, {"flash_attention", flash}};
    return PlanJsonReader::fromJson(plan, "hand.json");
}
}  // namespace

void TestFlagScaleExport::visibleDevicesPerTypeAndHost_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("n1Local");
    QTest::addColumn<QString>("perHost");  // n1's own entry, empty when it matches its type's
    QTest::newRow("same GPUs on both hosts") << "A100-80GB"
                                             << "CUDA_VISIBLE_DEVICES"
                                             << "0,1,2,3"
                                             << "";
    QTest::newRow("n1 uses its upper half") << "A100-80GB"
                                            << "CUDA_VISIBLE_DEVICES"
                                            << "4,5,6,7"
                                            << "4,5,6,7";
    QTest::newRow("Ascend") << "Ascend-910B"
                            << "ASCEND_RT_VISIBLE_DEVICES"
                            << "0,1,2,3"
                            << "";
    QTest::newRow("AMD") << "MI300X"
                         << "HIP_VISIBLE_DEVICES"
                         << "0,1,2,3"
                         << "";
}

void TestFlagScaleExport::visibleDevicesPerTypeAndHost()
{
    // FlagScale merges per-type variables only from
    // envs.device_type_specific.<hostfile type=>, per-host ones from
    // envs.node_specific.<host>; run_node counts *_VISIBLE_DEVICES.
    QFETCH(QString, type);
    QFETCH(QString, variable);
    QFETCH(QString, n1Local);
    QFETCH(QString, perHost);
    std::vector<int> local;
    for (const auto& d : n1Local.split(QLatin1Char(',')))
        local.push_back(d.toInt());
    const auto files = FlagScaleExport::files(twoHostPlan(type.toStdString(), local));
    const auto yaml = readYaml(yamlOf(files, "conf/train_hetero.yaml"));
    const std::string base
        = "experiment.envs.device_type_specific." + type.toStdString() + "." + variable.toStdString();
    QVERIFY2(yaml.count(base), yamlOf(files, "conf/train_hetero.yaml").c_str());
    QCOMPARE(yaml.at(base), std::string("\"0,1,2,3\""));
    const std::string host = "experiment.envs.node_specific.n1." + variable.toStdString();
    QCOMPARE(yaml.count(host), std::size_t(perHost.isEmpty() ? 0 : 1));
    if (!perHost.isEmpty())
        QCOMPARE(yaml.at(host), "\"" + perHost.toStdString() + "\"");
    // Nothing per type directly under envs (FlagScale would not merge it).
    QCOMPARE(yaml.count("experiment.envs." + type.toStdString() + "." + variable.toStdString()), std::size_t(0));
    QVERIFY(yamlOf(files, "hostfile").find("type=" + type.toStdString()) != std::string::npos);
}

void TestFlagScaleExport::precisionAndAttention()
{
    // V100 has no bf16: fp16 with loss scaling. Without flash attention: unfused.
    const auto v100 = readYaml(
        yamlOf(FlagScaleExport::files(twoHostPlan("V100-32GB", {0, 1, 2, 3}, false)), "conf/train/memx_plan.yaml"));
    QCOMPARE(v100.count("system.precision.fp16"), std::size_t(1));
    QCOMPARE(v100.count("system.precision.bf16"), std::size_t(0));
    QCOMPARE(v100.at("model.attention_backend"), std::string("unfused"));
    const auto a100
        = readYaml(yamlOf(FlagScaleExport::files(twoHostPlan("A100-80GB", {0, 1, 2, 3})), "conf/train/memx_plan.yaml"));
    QCOMPARE(a100.at("system.precision.bf16"), std::string("True"));
    QCOMPARE(a100.count("model.attention_backend"), std::size_t(0));
    // The MLP kind: LLaMA's SwiGLU, or GPT's GeLU (FlagScale's swiglu False).
    QCOMPARE(a100.at("model.swiglu"), std::string("True"));
    const auto gelu
        = readYaml(yamlOf(FlagScaleExport::files(twoHostPlan("A100-80GB", {0, 1, 2, 3}, true, MlpKind::Gelu)),
                          "conf/train/memx_plan.yaml"));
    QCOMPARE(gelu.at("model.swiglu"), std::string("False"));
    // No dropout, as planned (Megatron's default is 0.1 on both).
    QCOMPARE(a100.at("model.attention_dropout"), std::string("0.0"));
    QCOMPARE(a100.at("model.hidden_dropout"), std::string("0.0"));
    // A plan made with dropout keeps its rates.
    PlanDocument dropped = twoHostPlan("A100-80GB", {0, 1, 2, 3});
    dropped.problem.setup.attentionDropout = 0.1;
    dropped.problem.setup.hiddenDropout = 0.1;
    const auto withDropout = readYaml(yamlOf(FlagScaleExport::files(dropped), "conf/train/memx_plan.yaml"));
    QCOMPARE(withDropout.at("model.attention_dropout"), std::string("0.1"));
    QCOMPARE(withDropout.at("model.hidden_dropout"), std::string("0.1"));
    // Gaudi selects devices with HABANA_VISIBLE_MODULES, which FlagScale's runner cannot count.
    try {
        FlagScaleExport::files(twoHostPlan("Gaudi3", {0, 1, 2, 3}));
        QFAIL("exported a config FlagScale's runner cannot start");
    } catch (const InputError& e) {
        QVERIFY2(e.reason().find("HABANA_VISIBLE_MODULES") != std::string::npos, e.what());
    }
}

MEMX_TEST_APPLESS_MAIN(TestFlagScaleExport)
}  // namespace tst_flagscale_export

#include "tst_flagscale_export.moc"
