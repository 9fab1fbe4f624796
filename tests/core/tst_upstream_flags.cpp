// Every flag MemX writes for Megatron-LM and FlagScale, held against what the
// upstream argument parsers accept (tests/data/upstream/megatron_flags.json,
// extracted from megatron/training/arguments.py at pinned commits): the flag
// exists, a store_true flag has no value, a valued flag has as many values as
// its nargs, and each value has the flag's type and is one of its choices.
// Covered: the argument builder over a table of jobs (splits, VPP, GQA,
// recompute, precision, attention), whole launch scripts of sample plans
// (model, data and training arrays), the profiling planner's commands, and
// the FlagScale config flattened the way FlagScale's runner flattens it, whose
// launcher keys are held against the keys FlagScale reads
// (reference/EXPORT_AND_LOGS.md section 3).
#include "TestPaths.h"

#include "export/FlagScaleExport.h"
#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "hardware/GpuCatalog.h"
#include "profiling/ProfilingPlanner.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace tst_upstream_flags {

using namespace memx;

namespace {

const nlohmann::json& table(const std::string& which)
{
    static const nlohmann::json doc = [] {
        std::ifstream in(test::dataFile("upstream/megatron_flags.json"));
        return nlohmann::json::parse(in);
    }();
    return doc.at("tables").at(which);
}

bool isFlag(const std::string& t) { return t.size() > 2 && t.rfind("--", 0) == 0; }

bool isInteger(const std::string& v) { return std::regex_match(v, std::regex(R"(-?\d+)")); }
bool isNumber(const std::string& v) { return std::regex_match(v, std::regex(R"(-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)")); }

// Empty when every flag of `args` is accepted by the parser of `which`,
// else the first problem.
std::string check(const std::vector<std::string>& args, const std::string& which)
{
    const nlohmann::json& flags = table(which).at("flags");
    for (std::size_t i = 0; i < args.size();) {
        const std::string flag = args[i++];
        if (!isFlag(flag))
            return "\"" + flag + "\" is not a flag";
        std::vector<std::string> values;
        while (i < args.size() && !isFlag(args[i]))
            values.push_back(args[i++]);
        if (!flags.contains(flag))
            return flag + " is not a flag of " + which;
        const nlohmann::json& f = flags.at(flag);
        const std::string action = f.value("action", "store");
        if (action == "store_true" || action == "store_false") {
            if (!values.empty())
                return flag + " takes no value, got " + values.front();
            continue;
        }
        const auto nargs = f.contains("nargs") ? f.at("nargs") : nlohmann::json();
        if (nargs.is_null() && values.size() != 1)
            return flag + " takes one value, got " + std::to_string(values.size());
        if (nargs == "+" && values.empty())
            return flag + " takes at least one value";
        if (nargs.is_number_integer() && static_cast<int>(values.size()) != nargs.get<int>())
            return flag + " takes " + std::to_string(nargs.get<int>()) + " values";
        const std::string type = f.value("type", "str");
        for (const auto& v : values) {
            if (type == "int" && !isInteger(v))
                return flag + " takes integers, got " + v;
            if (type == "float" && !isNumber(v))
                return flag + " takes numbers, got " + v;
            if (f.contains("choices")) {
                bool ok = false;
                for (const auto& c : f.at("choices"))
                    ok = ok || (c.is_string() ? c.get<std::string>() == v : c.dump() == v);
                if (!ok)
                    return flag + " " + v + " is not one of " + f.at("choices").dump();
            }
        }
    }
    return {};
}

std::vector<std::string> words(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;)
        out.push_back(w.size() >= 2 && w.front() == '\'' && w.back() == '\'' ? w.substr(1, w.size() - 2) : w);
    return out;
}

// The pretrain_gpt.py arguments of a launch script: the MEGATRON_ARGS array
// and the defaults of DATA_ARGS and TRAIN_ARGS.
std::vector<std::string> scriptArguments(const std::string& script)
{
    std::vector<std::string> out;
    std::istringstream in(script);
    bool inArgs = false;
    for (std::string line; std::getline(in, line);) {
        if (line == "MEGATRON_ARGS=(") {
            inArgs = true;
        } else if (inArgs && line == ")") {
            inArgs = false;
        } else if (inArgs) {
            for (auto& w : words(line))
                out.push_back(w);
        } else if (std::smatch m;
                   std::regex_match(line, m, std::regex(R"(read -r -a (DATA|TRAIN)_ARGS <<< "\$\{\w+:-(.*)\}")"))) {
            for (auto& w : words(m[2]))
                out.push_back(w);
        }
    }
    return out;
}

