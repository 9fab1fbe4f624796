// Megatron-LM export: the layer-split flags against hand-written expectations,
// and every exported script parsed back and checked against Megatron-LM's own
// rules (reference/EXPORT_AND_LOGS.md section 1): divisibility, layout syntax
// and layer count, VPP rules, GQA/TP, recompute flags, and the rank placement.
#include "TestPaths.h"

#include "export/FlagScaleExport.h"
#include "export/MegatronExport.h"
#include "megatron/RankLayout.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "io/InputError.h"
#include "search/SearchEngine.h"

#include <QProcess>
#include <QTemporaryDir>
#include "TestMain.h"

#include <filesystem>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>

namespace tst_megatron_export {

using namespace memx;

}  // namespace tst_megatron_export
Q_DECLARE_METATYPE(std::vector<std::string>)
namespace tst_megatron_export {

namespace {

// --- Megatron's layout parser (pipeline_parallel_layer_layout.py parse_str_to_list) ---
// Returns the stages (each a string of layer characters) or throws with the reason.
std::vector<std::string> parseLayout(std::string s)
{
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    const std::regex group(R"(\(([^()]*)\)\*(\d+))");
    std::smatch m;
    while (std::regex_search(s, m, group)) {
        std::string rep;
        for (int i = 0; i < std::stoi(m[2]); ++i)
            rep += m[1];
        s = m.prefix().str() + rep + m.suffix().str();
    }
    const std::regex single(R"((.)\*(\d+))");
    while (std::regex_search(s, m, single)) {
        std::string rep(static_cast<std::size_t>(std::stoi(m[2])), m[1].str()[0]);
        s = m.prefix().str() + rep + m.suffix().str();
    }
    std::vector<std::string> stages;
    std::string cur;
    for (char c : s) {
        if (c == '|') {
            stages.push_back(cur);
            cur.clear();
        } else {
            if (c != 'E' && c != 't' && c != 'L' && c != 'm')
                throw std::runtime_error(std::string("unknown layer character ") + c);
            cur += c;
        }
    }
    stages.push_back(cur);
    return stages;
}

struct Script {
    std::string name, text;
    int nnodes = -1, nodeRank = -1, nproc = -1;
    std::vector<int> visible;
    std::string visibleVar;  // the runtime's variable the script exports
    std::vector<std::string> args;
};

std::vector<int> ints(const std::string& s)
{
    std::vector<int> v;
    std::stringstream in(s);
    std::string tok;
    while (std::getline(in, tok, ','))
        v.push_back(std::stoi(tok));
    return v;
}

Script parseScript(const ExportedFile& f)
{
    Script s;
    s.name = f.name;
    s.text = f.content;
    std::istringstream in(f.content);
    std::string line;
    bool inArgs = false;
    while (std::getline(in, line)) {
        if (inArgs) {
            if (line == ")") {
                inArgs = false;
                continue;
            }
            std::istringstream w(line);
            std::string tok;
            while (w >> tok) {
                if (tok.size() >= 2 && tok.front() == '\'' && tok.back() == '\'')
                    tok = tok.substr(1, tok.size() - 2);
                s.args.push_back(tok);
            }
            continue;
        }
        if (line == "MEGATRON_ARGS=(")
            inArgs = true;
        else if (line.rfind("NNODES=", 0) == 0)
            s.nnodes = std::stoi(line.substr(7));
        else if (line.rfind("NODE_RANK=", 0) == 0)
            s.nodeRank = std::stoi(line.substr(10));
        else if (line.rfind("NPROC_PER_NODE=", 0) == 0)
            s.nproc = std::stoi(line.substr(15));
        else if (std::smatch m;
                 std::regex_match(line, m, std::regex(R"(export (\w+_VISIBLE_(?:DEVICES|MODULES))=([\d,]+))"))) {
            s.visibleVar = m[1];
            s.visible = ints(m[2]);
        }
    }
    return s;
}

// Flag -> values (a flag without values maps to an empty list); fails on a repeated flag.
std::map<std::string, std::vector<std::string>> flags(const std::vector<std::string>& args, std::string& why)
{
    std::map<std::string, std::vector<std::string>> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].rfind("--", 0) != 0) {
            why = "stray value " + args[i];
            return out;
        }
        if (out.count(args[i]))
            why = "flag given twice: " + args[i];
        auto& v = out[args[i]];
        while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
            v.push_back(args[++i]);
    }
    return out;
}

int num(const std::map<std::string, std::vector<std::string>>& f, const std::string& k)
{
    return std::stoi(f.at(k).at(0));
}

