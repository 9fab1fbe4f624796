// Log round trip: export a plan for Megatron-LM, let the reference simulator
// write the run's log in every sample format, import it with
// MegatronLogParser, map ranks back to stages with RankLayout (built from the
// exported arguments, not from the plan), and get every stage's peak back.
// And without a run list: the exported arguments printed as Megatron's
// argument dump in front of the simulated log, imported by LogImporter, give
// back the exported job (parallelism, batch, model, layer split, recompute)
// and the simulated peaks.
#include "TestPaths.h"

#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "measure/LogImporter.h"
#include "measure/MegatronLogParser.h"
#include "megatron/RankLayout.h"
#include "search/SearchEngine.h"
#include "sim/ReferenceSimulator.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace tst_log_round_trip {

using namespace memx;

namespace {

struct Exported {
    int tp = 0, pp = 0, world = 0;
    std::vector<int> deviceOfRank;  // from the scripts' node ranks and visible devices
};

// TP, PP and world size from the exported scripts, and where each rank runs.
Exported readBack(const PlanDocument& doc, const std::vector<ExportedFile>& files)
{
    Exported e;
    std::vector<std::pair<int, std::vector<int>>> agents;  // node rank -> global devices
    for (const auto& f : files) {
        if (f.name.rfind("launch_node", 0) != 0)
            continue;
        std::istringstream in(f.content);
        std::string line, host;
        int nodeRank = -1;
        std::vector<int> visible;
        while (std::getline(in, line)) {
            auto value = [&](const char* key) { return std::stoi(line.substr(line.find(key) + std::strlen(key))); };
            if (line.find("--tensor-model-parallel-size ") != std::string::npos)
                e.tp = value("--tensor-model-parallel-size ");
            if (line.find("--pipeline-model-parallel-size ") != std::string::npos)
                e.pp = value("--pipeline-model-parallel-size ");
            if (line.rfind("NODE_RANK=", 0) == 0)
                nodeRank = value("NODE_RANK=");
            if (line.rfind("NPROC_PER_NODE=", 0) == 0)
                e.world += value("NPROC_PER_NODE=");
            // The vendor runtime's variable (CUDA_, ASCEND_RT_, HIP_VISIBLE_DEVICES, ...).
            if (line.rfind("export ", 0) == 0 && line.find("_VISIBLE_") != std::string::npos) {
                std::stringstream v(line.substr(line.find('=') + 1));
                std::string tok;
                while (std::getline(v, tok, ','))
                    visible.push_back(std::stoi(tok));
            }
            const auto at = line.find(" on host ");
            if (line.rfind("# Node rank", 0) == 0 && at != std::string::npos)
                host = line.substr(at + 9, line.find(':', at) - at - 9);
        }
        int node = -1;
        for (std::size_t n = 0; n < doc.problem.cluster.nodes().size(); ++n)
            if (doc.problem.cluster.nodes()[n].name == host)
                node = static_cast<int>(n);
        std::vector<int> devices;
        for (int local : visible)
            devices.push_back(node < 0 ? -1
                                       : doc.problem.cluster.nodes()[static_cast<std::size_t>(node)].devices.at(
                                           static_cast<std::size_t>(local)));
        agents.push_back({nodeRank, devices});
    }
    std::sort(agents.begin(), agents.end());
    for (const auto& a : agents)
        for (int d : a.second)
            e.deviceOfRank.push_back(d);
    return e;
}

// The best plan for LLaMA2-7B, GBS 32, on a sample cluster, as a plan document.
PlanDocument bestPlan(const QString& cluster)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1};
    req.problem.setup.meshes = MeshMode::Uniform;  // plans Megatron-LM runs
    req.problem.setup.maxPipelineStages = 4;
    req.options.topK = 3;
    const SearchResult r = SearchEngine::run(req);
    if (!r.error.empty())
        throw std::runtime_error(r.error);
    return PlanJsonReader::fromJson(PlanJson::search(req.problem, r), cluster.toStdString());
}