MegatronJob llamaJob()
{
    MegatronJob j;
    j.model = ModelSpec::resolve("llama2-7b");
    j.tp = 2;
    j.pp = 4;
    j.dp = 2;
    j.microBatch = 1;
    j.globalBatch = 64;
    return j;
}

// --- FlagScale's YAML, as far as the exporter writes it ---
struct Yaml {
    std::string value;  // scalar or inline list; empty for a mapping
    std::vector<std::pair<std::string, Yaml>> children;  // in file order
    const Yaml* child(const std::string& k) const
    {
        for (const auto& [key, v] : children)
            if (key == k)
                return &v;
        return nullptr;
    }
};

std::string unquote(std::string v)
{
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
        v = v.substr(1, v.size() - 2);
    return v;
}

Yaml parseYaml(const std::string& text)
{
    Yaml root;
    std::vector<std::pair<int, Yaml*>> stack{{-1, &root}};
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto hash = line.find(" #");
        if (hash != std::string::npos)
            line = line.substr(0, hash);
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#' || line[first] == '-')
            continue;  // blank, comment, or a list item (Hydra's defaults)
        const int indent = static_cast<int>(first);
        const auto colon = line.find(':');
        const std::string key = line.substr(static_cast<std::size_t>(indent), colon - static_cast<std::size_t>(indent));
        std::string value = colon + 1 < line.size() ? line.substr(colon + 1) : "";
        value.erase(0, value.find_first_not_of(' '));
        value.erase(value.find_last_not_of(' ') + 1);
        while (stack.back().first >= indent)
            stack.pop_back();
        stack.back().second->children.push_back({unquote(key), Yaml{value, {}}});
        stack.push_back({indent, &stack.back().second->children.back().second});
    }
    return root;
}

// FlagScale's runner (runner/utils.py): nested mappings inlined, _ -> -,
// True -> bare flag, False dropped, a list -> its items (a nested list one token).
void flatten(const Yaml& node, std::vector<std::string>& out)
{
    for (const auto& [key, v] : node.children) {
        if (!v.children.empty()) {
            flatten(v, out);
            continue;
        }
        std::string flag = "--" + key;
        std::replace(flag.begin(), flag.end(), '_', '-');
        if (v.value == "False")
            continue;
        out.push_back(flag);
        if (v.value == "True")
            continue;
        if (!v.value.empty() && v.value.front() == '[' && v.value.substr(0, 2) != "[[") {
            std::string items = v.value.substr(1, v.value.size() - 2);
            std::replace(items.begin(), items.end(), ',', ' ');
            for (auto& w : words(items))
                out.push_back(unquote(w));
        } else if (v.value.substr(0, 2) == "[[") {
            // per-stage recompute lists: one token per inner list (a Python list literal)
            static const std::regex inner(R"(\[[^\[\]]*\])");
            for (std::sregex_iterator it(v.value.begin(), v.value.end(), inner), end; it != end; ++it)
                out.push_back(it->str());
        } else {
            out.push_back(unquote(v.value));
        }
    }
}