// Every Megatron-LM rule of the reference that applies to these flags; returns
// the per-rank layer counts Megatron would build (or throws with the broken rule).
std::vector<int> checkMegatronRules(const std::map<std::string, std::vector<std::string>>& f, int world)
{
    auto fail = [](const std::string& s) { throw std::runtime_error(s); };
    const int tp = num(f, "--tensor-model-parallel-size"), pp = num(f, "--pipeline-model-parallel-size");
    const int L = num(f, "--num-layers"), heads = num(f, "--num-attention-heads");
    const int mbs = num(f, "--micro-batch-size"), gbs = num(f, "--global-batch-size");
    if (heads % tp)
        fail("heads % TP");
    const int groups = f.count("--group-query-attention") ? num(f, "--num-query-groups") : heads;
    if (f.count("--num-query-groups") && !f.count("--group-query-attention"))
        fail("--num-query-groups without --group-query-attention is ignored");
    if (groups % tp != 0 && tp % groups != 0)
        fail("query groups vs TP");
    if (world % (tp * pp))
        fail("world % (TP x PP)");
    const int dp = world / (tp * pp);
    if (gbs % (mbs * dp))
        fail("GBS % (MBS x DP)");
    const int G = gbs / (mbs * dp);
    if (f.count("--sequence-parallel") && tp == 1)
        fail("--sequence-parallel with TP 1");
    // arguments.py: "--overlap-param-gather only supported with distributed
    // optimizer", "--overlap-grad-reduce should be turned on when using
    // --overlap-param-gather".
    if (f.count("--overlap-param-gather")
        && (!f.count("--use-distributed-optimizer") || !f.count("--overlap-grad-reduce")))
        fail("--overlap-param-gather without --use-distributed-optimizer and --overlap-grad-reduce");
    if (num(f, "--seq-length") != num(f, "--max-position-embeddings"))
        fail("seq length vs positions");
    // recompute
    if (f.count("--recompute-granularity")) {
        const std::string g = f.at("--recompute-granularity").at(0);
        if (g == "full" && (!f.count("--recompute-method") || !f.count("--recompute-num-layers")))
            fail("full recompute needs method and num-layers");
        if (g == "selective" && (f.count("--recompute-method") || f.count("--recompute-num-layers")))
            fail("selective forbids method and num-layers");
        if (g != "full" && g != "selective")
            fail("granularity " + g);
    }
    // split and VPP: at most one of the VPP flags and the layout
    const int nVpp = static_cast<int>(f.count("--num-layers-per-virtual-pipeline-stage"))
        + static_cast<int>(f.count("--num-virtual-stages-per-pipeline-rank"))
        + static_cast<int>(f.count("--pipeline-model-parallel-layout"));
    if (nVpp > 1)
        fail("more than one of the VPP flags and the layout");
    const bool firstLast
        = f.count("--decoder-first-pipeline-num-layers") || f.count("--decoder-last-pipeline-num-layers");
    if (firstLast && f.count("--pipeline-model-parallel-layout"))
        fail("first/last with layout");
    if (firstLast && f.count("--num-layers-per-virtual-pipeline-stage"))
        fail("uneven first/last requires --num-virtual-stages-per-pipeline-rank");
    std::vector<int> perRank(static_cast<std::size_t>(pp), 0);
    int vpp = 1;
    if (f.count("--pipeline-model-parallel-layout")) {
        const auto stages = parseLayout(f.at("--pipeline-model-parallel-layout").at(0));
        if (stages.size() % static_cast<std::size_t>(pp))
            fail("layout stages not a multiple of PP");
        vpp = static_cast<int>(stages.size()) / pp;
        int e = 0, l = 0, t = 0;
        for (std::size_t i = 0; i < stages.size(); ++i)
            for (std::size_t k = 0; k < stages[i].size(); ++k) {
                const char c = stages[i][k];
                if (c == 'E' && (i != 0 || k != 0))
                    fail("E must come first");
                if (c == 'L' && (i + 1 != stages.size() || k + 1 != stages[i].size()))
                    fail("L must come last");
                e += c == 'E';
                l += c == 'L';
                if (c == 't') {
                    ++t;
                    ++perRank[i % static_cast<std::size_t>(pp)];  // entry i = vpp*PP + pp
                }
            }
        if (e != 1 || l != 1)
            fail("E and L exactly once");
        if (t != L)
            fail("layout holds " + std::to_string(t) + " decoder layers, --num-layers is " + std::to_string(L));
    } else if (firstLast) {
        int rest = L, middle = pp;
        if (f.count("--decoder-first-pipeline-num-layers")) {
            perRank.front() = num(f, "--decoder-first-pipeline-num-layers");
            rest -= perRank.front();
            --middle;
        }
        if (f.count("--decoder-last-pipeline-num-layers")) {
            perRank.back() = num(f, "--decoder-last-pipeline-num-layers");
            rest -= perRank.back();
            --middle;
        }
        if (middle <= 0 || rest % middle)
            fail("middle layers do not divide evenly");
        const int lo = f.count("--decoder-first-pipeline-num-layers") ? 1 : 0;
        for (int i = lo; i < lo + middle; ++i)
            perRank[static_cast<std::size_t>(i)] = rest / middle;
        if (f.count("--num-virtual-stages-per-pipeline-rank"))
            vpp = num(f, "--num-virtual-stages-per-pipeline-rank");
    } else {
        if (L % pp)
            fail("num_layers % PP");
        perRank.assign(static_cast<std::size_t>(pp), L / pp);
        if (f.count("--num-layers-per-virtual-pipeline-stage")) {
            const int n = num(f, "--num-layers-per-virtual-pipeline-stage");
            if ((L / pp) % n)
                fail("layers per rank % layers per virtual stage");
            vpp = (L / pp) / n;
        }
    }
    if (vpp > 1) {
        if (pp < 2)
            fail("VPP needs PP > 1");
        if (G % pp)
            fail("VPP needs micro-batches % PP == 0");
        for (int n : perRank)
            if (n % vpp)
                fail("per-rank layers % VPP");
    }
    return perRank;
}

