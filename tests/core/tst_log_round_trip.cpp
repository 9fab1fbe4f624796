// Log round trip: export a plan for Megatron-LM, let the reference simulator
// write the run's log in every sample format, import it with
// MegatronLogParser, map ranks back to stages with RankLayout (built from the
// exported arguments, not from the plan), and get every stage's peak back.
#include "TestPaths.h"

#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "profile/MegatronLogParser.h"
#include "profile/RankLayout.h"
#include "search/SearchEngine.h"
#include "sim/ReferenceSimulator.h"

#include <QtTest>

#include <cmath>
#include <sstream>

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
            devices.push_back(node < 0 ? -1 : doc.problem.cluster.nodes()[static_cast<std::size_t>(node)].devices.at(static_cast<std::size_t>(local)));
        agents.push_back({nodeRank, devices});
    }
    std::sort(agents.begin(), agents.end());
    for (const auto& a : agents)
        for (int d : a.second)
            e.deviceOfRank.push_back(d);
    return e;
}

}  // namespace

class TestLogRoundTrip : public QObject {
    Q_OBJECT
private slots:
    void stagePeaksComeBack_data();
    void stagePeaksComeBack();
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
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatches = {1};
    req.problem.setup.maxPipelineStages = 4;
    req.options.topK = 3;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const PlanDocument doc = PlanJsonReader::fromJson(PlanJson::search(req.problem, r), cluster.toStdString());
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
        QVERIFY2(std::abs(peaks[static_cast<std::size_t>(s)] - want) <= 0.005,
                 qPrintable(QString("stage %1: got %2, simulated %3").arg(s).arg(peaks[static_cast<std::size_t>(s)]).arg(want)));
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

QTEST_APPLESS_MAIN(TestLogRoundTrip)
#include "tst_log_round_trip.moc"