const std::vector<PlanDocument>& samplePlans()
{
    static const std::vector<PlanDocument> all = [] {
        std::vector<PlanDocument> out;
        for (const char* file : {"paper-20gpu-3vendor.json", "modern-h100-h20-910b.json", "paper-6gpu-v100-t4.json"}) {
            for (bool flash : {true, false}) {
                SearchRequest req;
                req.problem.cluster = Cluster::fromFile(test::sampleCluster(file));
                req.problem.model = ModelSpec::resolve("llama2-7b");
                req.problem.setup.globalBatch = 32;
                req.problem.setup.microBatchSizes = {1};
                req.problem.setup.meshes = MeshMode::Uniform;  // plans Megatron-LM runs
                req.problem.setup.maxPipelineStages = 4;
                req.problem.setup.flashAttention = flash;
                req.options.topK = 3;
                const SearchResult r = SearchEngine::run(req);
                const nlohmann::json doc = PlanJson::search(req.problem, r);
                for (int k = 1; k <= static_cast<int>(r.best.size()); ++k)
                    out.push_back(PlanJsonReader::fromJson(doc, file, k));
            }
        }
        return out;
    }();
    return all;
}

}  // namespace

}  // namespace tst_upstream_flags
Q_DECLARE_METATYPE(tst_upstream_flags::MegatronJob)
namespace tst_upstream_flags {

class TestUpstreamFlags : public QObject {
    Q_OBJECT
private slots:
    void theTablesAreThePinnedOnes();
    void checkerRefusesWhatUpstreamRefuses_data();
    void checkerRefusesWhatUpstreamRefuses();
    void argumentBuilder_data();
    void argumentBuilder();
    void launchScriptsOfSamplePlans();
    void profilingCommands();
    void flagScaleConfigOfSamplePlans();
};

void TestUpstreamFlags::theTablesAreThePinnedOnes()
{
    QCOMPARE(table("megatron_lm").at("commit").get<std::string>(),
             std::string("d98e8a64ddf34856e74b24714e3bedb2f5a39553"));
    QCOMPARE(table("flagscale_patched_megatron").at("commit").get<std::string>(),
             std::string("8479eb35fbca9631acb846c3ad5d868e02214227"));
    QCOMPARE(table("flagscale_patched_megatron").at("flagscale_commit").get<std::string>(),
             std::string("da4935ec60193e735bc70b81e259ed04eefd0132"));
}

void TestUpstreamFlags::checkerRefusesWhatUpstreamRefuses_data()
{
    // The checker itself: each row is a mistake upstream's parser rejects.
    QTest::addColumn<QStringList>("args");
    QTest::newRow("no such flag") << QStringList{"--bf17"};
    QTest::newRow("store_true with a value") << QStringList{"--bf16", "1"};
    QTest::newRow("missing value") << QStringList{"--num-layers"};
    QTest::newRow("int flag, text value") << QStringList{"--num-layers", "many"};
    QTest::newRow("not a choice") << QStringList{"--attention-backend", "fastest"};
    QTest::newRow("hetero flag upstream") << QStringList{"--enable-hetero"};
}

void TestUpstreamFlags::checkerRefusesWhatUpstreamRefuses()
{
    QFETCH(QStringList, args);
    std::vector<std::string> a;
    for (const auto& s : args)
        a.push_back(s.toStdString());
    QVERIFY(!check(a, "megatron_lm").empty());
}

void TestUpstreamFlags::argumentBuilder_data()
{
    QTest::addColumn<MegatronJob>("job");
    MegatronJob j = llamaJob();
    QTest::newRow("even 1F1B") << j;
    j.stageLayers = {9, 7, 8, 8};
    QTest::newRow("uneven first") << j;
    j.stageLayers = {9, 8, 8, 7};
    QTest::newRow("uneven first and last") << j;
    j.stageLayers = {9, 6, 10, 7};
    QTest::newRow("arbitrary split: layout") << j;
    j = llamaJob();
    j.virtualStages = 2;
    QTest::newRow("interleaved, even") << j;
    j.stageLayers = {10, 8, 8, 6};
    QTest::newRow("interleaved, uneven first and last") << j;
    j = llamaJob();
    j.model = ModelSpec::resolve("llama3-8b");
    QTest::newRow("GQA") << j;
    j.recompute = Recompute::Selective;
    QTest::newRow("selective recompute") << j;
    j.recompute = Recompute::Full;
    QTest::newRow("full recompute") << j;
    j = llamaJob();
    j.precision = "fp16";
    QTest::newRow("fp16 (V100, T4)") << j;
    j.precision = "fp32";
    QTest::newRow("fp32") << j;
    j.precision = "tf32";
    QTest::newRow("tf32 (fp32 arguments)") << j;
    j.precision = "fp8";
    QTest::newRow("fp8 (Transformer Engine)") << j;
    j = llamaJob();
    j.flashAttention = false;
    QTest::newRow("without flash attention") << j;
    j = llamaJob();
    j.model.tiedEmbeddings = false;
    j.model.headDim = 256;  // not hidden / heads: --kv-channels
    j.tp = 1;  // no sequence parallel
    QTest::newRow("untied, kv-channels, TP 1") << j;
    j = llamaJob();
    j.distributedOptimizer = false;
    j.sequenceParallel = false;
    QTest::newRow("no distributed optimizer or SP") << j;
}

void TestUpstreamFlags::argumentBuilder()
{
    QFETCH(MegatronJob, job);
    const std::vector<std::string> args = MegatronCommandLine::arguments(job);
    for (const char* which : {"megatron_lm", "flagscale_patched_megatron"}) {
        const std::string why = check(args, which);
        QVERIFY2(why.empty(), why.c_str());
    }
}

void TestUpstreamFlags::launchScriptsOfSamplePlans()
{
    int scripts = 0;
    std::set<std::string> precisions;
    for (const PlanDocument& doc : samplePlans())
        for (const ExportedFile& f : MegatronExport::files(doc)) {
            if (f.name.rfind("launch_node", 0) != 0)
                continue;
            const std::vector<std::string> args = scriptArguments(f.content);
            QVERIFY2(args.size() > 20, f.content.c_str());
            const std::string why = check(args, "megatron_lm");
            QVERIFY2(why.empty(), qPrintable(QString::fromStdString(doc.file + " " + f.name + ": " + why)));
            for (const char* p : {"--bf16", "--fp16"})
                if (std::find(args.begin(), args.end(), p) != args.end())
                    precisions.insert(p);
            ++scripts;
        }
    QVERIFY(scripts >= 6);
    QCOMPARE(precisions, (std::set<std::string>{"--bf16", "--fp16"}));  // the V100/T4 cluster trains in fp16
}

void TestUpstreamFlags::profilingCommands()
{
    const ModelSpec m = ModelSpec::resolve("llama2-7b");
    for (const char* gpu : {"A100-80GB", "V100-32GB", "Ascend-910B"}) {
        StageQuery q
            = ProfilingPlanner::baseQuery(m, *GpuCatalog::builtin().find(gpu), ProfilingPlanner::defaultAxes(m));
        q = ProfilingPlanner::apply(q, "tp", 2);
        const std::string cmd = ProfilingPlanner::megatronCommand(PlannedRun{q, 100, 0.1}, m);
        const auto at = cmd.find(" pretrain_gpt.py ");
        QVERIFY(at != std::string::npos);
        const std::vector<std::string> args = words(cmd.substr(at + 17));
        const std::string why = check(args, "megatron_lm");
        QVERIFY2(why.empty(), (std::string(gpu) + ": " + why + "\n" + cmd).c_str());
        const bool bf16 = std::find(args.begin(), args.end(), "--bf16") != args.end();
        QCOMPARE(bf16, std::string(gpu) != "V100-32GB");
    }
}

void TestUpstreamFlags::flagScaleConfigOfSamplePlans()
{
    // Keys FlagScale's runner reads from the launcher file (reference
    // section 3: runner_train.py, runner/utils.py update_nodes_envs).
    const std::set<std::string> runnerKeys{"backend",      "nnodes",      "nproc_per_node", "hostfile",
                                           "rdzv_backend", "master_port", "master_addr"};
    int configs = 0;
    for (const PlanDocument& doc : samplePlans()) {
        std::vector<ExportedFile> files;
        try {
            files = FlagScaleExport::files(doc, "/tmp/memx-export");
        } catch (const std::exception&) {
            continue;  // plans FlagScale cannot run are refused (tst_flagscale_export)
        }
        std::map<std::string, std::string> byName;
        for (const auto& f : files)
            byName[f.name] = f.content;
        const Yaml train = parseYaml(byName.at("conf/train/memx_plan.yaml"));
        std::vector<std::string> args;
        for (const char* section : {"system", "model", "data"})
            if (const Yaml* s = train.child(section))
                flatten(*s, args);
        const std::string why = check(args, "flagscale_patched_megatron");
        QVERIFY2(why.empty(),
                 qPrintable(
                     QString::fromStdString(doc.file + ": " + why + "\n" + byName.at("conf/train/memx_plan.yaml"))));

        const Yaml launcher = parseYaml(byName.at("conf/train_hetero.yaml"));
        const Yaml* experiment = launcher.child("experiment");
        QVERIFY(experiment);
        for (const auto& [key, v] : experiment->child("runner")->children)
            QVERIFY2(runnerKeys.count(key), key.c_str());
        QVERIFY(unquote(experiment->child("runner")->child("hostfile")->value).rfind("/tmp/memx-export/hostfile", 0)
                == 0);
        // envs: variables, device_type_specific.<type>, node_specific.<host>; nothing else nested.
        std::set<std::string> hostTypes, hosts;
        std::istringstream hf(byName.at("hostfile"));
        for (std::string line; std::getline(hf, line);)
            if (std::smatch m; std::regex_search(line, m, std::regex(R"(^(\S+) slots=\d+ type=(\S+))"))) {
                hosts.insert(m[1]);
                hostTypes.insert(m[2]);
            }
        const Yaml* envs = experiment->child("envs");
        QVERIFY(envs);
        std::set<std::string> typed;
        for (const auto& [key, v] : envs->children) {
            if (key == "device_type_specific") {
                for (const auto& [type, vars] : v.children) {
                    QVERIFY2(hostTypes.count(type), type.c_str());
                    typed.insert(type);
                    bool visible = false;
                    for (const auto& [var, value] : vars.children)
                        visible = visible || std::regex_match(var, std::regex(R"(\w+_VISIBLE_DEVICES)"));
                    QVERIFY2(visible, type.c_str());  // run_node counts devices from it
                }
            } else if (key == "node_specific") {
                for (const auto& [host, vars] : v.children)
                    QVERIFY2(hosts.count(host), host.c_str());
            } else {
                QVERIFY2(v.children.empty(), key.c_str());  // any other mapping is not merged
            }
        }
        QCOMPARE(typed, hostTypes);
        ++configs;
    }
    QVERIFY(configs >= 3);
}

MEMX_TEST_GUILESS_MAIN(TestUpstreamFlags)
}  // namespace tst_upstream_flags

#include "tst_upstream_flags.moc"