struct ClusterCase {
    std::string file;
    std::vector<PlanDocument> plans;  // the top plans of a small search, read back from JSON
};

const std::vector<ClusterCase>& cases()
{
    static const std::vector<ClusterCase> all = [] {
        std::vector<ClusterCase> out;
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(test::sampleCluster("")))
            if (e.path().extension() == ".json")
                files.push_back(e.path().filename().string());
        std::sort(files.begin(), files.end());
        for (const auto& file : files) {
            SearchRequest req;
            req.problem.cluster = Cluster::fromFile(test::sampleCluster(file));
            req.problem.model = ModelSpec::resolve("llama2-7b");
            req.problem.setup.globalBatch = 32;
            req.problem.setup.microBatchSizes = {1};
            req.problem.setup.meshes = MeshMode::Uniform;  // plans Megatron-LM runs
            req.problem.setup.maxPipelineStages = 4;
            req.problem.setup.schedule = ScheduleMode::Both;
            req.options.topK = 8;
            const SearchResult r = SearchEngine::run(req);
            const nlohmann::json doc = PlanJson::search(req.problem, r);
            ClusterCase c{file, {}};
            for (int k = 1; k <= static_cast<int>(r.best.size()); ++k)
                c.plans.push_back(PlanJsonReader::fromJson(doc, file, k));
            out.push_back(std::move(c));
        }
        return out;
    }();
    return all;
}

// A two-node cluster of 4 A100 each and a hand-made plan on it.
nlohmann::json handCluster()
{
    return nlohmann::json::parse(R"({"format":"memx-cluster/1","name":"two-nodes",
      "nodes":[{"name":"n0","gpus":[{"type":"A100-80GB","count":4}]},{"name":"n1","gpus":[{"type":"A100-80GB","count":4}]}],
      "links":[{"name":"nv0","kind":"NVLink","within":"n0","bandwidth_gbps":300},
               {"name":"nv1","kind":"NVLink","within":"n1","bandwidth_gbps":300},
               {"name":"ib","kind":"InfiniBand","between":["n0","n1"],"bandwidth_gbps":25}]})");
}

PlanDocument handPlan(int tp, int dp, const std::vector<std::pair<std::string, std::vector<int>>>& stages,
                      const std::vector<int>& layers, const std::vector<std::string>& recompute)
{
    nlohmann::json plan = {{"format", "memx-plan/1"},  {"tp", tp},
                           {"pp", stages.size()},      {"dp", dp},
                           {"micro_batch", 1},         {"global_batch", 16},
                           {"micro_batches", 16 / dp}, {"seq_len", 4096},
                           {"query_groups", 32},       {"schedule", "1f1b"},
                           {"virtual_stages", 1},      {"iteration_ms", 1000.0},
                           {"max_mem_mib", 50000.0},   {"provenance", "analytic"}};
    int first = 0;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        plan["stages"].push_back({{"group", stages[i].first},
                                  {"devices", stages[i].second},
                                  {"first_layer", first},
                                  {"layers", layers[i]},
                                  {"recompute", recompute[i]},
                                  {"peak_mib", 40000.0},
                                  {"capacity_mib", 81920.0}});
        first += layers[i];
    }
    plan["tool_version"] = "test";
    plan["predictor"] = "analytic";
    plan["cluster"] = handCluster();
    plan["model"] = ModelSpec::resolve("llama2-7b").toJson();
    plan["setup"] = {{"global_batch", 16}};
    return PlanJsonReader::fromJson(plan, "hand.json");
}

std::vector<Script> scriptsOf(const std::vector<ExportedFile>& files)
{
    std::vector<Script> out;
    for (const auto& f : files)
        if (f.name.rfind("launch_node", 0) == 0)
            out.push_back(parseScript(f));
    std::sort(out.begin(), out.end(), [](const Script& a, const Script& b) { return a.nodeRank < b.nodeRank; });
    return out;
}

}  // namespace

