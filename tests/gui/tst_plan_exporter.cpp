// The plan export without a window (issue #34 item 4): what the Export menu
// writes for a searched plan, in each target, and what it says when it
// cannot. The files are those `memx-cli export --plan` writes (through the
// plan's memx-plan/2 document).
#include "PlanExporter.h"
#include "TestPaths.h"

#include "export/PlanJsonReader.h"
#include "hardware/Cluster.h"
#include "model/ModelSpec.h"
#include "search/SearchEngine.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include "TestMain.h"

#include <algorithm>

namespace tst_plan_exporter {

using namespace memx;

namespace {

SearchRequest request(MeshMode meshes)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.meshes = meshes;
    req.options.threads = 2;
    return req;
}

}  // namespace

class TestPlanExporter : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void writesEachTarget_data();
    void writesEachTarget();
    void jsonReadsBackAsThePlan();
    void noDestinationWritesNothing();
    void perMeshPlanIsRefusedByMegatronNamingFlagScale();

private:
    QTemporaryDir dir_;
    SearchRequest uniform_ = request(MeshMode::Uniform);
    SearchResult result_;
};

void TestPlanExporter::initTestCase()
{
    QVERIFY(dir_.isValid());
    result_ = SearchEngine::run(uniform_);
    QVERIFY2(!result_.best.empty(), result_.error.c_str());
}

void TestPlanExporter::writesEachTarget_data()
{
    QTest::addColumn<int>("target");
    QTest::addColumn<QString>("destination");
    QTest::addColumn<QStringList>("files");  // relative to the folder (or the file itself)
    QTest::newRow("megatron") << int(ExportTarget::Megatron) << "megatron"
                              << QStringList{"launch_node0.sh", "hostfile", "sbatch.sh"};
    QTest::newRow("flagscale") << int(ExportTarget::FlagScale) << "flagscale"
                               << QStringList{"conf/train_hetero.yaml", "conf/train/memx_plan.yaml", "hostfile"};
    QTest::newRow("json") << int(ExportTarget::Json) << "plan.json" << QStringList{};
}

void TestPlanExporter::writesEachTarget()
{
    QFETCH(int, target);
    QFETCH(QString, destination);
    QFETCH(QStringList, files);
    const Plan& plan = result_.best.front();
    const QString where = dir_.filePath(destination);
    const PlanExporter::Outcome out
        = PlanExporter::write({uniform_, result_, plan, "test.memx", "analytic", "the test's search"},
                              ExportTarget(target), where);
    QVERIFY2(out.ok, qPrintable(out.message));
    // The message names the plan's time (one decimal) and what was written.
    QVERIFY2(out.message.contains(QString::number(plan.iterationMs, 'f', 1)), qPrintable(out.message));
    if (files.isEmpty()) {
        QCOMPARE(out.files, QStringList{QFileInfo(where).absoluteFilePath()});
        QVERIFY(QFileInfo::exists(where));
        return;
    }
    const QDir folder(where);
    for (const QString& f : files) {
        QVERIFY2(out.files.contains(folder.absoluteFilePath(f)), qPrintable(f));
        QVERIFY2(QFileInfo::exists(folder.absoluteFilePath(f)), qPrintable(f));
    }
    // The scripts say which search planned them.
    QFile script(folder.absoluteFilePath(files.front()));
    QVERIFY(script.open(QIODevice::ReadOnly));
    QVERIFY(script.readAll().contains("Planned for the test's search"));
}

void TestPlanExporter::jsonReadsBackAsThePlan()
{
    const Plan& plan = result_.best.front();
    const QString file = dir_.filePath(QStringLiteral("again.json"));
    QVERIFY(PlanExporter::write({uniform_, result_, plan, "test.memx", "analytic", "the test's search"},
                                ExportTarget::Json, file)
                .ok);
    const PlanDocument doc = PlanJsonReader::read(file.toStdString());
    QCOMPARE(doc.plan.tp, plan.tp);
    QCOMPARE(doc.plan.pp, plan.pp);
    QCOMPARE(doc.plan.dp, plan.dp);
    QCOMPARE(doc.plan.layersString(), plan.layersString());
    QCOMPARE(doc.plan.iterationMs, plan.iterationMs);
}

void TestPlanExporter::noDestinationWritesNothing()
{
    const PlanExporter::Outcome out
        = PlanExporter::write({uniform_, result_, result_.best.front(), "test.memx", "analytic", "test"},
                              ExportTarget::Megatron, QString());
    QVERIFY(!out.ok);
    QVERIFY(out.files.isEmpty());
    QCOMPARE(out.message, QStringLiteral("No destination given."));
}

void TestPlanExporter::perMeshPlanIsRefusedByMegatronNamingFlagScale()
{
    SearchRequest perType = request(MeshMode::PerType);
    const SearchResult r = SearchEngine::run(perType);
    const auto it = std::find_if(r.best.begin(), r.best.end(), [](const Plan& p) { return p.perMesh(); });
    QVERIFY2(it != r.best.end(), "the 20-GPU sample's per-type search ranks per-mesh plans");
    const QString where = dir_.filePath(QStringLiteral("refused"));
    const PlanExporter::Outcome out
        = PlanExporter::write({perType, r, *it, "test.memx", "analytic", "test"}, ExportTarget::Megatron, where);
    QVERIFY(!out.ok);
    QVERIFY2(out.message.startsWith(QStringLiteral("Megatron-LM cannot run this plan: ")), qPrintable(out.message));
    QVERIFY2(out.message.contains(QStringLiteral("flagscale")), qPrintable(out.message));
    QVERIFY(!QFileInfo::exists(where));  // nothing written
    // FlagScale runs it.
    QVERIFY(PlanExporter::write({perType, r, *it, "test.memx", "analytic", "test"}, ExportTarget::FlagScale,
                                dir_.filePath(QStringLiteral("meshes")))
                .ok);
}

MEMX_TEST_GUILESS_MAIN(TestPlanExporter)
}  // namespace tst_plan_exporter

#include "tst_plan_exporter.moc"
