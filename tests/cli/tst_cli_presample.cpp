// memx-cli profile-plan --presample, then simulate, then profile-plan
// --from: the paper's profiler (section 3.2.1) end to end on the sample
// 8 x A100 cluster, and its refusals.
#include "CliRunner.h"
#include "TestPaths.h"

#include "measure/MeasurementCsv.h"

#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_cli_presample {

using namespace memx;

class TestCliPresample : public QObject {
    Q_OBJECT
private slots:
    void init() { QVERIFY(m_tmp.isValid()); }
    void presampleThenPlanFromTheMeasurements();
    void sailorsLayerProfilesAnswerTheSweeps();
    void refusals_data();
    void refusals();

private:
    QString path(const QString& name) const { return m_tmp.filePath(name); }
    QTemporaryDir m_tmp;
};

// LLaMA2-7B on A100-80GB: TP {1, 2, 4, 8} (three points 1, 2, 8), micro-batch
// {1, 2, 4, 8, 16} (1, 4, 16), layers {4, 8, ..., 32} (4, 16, 32 and the
// default 8), recompute {0, 1, 2}; sequence length and query groups are the
// model's alone (the search varies neither). Pre-sampling: the base plus the
// other sweep values, 1 + 2 + 2 + 3 + 2 = 10 runs, fewer those that would not
// fit. Three-point sampling of at most four axes: at most 3^4 = 81 runs.
void TestCliPresample::presampleThenPlanFromTheMeasurements()
{
    const QString cluster = QString::fromStdString(test::sampleCluster("homogeneous-8xa100.json"));
    RUN_EXPECT(pre, (QStringList{"profile-plan", "--cluster", cluster, "--presample", "--out", path("pre.csv")}), 0);
    const auto runs = MeasurementCsv::read(path("pre.csv").toStdString(), MeasurementCsv::Kind::RunList).rows;
    QVERIFY2(runs.size() >= 8 && runs.size() <= 10, qPrintable(pre.out));
    for (const Measurement& m : runs) {
        QCOMPARE(m.seqLen, 4096);
        QCOMPARE(m.queryGroups, 32);
        QCOMPARE(m.pp, 1);
    }
    QVERIFY2(pre.out.contains("pre-sampling runs"), qPrintable(pre.out));
    RUN_EXPECT(sim, (QStringList{"simulate", "--cluster", cluster, "--runs", path("pre.csv"), "--out", path("m.csv")}),
               0);
    RUN_EXPECT(plan,
               (QStringList{"profile-plan", "--cluster", cluster, "--from", path("m.csv"), "--out", path("plan.csv")}),
               0);
    QVERIFY2(plan.out.contains("the analytic model's sensitivities would flag"), qPrintable(plan.out));
    // One value is no sweep: sequence length and query groups stay low.
    QVERIFY2(QRegularExpression("\\nseq_len +0\\.0% +0\\.0%  low\\n").match(plan.out).hasMatch(), qPrintable(plan.out));
    QVERIFY(QRegularExpression("\\nquery_groups +0\\.0% +0\\.0%  low\\n").match(plan.out).hasMatch());
    const auto planned = MeasurementCsv::read(path("plan.csv").toStdString(), MeasurementCsv::Kind::RunList).rows;
    QVERIFY2(!planned.empty() && planned.size() <= 81, qPrintable(plan.out));
}

// A public dataset as the pre-sampling runs: Sailor's OPT-350 layer profiles
// on its A100-40GB machines (one inner layer of a 24-stage pipeline, one
// micro-batch an iteration, no memory). The base moves to the one layer they
// measured; TP {1, 2, 4} at micro-batch 1 took 8.223, 5.306 and 4.412 ms:
// (8.223 - 4.412) / (17.941 / 3) = 63.7 %; micro-batch {1, 4, 16} has 1 and
// 4 measured, 8.223 and 30.919 ms: 22.696 / 19.571 = 116.0 %. No peaks, so
// every swept axis stays high-impact; layers and recomputation were never
// varied.
void TestCliPresample::sailorsLayerProfilesAnswerTheSweeps()
{
    const QString model = QString::fromStdString(test::dataFile("measurements/models/opt-350m.json"));
    const QString cluster = QString::fromStdString(test::dataFile("measurements/clusters/sailor-A100-40GB.json"));
    const QString sailor = QString::fromStdString(test::dataFile("measurements/sailor_layers.csv"));
    RUN_EXPECT(plan,
               (QStringList{"profile-plan", "--cluster", cluster, "--model", model, "--no-flash-attention", "--from",
                            sailor, "--out", path("plan.csv")}),
               0);
    QVERIFY2(plan.out.contains("defaults moved to the layer count its stage profiles measured: layers 4 -> 1"),
             qPrintable(plan.out));
    QVERIFY2(plan.out.contains("no single-stage run of A100-40GB: times from the inner stages"), qPrintable(plan.out));
    QVERIFY2(QRegularExpression("\\ntp +63\\.7% +-  high\\n").match(plan.out).hasMatch(), qPrintable(plan.out));
    QVERIFY2(QRegularExpression("\\nmicro_batch +116\\.0% +-  high\\n").match(plan.out).hasMatch(),
             qPrintable(plan.out));
    QVERIFY2(QRegularExpression("\\nlayers +0\\.0% +0\\.0%  high \\(fewer than two points measured\\)\\n")
                 .match(plan.out)
                 .hasMatch(),
             qPrintable(plan.out));
    QVERIFY2(plan.out.contains("not measured (left out of the amplitudes): A100-40GB_tp1_mbs16_seq2048_l1_g16_rcnone"),
             qPrintable(plan.out));
    const auto planned = MeasurementCsv::read(path("plan.csv").toStdString(), MeasurementCsv::Kind::RunList).rows;
    QVERIFY2(!planned.empty() && planned.size() <= 81, qPrintable(plan.out));
}

void TestCliPresample::refusals_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("says");
    QTest::newRow("both --presample and --from")
        << QStringList{"--presample", "--from", "@/x.csv"} << "give one of them";
    QTest::newRow("--from a file without the type's runs")
        << QStringList{"--from", "@/other.csv"} << "no pre-sampling run of A100-80GB";
    QTest::newRow("query groups not dividing the heads")
        << QStringList{"--query-groups", "3"} << "dividing the 32 heads";
}

void TestCliPresample::refusals()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, says);
    // A measurement file of another GPU's runs.
    QFile other(path("other.csv"));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms,"
                "peak_mem_mib\n"
                "v,V100-32GB,1,1,1,1,1,4,4096,8,4096,32,32000,900,20000\n");
    other.close();
    QStringList args{"profile-plan", "--cluster",
                     QString::fromStdString(test::sampleCluster("homogeneous-8xa100.json")), "--out",
                     path("refused.csv")};
    for (const QString& e : extra)
        args << (e.startsWith("@/") ? path(e.mid(2)) : e);
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(says), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("refused.csv")));
}

MEMX_TEST_GUILESS_MAIN(TestCliPresample)
}  // namespace tst_cli_presample

#include "tst_cli_presample.moc"