class TestMegatronExport : public QObject {
    Q_OBJECT
private slots:
    void layoutString_data();
    void layoutString();
    void splitFlags_data();
    void splitFlags();
    void refusesWhatMegatronRefuses_data();
    void refusesWhatMegatronRefuses();
    void mlpKindAndTiedEmbeddings_data();
    void mlpKindAndTiedEmbeddings();
    void overlapFlags_data();
    void overlapFlags();
    void handPlacement_data();
    void handPlacement();
    void samplePlansObeyMegatronRules_data();
    void samplePlansObeyMegatronRules();
    void mixedRecomputeSaysSo();
    void headerOnEveryFile();
    void unequalNodesRefuseIdenticalWorkers();
    void namesNeverLeaveTheirLine();
};

void TestMegatronExport::layoutString_data()
{
    QTest::addColumn<std::vector<int>>("layers");
    QTest::addColumn<int>("v");
    QTest::addColumn<QString>("expected");
    // The reference's LLaMA-3-8B example.
    QTest::newRow("pp4 10,8,8,6") << std::vector<int>{10, 8, 8, 6} << 1 << "Et*10|t*8|t*8|t*6L";
    QTest::newRow("pp2 20,12") << std::vector<int>{20, 12} << 1 << "Et*20|t*12L";
    // v=2: entry vpp*PP + pp holds layers[pp]/2.
    QTest::newRow("pp3 v2 4,8,4") << std::vector<int>{4, 8, 4} << 2 << "Et*2|t*4|t*2|t*2|t*4|t*2L";
}

void TestMegatronExport::layoutString()
{
    QFETCH(std::vector<int>, layers);
    QFETCH(int, v);
    QFETCH(QString, expected);
    const std::string got = MegatronCommandLine::layout(layers, v);
    QCOMPARE(QString::fromStdString(got), expected);
    // And Megatron's parser reads it back to the same per-rank counts.
    const auto stages = parseLayout(got);
    QCOMPARE(stages.size(), layers.size() * static_cast<std::size_t>(v));
}

void TestMegatronExport::splitFlags_data()
{
    QTest::addColumn<std::vector<int>>("layers");
    QTest::addColumn<int>("v");
    QTest::addColumn<std::vector<std::string>>("expected");
    using V = std::vector<std::string>;
    QTest::newRow("even 1f1b") << std::vector<int>{8, 8, 8, 8} << 1 << V{};
    QTest::newRow("even v2") << std::vector<int>{8, 8, 8, 8} << 2 << V{"--num-layers-per-virtual-pipeline-stage", "4"};
    QTest::newRow("first differs") << std::vector<int>{5, 9, 9, 9} << 1
                                   << V{"--decoder-first-pipeline-num-layers", "5"};
    QTest::newRow("last differs") << std::vector<int>{9, 9, 9, 5} << 1 << V{"--decoder-last-pipeline-num-layers", "5"};
    QTest::newRow("pp2 uneven") << std::vector<int>{12, 20} << 1 << V{"--decoder-first-pipeline-num-layers", "12"};
    QTest::newRow("first and last") << std::vector<int>{10, 8, 8, 6} << 1
                                    << V{"--decoder-first-pipeline-num-layers", "10",
                                         "--decoder-last-pipeline-num-layers", "6"};
    QTest::newRow("first v2") << std::vector<int>{4, 14, 14} << 2
                              << V{"--decoder-first-pipeline-num-layers", "4", "--num-virtual-stages-per-pipeline-rank",
                                   "2"};
    QTest::newRow("arbitrary") << std::vector<int>{9, 7, 8, 8} << 1
                               << V{"--pipeline-model-parallel-layout", "Et*9|t*7|t*8|t*8L"};
    QTest::newRow("pp1") << std::vector<int>{32} << 1 << V{};
}

void TestMegatronExport::splitFlags()
{
    QFETCH(std::vector<int>, layers);
    QFETCH(int, v);
    QFETCH(std::vector<std::string>, expected);
    QCOMPARE(MegatronCommandLine::splitArguments(layers, v), expected);
}

void TestMegatronExport::refusesWhatMegatronRefuses_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("groups");
    QTest::addColumn<int>("gbs");
    QTest::addColumn<int>("v");
    QTest::addColumn<QString>("reason");
    QTest::newRow("heads % tp") << 3 << 32 << 16 << 1 << "heads";
    QTest::newRow("groups vs tp") << 4 << 6 << 16 << 1 << "query groups";  // 32 heads, 6 groups: neither divides
    QTest::newRow("gbs % dp mbs") << 1 << 32 << 15 << 1 << "global batch";  // 15 % (1 x 2)
    QTest::newRow("vpp G % pp") << 1 << 32 << 6 << 2 << "multiple of PP";
}

