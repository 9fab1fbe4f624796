// fp32 training and TF32 (docs/PRECISION.md, "fp32 or TF32: what a run
// used"): a run says how its fp32 matmuls ran (column fp32_matmul), one that
// does not is read as NVIDIA's PyTorch containers run it, and every launcher
// the tool writes sets the math the plan was predicted in.
#include "export/FlagScaleExport.h"
#include "export/MegatronExport.h"
#include "export/PlanJsonReader.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "measure/RunScenario.h"

#include "TestMain.h"

#include <nlohmann/json.hpp>

namespace tst_fp32_matmul {

using namespace memx;

namespace {

const char* const kHeader
    = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms,precision,"
      "fp32_matmul\n";

std::string row(const std::string& gpu, const std::string& precision, const std::string& matmul)
{
    return "a," + gpu + ",1,1,1,1,1,8,1024,4,1024,16,32000,500," + precision + "," + matmul + "\n";
}

// A plan of LLaMA2-7B on two nodes of 4 A100-80GB, in `precision`.
PlanDocument planIn(const std::string& precision)
{
    nlohmann::json plan = {{"format", "memx-plan/2"},
                           {"tp", 4},
                           {"pp", 2},
                           {"dp", 1},
                           {"micro_batch", 1},
                           {"global_batch", 16},
                           {"micro_batch_count", 16},
                           {"seq_len", 4096},
                           {"query_groups", 32},
                           {"schedule", "1f1b"},
                           {"virtual_stages", 1},
                           {"iteration_ms", 1000.0},
                           {"max_mem_mib", 50000.0},
                           {"provenance", "analytic"}};
    int first = 0;
    for (const char* g : {"n0", "n1"}) {
        plan["stages"].push_back(
            {{"group", g},
             {"devices", g == std::string("n0") ? nlohmann::json{0, 1, 2, 3} : nlohmann::json{4, 5, 6, 7}},
             {"first_layer", first},
             {"layers", 16},
             {"recompute", "full"},
             {"peak_mib", 40000.0},
             {"capacity_mib", 81920.0}});
        first += 16;
    }
    plan["tool_version"] = "test";
    plan["predictor"] = "analytic";
    plan["cluster"] = nlohmann::json::parse(R"({"format":"memx-cluster/1","name":"two-nodes",
      "nodes":[{"name":"n0","gpus":[{"type":"A100-80GB","count":4}]},{"name":"n1","gpus":[{"type":"A100-80GB","count":4}]}],
      "links":[{"name":"nv0","kind":"NVLink","within":"n0","bandwidth_gbps":300},
               {"name":"nv1","kind":"NVLink","within":"n1","bandwidth_gbps":300},
               {"name":"ib","kind":"InfiniBand","between":["n0","n1"],"bandwidth_gbps":25}]})");
    plan["model"] = ModelSpec::resolve("llama2-7b").toJson();
    plan["setup"] = {{"global_batch", 16}, {"precision", precision}};
    return PlanJsonReader::fromJson(plan, "plan.json");
}

std::string launchScript(const PlanDocument& doc)
{
    for (const ExportedFile& f : MegatronExport::files(doc))
        if (f.name == "launch_node0.sh")
            return f.content;
    return {};
}

std::string flagScaleFiles(const PlanDocument& doc)
{
    std::string all;
    for (const ExportedFile& f : FlagScaleExport::files(doc, "."))
        all += f.content;
    return all;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

class TestFp32Matmul : public QObject {
    Q_OBJECT
private slots:
    void columnSaysTheMath_data();
    void columnSaysTheMath();
    void columnRefusals_data();
    void columnRefusals();
    void unstatedRunsAsTheContainerRunsThem_data();
    void unstatedRunsAsTheContainerRunsThem();
    void scriptsSetTheMath_data();
    void scriptsSetTheMath();
};

void TestFp32Matmul::columnSaysTheMath_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<QString>("matmul");
    QTest::addColumn<int>("expectPrecision");
    QTest::addColumn<int>("expectMatmul");
    QTest::newRow("fp32, not said") << "fp32"
                                    << "" << int(Precision::Fp32) << int(Fp32Matmul::Unstated);
    QTest::newRow("fp32, ieee") << "fp32"
                                << "ieee" << int(Precision::Fp32) << int(Fp32Matmul::Ieee);
    QTest::newRow("fp32, tf32 is tf32") << "fp32"
                                        << "tf32" << int(Precision::Tf32) << int(Fp32Matmul::Unstated);
    QTest::newRow("tf32") << "tf32"
                          << "" << int(Precision::Tf32) << int(Fp32Matmul::Unstated);
    QTest::newRow("tf32 said twice") << "tf32"
                                     << "tf32" << int(Precision::Tf32) << int(Fp32Matmul::Unstated);
    QTest::newRow("bf16") << "bf16"
                          << "" << int(Precision::Bf16) << int(Fp32Matmul::Unstated);
}

void TestFp32Matmul::columnSaysTheMath()
{
    QFETCH(QString, precision);
    QFETCH(QString, matmul);
    QFETCH(int, expectPrecision);
    QFETCH(int, expectMatmul);
    const auto set
        = MeasurementCsv::parse(kHeader + row("A100-40GB", precision.toStdString(), matmul.toStdString()), "m.csv");
    QCOMPARE(set.rows.size(), std::size_t(1));
    QCOMPARE(int(set.rows[0].precision), expectPrecision);
    QCOMPARE(int(set.rows[0].fp32Matmul), expectMatmul);
    // Written and read back: the same row; the column only where a row needs it.
    const std::string written = MeasurementCsv::write(set.rows);
    QCOMPARE(has(written, "fp32_matmul"), expectMatmul == int(Fp32Matmul::Ieee));
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
}

void TestFp32Matmul::columnRefusals_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<QString>("matmul");
    QTest::addColumn<QString>("reason");
    QTest::newRow("unknown") << "fp32"
                             << "fast"
                             << "tf32 or ieee, got \"fast\"";
    QTest::newRow("tf32 and ieee") << "tf32"
                                   << "ieee"
                                   << "say one of them";
    QTest::newRow("bf16 run") << "bf16"
                              << "tf32"
                              << "this run trains in bf16";
    QTest::newRow("fp16 run") << "fp16"
                              << "ieee"
                              << "this run trains in fp16";
}