// pretrain_gpt.py arguments as Megatron's _print_args prints them after
// argparse: "--foo-bar V" is foo_bar = V, a flag without value True; sorted
// case-insensitively, names dot-padded to 48 columns. world_size comes from
// the launcher (WORLD_SIZE), not from an argument.
std::string argumentDump(const std::vector<std::string>& args, int worldSize)
{
    std::map<std::string, std::string> values{{"world_size", std::to_string(worldSize)}};
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i].substr(2);
        std::replace(name.begin(), name.end(), '-', '_');
        const bool hasValue = i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
        values[name] = hasValue ? args[++i] : "True";
    }
    std::vector<std::string> lines;
    for (const auto& [name, value] : values)
        lines.push_back("  " + name + " " + std::string(name.size() < 48 ? 48 - name.size() : 0, '.') + " " + value);
    std::sort(lines.begin(), lines.end(), [](std::string a, std::string b) {
        std::transform(a.begin(), a.end(), a.begin(), ::tolower);
        std::transform(b.begin(), b.end(), b.begin(), ::tolower);
        return a < b;
    });
    std::string out = "------------------------ arguments ------------------------\n";
    for (const std::string& l : lines)
        out += l + "\n";
    return out + "-------------------- end of arguments ---------------------\n";
}

}  // namespace

class TestLogRoundTrip : public QObject {
    Q_OBJECT
private slots:
    void stagePeaksComeBack_data();
    void stagePeaksComeBack();
    void runComesBackFromTheArgumentDump_data() { stagePeaksComeBack_data(); }
    void runComesBackFromTheArgumentDump();
};

void TestLogRoundTrip::stagePeaksComeBack_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<int>("format");
    for (const char* c : {"paper-20gpu-3vendor.json", "modern-h100-h20-910b.json", "paper-6gpu-v100-t4.json",
                          "homogeneous-8xa100.json", "paper-table1-xy.json"})
        for (auto f : ReferenceSimulator::logFormats())
            QTest::newRow((std::string(c) + " " + ReferenceSimulator::toString(f)).c_str())
                << QString::fromLatin1(c) << static_cast<int>(f);
}

void TestLogRoundTrip::stagePeaksComeBack()
{
    QFETCH(QString, cluster);
    QFETCH(int, format);
    const PlanDocument doc = bestPlan(cluster);
    const Plan& plan = doc.plan;

    const Exported e = readBack(doc, MegatronExport::files(doc));
    QCOMPARE(e.tp, plan.tp);
    QCOMPARE(e.pp, plan.pp);
    const RankLayout layout(e.tp, e.pp, e.world / (e.tp * e.pp));
    QCOMPARE(layout.worldSize(), e.world);

    const ReferenceSimulator sim(7);
    const SimulatedRun run = sim.run(doc.problem, plan, 6, 2);
    const std::string text = sim.megatronLog(run, plan, static_cast<ReferenceSimulator::LogFormat>(format));
    QVERIFY(text.rfind("# SIMULATED", 0) == 0);
    const MegatronLog log = MegatronLogParser::parse(text, "simulated.log");
    QCOMPARE(static_cast<int>(log.iterations.size()), 6);
    const std::vector<double> peaks = MegatronLogParser::stagePeakMiB(log, layout);
    QCOMPARE(static_cast<int>(peaks.size()), plan.pp);
    for (int s = 0; s < plan.pp; ++s) {
        const double want = run.stages[static_cast<std::size_t>(s)].maxAllocatedMiB;
        QVERIFY2(
            std::abs(peaks[static_cast<std::size_t>(s)] - want) <= 0.005,
            qPrintable(
                QString("stage %1: got %2, simulated %3").arg(s).arg(peaks[static_cast<std::size_t>(s)]).arg(want)));
        // Every rank of the stage runs, per the exported scripts, on a GPU of
        // the stage's device group.
        for (int rank : layout.ranksOfStage(s)) {
            const int device = e.deviceOfRank.at(static_cast<std::size_t>(rank));
            QVERIFY(device >= 0);
            QCOMPARE(doc.problem.cluster.devices()[static_cast<std::size_t>(device)].group,
                     plan.stages[static_cast<std::size_t>(s)].group);
        }
    }
    // The median iteration time comes back too (to the 0.1 ms the log prints).
    const auto summary = log.summary(2);
    QVERIFY(std::abs(summary.medianIterationMs - run.medianIterationMs) <= 0.05 + 1e-9);
}