void TestMegatronExport::refusesWhatMegatronRefuses()
{
    QFETCH(int, tp);
    QFETCH(int, groups);
    QFETCH(int, gbs);
    QFETCH(int, v);
    QFETCH(QString, reason);
    MegatronJob j;
    j.model = ModelSpec::resolve("llama2-7b");
    j.tp = tp;
    j.pp = 4;
    j.dp = 2;
    j.queryGroups = groups;
    j.globalBatch = gbs;
    j.virtualStages = v;
    try {
        MegatronCommandLine::arguments(j);
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find(reason.toStdString()) != std::string::npos, e.what());
    }
}

// Megatron builds a GeLU MLP unless --swiglu is given (arguments.py), and
// shares the output layer with the embedding unless it is untied.
void TestMegatronExport::mlpKindAndTiedEmbeddings_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("swiglu");
    QTest::addColumn<QString>("ffn");
    QTest::addColumn<bool>("untied");
    QTest::addColumn<QString>("norm");
    QTest::addColumn<QString>("positions");
    QTest::addColumn<bool>("noBias");
    QTest::newRow("llama2-7b: SwiGLU 11008, untied, LLaMA layer") << "llama2-7b" << true << "11008" << true << "RMSNorm"
                                                                  << "rope" << true;
    QTest::newRow("gpt3-175b: GeLU 4h, tied, GPT layer") << "gpt3-175b" << false << "49152" << false << "LayerNorm"
                                                         << "learned_absolute" << false;
}

void TestMegatronExport::mlpKindAndTiedEmbeddings()
{
    QFETCH(QString, model);
    QFETCH(bool, swiglu);
    QFETCH(QString, ffn);
    QFETCH(bool, untied);
    MegatronJob j;
    j.model = ModelSpec::resolve(model.toStdString());
    j.tp = 8;
    j.pp = 4;
    j.dp = 1;
    j.globalBatch = 16;
    const std::vector<std::string> a = MegatronCommandLine::arguments(j);
    const auto has = [&](const char* flag) { return std::find(a.begin(), a.end(), flag) != a.end(); };
    QCOMPARE(has("--swiglu"), swiglu);
    QCOMPARE(has("--untie-embeddings-and-output-weights"), untied);
    const auto f = std::find(a.begin(), a.end(), "--ffn-hidden-size");
    QVERIFY(f != a.end() && f + 1 != a.end());
    QCOMPARE(QString::fromStdString(*(f + 1)), ffn);
    // The layer style the plan assumed, spelled as Megatron's parser wants it.
    const auto valueOf = [&](const char* flag) {
        const auto d = std::find(a.begin(), a.end(), flag);
        return d != a.end() && d + 1 != a.end() ? QString::fromStdString(*(d + 1)) : QString("(absent)");
    };
    QTEST(valueOf("--normalization"), "norm");
    QTEST(valueOf("--position-embedding-type"), "positions");
    QTEST(has("--disable-bias-linear"), "noBias");
    // The planned dropout, written even when 0: Megatron's default 0.1 would
    // keep masks a plan without dropout does not count.
    const auto rateOf = [](const std::vector<std::string>& args, const char* flag) {
        const auto d = std::find(args.begin(), args.end(), flag);
        return d != args.end() && d + 1 != args.end() ? *(d + 1) : std::string("(absent)");
    };
    QCOMPARE(rateOf(a, "--attention-dropout"), std::string("0.0"));
    QCOMPARE(rateOf(a, "--hidden-dropout"), std::string("0.0"));
    j.attentionDropout = 0.1;
    j.hiddenDropout = 0.05;
    const std::vector<std::string> withDropout = MegatronCommandLine::arguments(j);
    QCOMPARE(rateOf(withDropout, "--attention-dropout"), std::string("0.1"));
    QCOMPARE(rateOf(withDropout, "--hidden-dropout"), std::string("0.05"));
}

// The overlaps the plan's time assumes reach the launch line; off unless the
// setup asks, as in Megatron, and the gather overlap only with the two flags
// Megatron requires beside it.
void TestMegatronExport::overlapFlags_data()
{
    QTest::addColumn<bool>("distributed");
    QTest::addColumn<bool>("gradReduce");
    QTest::addColumn<bool>("paramGather");
    QTest::addColumn<bool>("expectReduce");
    QTest::addColumn<bool>("expectGather");
    QTest::newRow("Megatron's default") << true << false << false << false << false;
    QTest::newRow("gradient reduction") << true << true << false << true << false;
    QTest::newRow("both") << true << true << true << true << true;
    QTest::newRow("gather without the distributed optimizer") << false << true << true << true << false;
    QTest::newRow("gather alone") << true << false << true << false << false;
}

void TestMegatronExport::overlapFlags()
{
    QFETCH(bool, distributed);
    QFETCH(bool, gradReduce);
    QFETCH(bool, paramGather);
    MegatronJob j;
    j.model = ModelSpec::resolve("llama2-7b");
    j.tp = 2;
    j.pp = 2;
    j.dp = 2;
    j.globalBatch = 16;
    j.distributedOptimizer = distributed;
    j.overlapGradReduce = gradReduce;
    j.overlapParamGather = paramGather;
    const std::vector<std::string> a = MegatronCommandLine::arguments(j);
    const auto has = [&](const char* flag) { return std::count(a.begin(), a.end(), flag) == 1; };
    QTEST(has("--overlap-grad-reduce"), "expectReduce");
    QTEST(has("--overlap-param-gather"), "expectGather");
}