void TestFp32Matmul::columnRefusals()
{
    QFETCH(QString, precision);
    QFETCH(QString, matmul);
    QFETCH(QString, reason);
    try {
        MeasurementCsv::parse(kHeader + row("A100-40GB", precision.toStdString(), matmul.toStdString()), "m.csv");
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("m.csv"));
        QCOMPARE(QString::fromStdString(e.field()), QString("line 2, column fp32_matmul"));
        QVERIFY2(QString::fromStdString(e.what()).contains(reason), e.what());
    }
}

// An fp32 run that does not say is timed as TF32 where the GPU has TF32
// (A100, GH200) and as fp32 where it does not (V100); one that says ieee is
// fp32 everywhere. The GEMM time follows: the A100's TF32 peak is 8x its
// fp32 peak (156 vs 19.5 TFLOP/s, datasheet), so the same run is predicted
// several times faster.
void TestFp32Matmul::unstatedRunsAsTheContainerRunsThem_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("matmul");
    QTest::addColumn<QString>("expect");
    QTest::newRow("A100, not said") << "A100-40GB"
                                    << ""
                                    << "tf32";
    QTest::newRow("A100, ieee") << "A100-40GB"
                                << "ieee"
                                << "fp32";
    QTest::newRow("GH200, not said") << "GH200"
                                     << ""
                                     << "tf32";
    QTest::newRow("V100, not said") << "V100-16GB"
                                    << ""
                                    << "fp32";
    QTest::newRow("V100, ieee") << "V100-16GB"
                                << "ieee"
                                << "fp32";
}

void TestFp32Matmul::unstatedRunsAsTheContainerRunsThem()
{
    QFETCH(QString, gpu);
    QFETCH(QString, matmul);
    QFETCH(QString, expect);
    const auto set = MeasurementCsv::parse(kHeader + row(gpu.toStdString(), "fp32", matmul.toStdString()), "m.csv");
    const MeasuredRun run = MeasuredRun::group(set.rows, "m.csv").front();
    PlanSpec spec;
    const Problem problem = RunScenario::problem(run, GpuCatalog::builtin(), spec, "m.csv");
    QCOMPARE(QString::fromStdString(problem.setup.precision), expect);
    if (gpu != "A100-40GB")
        return;
    // The prediction follows the math: TF32 several times faster than IEEE.
    const auto timeOf = [&](const std::string& m) {
        const auto rows = MeasurementCsv::parse(kHeader + row("A100-40GB", "fp32", m), "m.csv").rows;
        PlanSpec s;
        const Problem p
            = RunScenario::problem(MeasuredRun::group(rows, "m.csv").front(), GpuCatalog::builtin(), s, "m.csv");
        return RunScenario::predict(p, s, nullptr).plan.iterationMs;
    };
    QVERIFY2(timeOf("ieee") > 2 * timeOf(""), qPrintable(QString::number(timeOf("ieee") / timeOf(""))));
}

// Every launcher the tool writes sets the fp32 math of the plan, whatever
// the image sets: NVIDIA's PyTorch containers set
// TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1, stock PyTorch leaves TF32 off.
void TestFp32Matmul::scriptsSetTheMath_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<QStringList>("present");
    QTest::addColumn<QStringList>("absent");
    QTest::newRow("fp32") << "fp32"
                          << QStringList{"export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=0\n",
                                         "export NVIDIA_TF32_OVERRIDE=0\n", "IEEE fp32 GEMMs"}
                          << QStringList{"OVERRIDE=1"};
    QTest::newRow("tf32") << "tf32"
                          << QStringList{"unset NVIDIA_TF32_OVERRIDE\n", "export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1\n",
                                         "TF32 GEMMs"}
                          << QStringList{"OVERRIDE=0"};
    QTest::newRow("bf16") << "bf16" << QStringList{"--bf16"} << QStringList{"TF32_OVERRIDE", "TF32_CUBLAS"};
}

void TestFp32Matmul::scriptsSetTheMath()
{
    QFETCH(QString, precision);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    const PlanDocument doc = planIn(precision.toStdString());
    const std::string script = launchScript(doc);
    QVERIFY(!script.empty());
    for (const QString& p : present)
        QVERIFY2(has(script, p.toStdString()), qPrintable(p + " missing in\n" + QString::fromStdString(script)));
    for (const QString& a : absent)
        QVERIFY2(!has(script, a.toStdString()), qPrintable(a + " in\n" + QString::fromStdString(script)));
    // FlagScale's envs: the same variables with the same values.
    const std::string flagScale = flagScaleFiles(doc);
    for (const auto& v : MegatronCommandLine::matmulEnvironment(precision.toStdString()))
        QVERIFY2(has(flagScale, "    " + v.name + ": " + v.value), flagScale.c_str());
    if (precision == "bf16")
        QVERIFY(!has(flagScale, "TF32"));
}

MEMX_TEST_GUILESS_MAIN(TestFp32Matmul)
}  // namespace tst_fp32_matmul

#include "tst_fp32_matmul.moc"