void TestLogRoundTrip::runComesBackFromTheArgumentDump()
{
    QFETCH(QString, cluster);
    QFETCH(int, format);
    const PlanDocument doc = bestPlan(cluster);
    const Plan& plan = doc.plan;
    const MegatronJob job = MegatronExport::jobFor(doc, MegatronExport::recomputeFor(plan).level);
    const int world = plan.tp * plan.pp * plan.dp;

    const ReferenceSimulator sim(7);
    const SimulatedRun run = sim.run(doc.problem, plan, 6, 2);
    const int vocab = doc.problem.model.vocab;
    QTemporaryDir dir;
    const std::string file = dir.filePath("planned_run.log").toStdString();
    std::ofstream(file) << argumentDump(MegatronCommandLine::arguments(job), world)
                        << " > padded vocab (size: " << vocab << ") with 0 dummy tokens (new size: " << vocab
                        << ")\ntraining ...\n"
                        << sim.megatronLog(run, plan, static_cast<ReferenceSimulator::LogFormat>(format));

    const Cluster& c = doc.problem.cluster;
    const std::string gpu
        = c.types()[static_cast<std::size_t>(c.groups()[static_cast<std::size_t>(plan.stages[0].group)].type)].name;
    LogImportOptions opt;
    opt.gpuType = gpu;
    const ImportedLog imported = LogImporter(opt).import(file);
    std::string errors;
    for (const std::string& e : imported.errors)
        errors += e + "\n";
    QVERIFY2(imported.imported(), errors.c_str());
    QCOMPARE(static_cast<int>(imported.rows.size()), 1 + plan.pp);

    const Measurement& r = imported.rows.front();
    QCOMPARE(r.runId, std::string("planned_run"));
    QCOMPARE(r.gpuType, gpu);
    QCOMPARE((std::vector<int>{r.tp, r.pp, r.dp, r.vp, r.mbs, r.gbs, r.seqLen}),
             (std::vector<int>{job.tp, job.pp, job.dp, std::max(1, job.virtualStages), job.microBatch, job.globalBatch,
                               plan.seqLen}));
    const ModelSpec& m = job.model;
    QCOMPARE((std::vector<int>{r.numLayers, r.hidden, r.ffnHidden, r.heads, r.queryGroups, r.vocab}),
             (std::vector<int>{m.numLayers, m.hidden, m.ffnHidden, m.heads, plan.queryGroups, vocab}));
    QVERIFY(std::abs(*r.iterationTimeMs - run.medianIterationMs) <= 0.05 + 1e-9);
    for (int s = 0; s < plan.pp; ++s) {
        const Measurement& st = imported.rows[static_cast<std::size_t>(s) + 1];
        QCOMPARE(st.stage.value(), s);
        QCOMPARE(st.stageLayers.value(), plan.stages[static_cast<std::size_t>(s)].layers);
        QCOMPARE(st.recompute, job.recompute);
        QVERIFY(std::abs(*st.peakMemMiB - run.stages[static_cast<std::size_t>(s)].maxAllocatedMiB) <= 0.005);
    }
}

MEMX_TEST_APPLESS_MAIN(TestLogRoundTrip)
}  // namespace tst_log_round_trip

#include "tst_log_round_trip.moc"