void TestMegatronExport::handPlacement_data()
{
    // stage groups and devices (global ids: n0 = 0-3, n1 = 4-7), then per node
    // rank: host and CUDA_VISIBLE_DEVICES, computed by hand from
    // rank = tp + TP*(dp + DP*pp) and devices[dp*TP + tp].
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<std::vector<std::string>>("groups");
    QTest::addColumn<std::vector<std::vector<int>>>("devices");
    QTest::addColumn<std::vector<std::string>>("hostOfRank");  // per node rank
    QTest::addColumn<std::vector<std::string>>("visibleOfRank");  // per node rank
    using S = std::vector<std::string>;
    using D = std::vector<std::vector<int>>;
    // Stage 0 on n1, stage 1 on n0: n1 must be node rank 0.
    QTest::newRow("reversed nodes") << 2 << 2 << S{"n1", "n0"} << D{{4, 5, 6, 7}, {0, 1, 2, 3}} << S{"n1", "n0"}
                                    << S{"0,1,2,3", "0,1,2,3"};
    // Devices out of order inside a stage: local rank i must see devices[i].
    QTest::newRow("permuted devices") << 2 << 2 << S{"n0", "n1"} << D{{2, 3, 0, 1}, {5, 4, 7, 6}} << S{"n0", "n1"}
                                      << S{"2,3,0,1", "1,0,3,2"};
    // n0 > n1 > n0: n0's ranks are not contiguous, so n0 runs two agents.
    QTest::newRow("split host") << 2 << 1 << S{"n0", "n1", "n0"} << D{{0, 1}, {4, 5}, {2, 3}} << S{"n0", "n1", "n0"}
                                << S{"0,1", "0,1", "2,3"};
}

}  // namespace tst_megatron_export
Q_DECLARE_METATYPE(std::vector<std::vector<int>>)
namespace tst_megatron_export {

void TestMegatronExport::handPlacement()
{
    QFETCH(int, tp);
    QFETCH(int, dp);
    QFETCH(std::vector<std::string>, groups);
    QFETCH(std::vector<std::vector<int>>, devices);
    QFETCH(std::vector<std::string>, hostOfRank);
    QFETCH(std::vector<std::string>, visibleOfRank);
    std::vector<std::pair<std::string, std::vector<int>>> stages;
    std::vector<int> layers;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        stages.push_back({groups[i], devices[i]});
        layers.push_back(i == 0 ? 32 - 10 * static_cast<int>(groups.size() - 1) : 10);
    }
    const PlanDocument doc = handPlan(tp, dp, stages, layers, std::vector<std::string>(groups.size(), "none"));
    const auto files = MegatronExport::files(doc);
    const auto scripts = scriptsOf(files);
    QCOMPARE(scripts.size(), hostOfRank.size());
    for (std::size_t r = 0; r < scripts.size(); ++r) {
        QCOMPARE(scripts[r].nodeRank, static_cast<int>(r));
        QCOMPARE(scripts[r].nnodes, static_cast<int>(hostOfRank.size()));
        std::string vis;
        for (int d : scripts[r].visible)
            vis += (vis.empty() ? "" : ",") + std::to_string(d);
        QCOMPARE(vis, visibleOfRank[r]);
        QVERIFY2(scripts[r].text.find("on host " + hostOfRank[r] + ":") != std::string::npos, scripts[r].text.c_str());
    }
    // The hostfile lists each host once, the first node rank's host first.
    std::string hostfile;
    for (const auto& f : files)
        if (f.name == "hostfile")
            hostfile = f.content;
    QVERIFY(hostfile.find("\n" + hostOfRank[0] + " slots=") != std::string::npos);
}

void TestMegatronExport::samplePlansObeyMegatronRules_data()
{
    QTest::addColumn<int>("cluster");
    for (std::size_t i = 0; i < cases().size(); ++i)
        QTest::newRow(cases()[i].file.c_str()) << static_cast<int>(i);
}

void TestMegatronExport::samplePlansObeyMegatronRules()
{
    QFETCH(int, cluster);
    const ClusterCase& c = cases()[static_cast<std::size_t>(cluster)];
    QVERIFY2(!c.plans.empty(), c.file.c_str());
    for (const PlanDocument& doc : c.plans) {
        const Plan& p = doc.plan;
        const auto files = MegatronExport::files(doc);
        const auto scripts = scriptsOf(files);
        QVERIFY(!scripts.empty());
        int world = 0;
        for (const auto& s : scripts) {
            QCOMPARE(s.args, scripts.front().args);  // one argument list for all nodes
            QCOMPARE(s.nnodes, static_cast<int>(scripts.size()));
            QCOMPARE(static_cast<int>(s.visible.size()), s.nproc);
            world += s.nproc;
        }
        std::string why;
        const auto f = flags(scripts.front().args, why);
        QVERIFY2(why.empty(), why.c_str());
        std::vector<int> perRank;
        try {
            perRank = checkMegatronRules(f, world);
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString::fromStdString(c.file + ": " + e.what() + "\n" + scripts.front().text)));
        }
        // The flags say what the plan says.
        QCOMPARE(num(f, "--tensor-model-parallel-size"), p.tp);
        QCOMPARE(num(f, "--pipeline-model-parallel-size"), p.pp);
        QCOMPARE(world / (p.tp * p.pp), p.dp);
        QCOMPARE(num(f, "--micro-batch-size"), p.microBatch);
        QCOMPARE(num(f, "--global-batch-size"), p.globalBatch);
        QCOMPARE(num(f, "--seq-length"), p.seqLen);
        QCOMPARE(num(f, "--num-layers"), doc.problem.model.numLayers);
        for (std::size_t i = 0; i < p.stages.size(); ++i)
            QCOMPARE(perRank[i], p.stages[i].layers);
        QCOMPARE(f.count("--use-distributed-optimizer") == 1, doc.problem.setup.distributedOptimizer);
        // One precision for every rank: bf16 unless a planned type lacks it
        // (the catalog's V100 and T4 have fp16 only).
        bool allBf16 = true;
        for (const auto& st : p.stages)
            allBf16 = allBf16 && doc.problem.cluster.typeOf(st.devices.front()).hasPrecision("bf16");
        QCOMPARE(f.count("--bf16"), std::size_t(allBf16 ? 1 : 0));
        QCOMPARE(f.count("--fp16"), std::size_t(allBf16 ? 0 : 1));
        QCOMPARE(f.count("--attention-backend") == 1, !doc.problem.setup.flashAttention);
        // Rank placement: global rank r runs on a device of its stage, at
        // position dp*TP + tp of the stage's TP-major device list.
        const RankLayout layout(p.tp, p.pp, p.dp);
        int rank = 0;
        std::set<int> used;
        for (const auto& s : scripts) {
            const std::string marker = "on host ";
            const auto at = s.text.find(marker);
            QVERIFY(at != std::string::npos);
            const std::string host = s.text.substr(at + marker.size(), s.text.find(':', at) - at - marker.size());
            int node = -1;
            for (std::size_t n = 0; n < doc.problem.cluster.nodes().size(); ++n)
                if (doc.problem.cluster.nodes()[n].name == host)
                    node = static_cast<int>(n);
            QVERIFY2(node >= 0, host.c_str());
            // The variable of the node's vendor runtime (catalog), e.g. ASCEND_RT_VISIBLE_DEVICES on Ascend.
            const int first = doc.problem.cluster.nodes()[static_cast<std::size_t>(node)].devices.at(
                static_cast<std::size_t>(s.visible.front()));
            QCOMPARE(s.visibleVar, doc.problem.cluster.typeOf(first).visibleDevicesEnv);
            for (int local = 0; local < s.nproc; ++local, ++rank) {
                const int device = doc.problem.cluster.nodes()[static_cast<std::size_t>(node)].devices.at(
                    static_cast<std::size_t>(s.visible[static_cast<std::size_t>(local)]));
                const RankCoords rc = layout.coordsOf(rank);
                QCOMPARE(device,
                         p.stages[static_cast<std::size_t>(rc.pp)]
                             .devices[static_cast<std::size_t>(rc.dp * p.tp + rc.tp)]);
                QVERIFY(used.insert(device).second);
            }
        }
        QCOMPARE(rank, layout.worldSize());
    }
}

void TestMegatronExport::mixedRecomputeSaysSo()
{
    const PlanDocument doc = handPlan(2, 2, {{"n0", {0, 1, 2, 3}}, {"n1", {4, 5, 6, 7}}}, {20, 12}, {"full", "none"});
    const auto files = MegatronExport::files(doc);
    for (const auto& file : files) {
        if (file.name == "hostfile")
            continue;
        // Plainly, at the top (right after the shebang / #SBATCH lines).
        const auto warn = file.content.find("NOT THE EXACT PLAN");
        QVERIFY2(warn != std::string::npos && warn < file.content.find("Generated by"), file.name.c_str());
        QVERIFY(file.content.find("stage 0 full, stage 1 none") != std::string::npos);
        QVERIFY(file.content.find("full recomputation on every stage") != std::string::npos);
        QVERIFY(file.content.find("--target flagscale") != std::string::npos);
        // The nearest plan's predicted cost, from PlanEvaluator.
        QVERIFY2(file.content.find("ms per iteration (the plan: 1000.0 ms)") != std::string::npos,
                 file.content.c_str());
    }
    const auto scripts = scriptsOf(files);
    std::string why;
    const auto f = flags(scripts.front().args, why);
    QCOMPARE(f.at("--recompute-granularity").at(0), std::string("full"));
    QCOMPARE(f.at("--recompute-method").at(0), std::string("uniform"));
    QCOMPARE(f.at("--recompute-num-layers").at(0), std::string("1"));
}

void TestMegatronExport::headerOnEveryFile()
{
    const PlanDocument& doc = cases().front().plans.front();
    for (const auto& f : MegatronExport::files(doc)) {
        QVERIFY2(f.content.find(std::string("Generated by MemX Workbench ") + MEMX_VERSION) != std::string::npos,
                 f.name.c_str());
        QVERIFY(f.content.find("Predictor: analytic") != std::string::npos);
        QVERIFY(f.content.find("Expected iteration time: ") != std::string::npos);
        for (std::size_t i = 0; i < doc.plan.stages.size(); ++i)
            QVERIFY(f.content.find("  stage " + std::to_string(i) + "  ") != std::string::npos);
    }
}

void TestMegatronExport::unequalNodesRefuseIdenticalWorkers()
{
    // n0 runs 2 ranks (stage 0), n1 runs 4 (stages 1 and 2): torchrun's
    // default assignment is what the plan needs, and the script refuses to
    // start when TORCH_ELASTIC_WORKER_IDENTICAL=1 would assume equal nodes.
    const PlanDocument unequal
        = handPlan(2, 1, {{"n0", {0, 1}}, {"n1", {4, 5}}, {"n1", {6, 7}}}, {12, 10, 10}, {"none", "none", "none"});
    const auto scripts = scriptsOf(MegatronExport::files(unequal));
    QCOMPARE(scripts.size(), std::size_t(2));
    QCOMPARE(scripts[0].nproc, 2);
    QCOMPARE(scripts[1].nproc, 4);
    QTemporaryDir dir;
    for (const Script& s : scripts) {
        QVERIFY2(s.text.find("different numbers of ranks") != std::string::npos, s.text.c_str());
        const QString path = dir.filePath(QString::fromStdString(s.name));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(s.text.c_str());
        f.close();
        QProcess bash;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TORCH_ELASTIC_WORKER_IDENTICAL"), QStringLiteral("1"));
        bash.setProcessEnvironment(env);
        bash.start(QStringLiteral("bash"), {path});
        QVERIFY(bash.waitForFinished(10000));
        QCOMPARE(bash.exitCode(), 1);
        QVERIFY(bash.readAllStandardError().contains("TORCH_ELASTIC_WORKER_IDENTICAL=1 assumes equal nodes"));
    }
    // Equal nodes: nothing to say, nothing to refuse.
    const PlanDocument equal = handPlan(2, 2, {{"n0", {0, 1, 2, 3}}, {"n1", {4, 5, 6, 7}}}, {16, 16}, {"none", "none"});
    for (const Script& s : scriptsOf(MegatronExport::files(equal)))
        QVERIFY(s.text.find("TORCH_ELASTIC_WORKER_IDENTICAL") == std::string::npos);
}

void TestMegatronExport::namesNeverLeaveTheirLine()
{
    // The readers refuse control characters in names (tst_name_injection);
    // this is the exporters' own guard for a document built in memory: a
    // name with line breaks stays inside its comment line in every file of
    // both targets.
    PlanDocument doc = handPlan(2, 2, {{"n0", {0, 1, 2, 3}}, {"n1", {4, 5, 6, 7}}}, {16, 16}, {"none", "none"});
    const std::string evil = "x\ntouch PWNED\r\ntouch PWNED2\xc2\x85touch PWNED3\xe2\x80\xa8touch PWNED4";
    doc.problem.model.name = evil;
    doc.origin = evil;
    doc.incomplete = evil;
    doc.objective = evil;
    doc.plan.stages[1].gpuType = evil;
    std::vector<ExportedFile> files = MegatronExport::files(doc);
    for (auto& f : FlagScaleExport::files(doc, "/tmp/out\nx: 1"))
        files.push_back(f);
    for (const auto& f : files) {
        std::istringstream in(f.content);
        for (std::string line; std::getline(in, line);) {
            QVERIFY2(line.rfind("touch", 0) != 0, (f.name + ": " + line).c_str());
            QVERIFY2(line.find('\r') == std::string::npos, (f.name + ": " + line).c_str());
            QVERIFY2(line.find("\xc2\x85") == std::string::npos && line.find("\xe2\x80\xa8") == std::string::npos,
                     (f.name + ": " + line).c_str());
            // As written (with its space) only inside a comment; elsewhere in its safe form.
            if (const auto at = line.find("touch PWNED"); at != std::string::npos)
                QVERIFY2(line.find('#') < at, (f.name + ": " + line).c_str());
        }
    }
}

MEMX_TEST_APPLESS_MAIN(TestMegatronExport)
}  // namespace tst_megatron_export

#include "tst_megatron_export.moc"
