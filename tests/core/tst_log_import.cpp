// LogImporter: the sample logs of tests/data/megatron_logs turned into
// measurement rows, with the run taken from each log's argument dump (no run
// list) or from a run list the dump is checked against, and the logs that
// must be refused. Every expected number is worked out by hand from the log
// text (the per-format medians and peaks are derived in
// tst_megatron_log_parser.cpp's formatFiles rows).
#include "io/InputError.h"
#include "measure/LogImporter.h"
#include "measure/MeasurementCsv.h"

#include "TestPaths.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <cmath>
#include <fstream>

namespace tst_log_import {

using memx::ImportedLog;
using memx::InputError;
using memx::LogImporter;
using memx::LogImportOptions;
using memx::Measurement;
using memx::Recompute;

namespace {

std::string logFile(const QString& name) { return memx::test::dataFile("megatron_logs/" + name.toStdString()); }

constexpr int None = static_cast<int>(Recompute::None);
constexpr int Sel = static_cast<int>(Recompute::Selective);
constexpr int Full = static_cast<int>(Recompute::Full);

// A stage row as (stage, layers, recompute, peak MiB; NaN: the row carries the time instead).
using StageRow = QList<double>;

QString joined(const std::vector<std::string>& lines)
{
    QStringList out;
    for (const std::string& l : lines)
        out << QString::fromStdString(l);
    return out.join("\n");
}

LogImportOptions runListOptions(const QString& csv)
{
    LogImportOptions opt;
    opt.runsFile = logFile(csv);
    opt.runs
        = memx::MeasuredRun::group(memx::MeasurementCsv::read(opt.runsFile, memx::MeasurementCsv::Kind::RunList).rows,
                                   opt.runsFile);
    return opt;
}

}  // namespace

class TestLogImport : public QObject {
    Q_OBJECT

private slots:
    void fromArgumentDump_data();
    void fromArgumentDump();
    void unevenStagesWithoutMemory();
    void refused_data();
    void refused();
    void withRunList();
    void dumpLackingAValue();
    void gpuTypeMap();
    void gpuTypeMapRefuses_data();
    void gpuTypeMapRefuses();
    void unknownGpuType();
    void secondLogForARun();
};

void TestLogImport::fromArgumentDump_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<bool>("allowSetupMismatch");
    QTest::addColumn<QList<int>>(
        "config");  // num_gpus, tp, pp, dp, vp, mbs, gbs, seq, layers, hidden, ffn, heads, groups, vocab, recompute
    QTest::addColumn<double>("timeMs");
    QTest::addColumn<QList<StageRow>>("stages");
    QTest::addColumn<QString>("warning");  // substring of a warning; "" for none

    // world 8 / (TP 2 x PP 2) = DP 2; 32 layers / (PP 2 x 8 per chunk) = VPP 2;
    // GQA 8 groups; vocab from the padded line (50432); selective.
    QTest::newRow("main 2025") << "main_2025_argdump_vpp.log"
                               << "H100-SXM" << false
                               << QList<int>{8, 2, 2, 2, 2, 1, 64, 4096, 32, 4096, 11008, 32, 8, 50432, Sel} << 7305.2
                               << QList<StageRow>{{0, 16, Sel, 43012.34}, {1, 16, Sel, 36001.23}} << "";
    // 16 GPUs / TP 4 = DP 4; no GQA: 16 groups; padded vocab 50688; fp16.
    QTest::newRow("resumed, three lines")
        << "resumed_run_three_lines.log"
        << "A100-80GB" << false << QList<int>{16, 4, 1, 4, 1, 4, 256, 2048, 24, 2048, 8192, 16, 16, 50688, None}
        << 1789.75 << QList<StageRow>{{0, 24, None, 28012.80}} << "only 2 iteration line(s)";
    // checkpoint_activations (full), ZeRO stage 1 (sharded optimizer state).
    QTest::newRow("Megatron-DeepSpeed") << "megatron_deepspeed_argdump.log"
                                        << "A100-80GB" << false
                                        << QList<int>{16, 2, 2, 4, 1, 2, 256, 2048, 24, 2048, 8192, 16, 16, 50432, Full}
                                        << 5987.2
                                        << QList<StageRow>{{0, 12, Full, 23456.7890625}, {1, 12, Full, 19880.25}} << "";
    QTest::newRow("torchrun --tee") << "torchrun_tee_ansi.log"
                                    << "L4" << false
                                    << QList<int>{4, 1, 2, 2, 1, 4, 32, 1024, 12, 768, 3072, 12, 12, 50304, None}
                                    << 611.3 << QList<StageRow>{{0, 6, None, 5600.12}, {1, 6, None, 4400.50}}
                                    << "only 2";
    // Layout Et*10|t*8|t*8|t*6L, full uniform recomputation.
    QTest::newRow("srun, uneven layout")
        << "srun_python_logging_layout.log"
        << "H100-SXM" << false << QList<int>{16, 2, 4, 2, 1, 1, 128, 4096, 32, 4096, 11008, 32, 32, 32000, Full}
        << 9102.8
        << QList<StageRow>{{0, 10, Full, 51234.5}, {1, 8, Full, 44500.6}, {2, 8, Full, 44480.3}, {3, 6, Full, 40012.7}}
        << "";
    // block 80 covers the whole stage: full.
    QTest::newRow("collector timestamps")
        << "k8s_timestamps_stdout.log"
        << "H200" << false << QList<int>{8, 8, 1, 1, 1, 1, 16, 8192, 80, 8192, 28672, 64, 8, 128256, Full} << 39995.75
        << QList<StageRow>{{0, 80, Full, 61007.25}} << "only 2";
    QTest::newRow("restart in one file") << "restart_in_one_file.log"
                                         << "A10G" << false
                                         << QList<int>{2, 1, 1, 2, 1, 8, 64, 1024, 12, 768, 3072, 12, 12, 50304, None}
                                         << 903.3 << QList<StageRow>{{0, 12, None, 7401.0}} << "";
    // 2020: model_parallel_size 2, DP 8 / 2 = 4, batch_size 8, no global batch
    // (8 x 4 = 32), no ffn_hidden_size (4 x 1024), checkpoint_activations
    // (full), padded vocab 50432; no sequence parallelism and no sharded
    // optimizer, which the rows say (sequence_parallel, distributed_optimizer).
    QTest::newRow("2020, no sequence parallelism, unsharded optimizer")
        << "megatron_2020_rankless_memory.log"
        << "V100-32GB" << false << QList<int>{8, 2, 1, 4, 1, 8, 32, 1024, 24, 1024, 4096, 16, 16, 50432, Full} << 420.5
        << QList<StageRow>{{0, 24, Full, 5234.1787109375}} << "";
    // The same with checkpoint_num_layers 2: chunks of full recomputation,
    // imported anyway on request.
    QTest::newRow("2020, chunked recomputation allowed")
        << "megatron_2020_chunked_recompute.log"
        << "V100-32GB" << true << QList<int>{8, 2, 1, 4, 1, 8, 32, 1024, 24, 1024, 4096, 16, 16, 50432, Full} << 420.5
        << QList<StageRow>{{0, 24, Full, 5234.1787109375}} << "imported anyway: --allow-setup-mismatch";
}

void TestLogImport::fromArgumentDump()
{
    QFETCH(QString, file);
    QFETCH(QString, gpu);
    QFETCH(bool, allowSetupMismatch);
    QFETCH(QList<int>, config);
    QFETCH(double, timeMs);
    QFETCH(QList<StageRow>, stages);
    QFETCH(QString, warning);

    LogImportOptions opt;
    opt.gpuType = gpu.toStdString();
    opt.allowSetupMismatch = allowSetupMismatch;
    LogImporter importer(opt);
    const ImportedLog r = importer.import(logFile(file));
    QVERIFY2(r.imported(), qPrintable(joined(r.errors)));
    QCOMPARE(QString::fromStdString(r.runId), QFileInfo(file).completeBaseName());
    QCOMPARE(int(r.rows.size()), 1 + stages.size());

    const Measurement& run = r.rows.front();
    QVERIFY(!run.isStageRow());
    QCOMPARE(QString::fromStdString(run.gpuType), gpu);
    QCOMPARE(run.source, memx::MeasurementSource::Measured);
    const QList<int> got{run.numGpus,   run.tp,    run.pp,          run.dp,        run.vp,
                         run.mbs,       run.gbs,   run.seqLen,      run.numLayers, run.hidden,
                         run.ffnHidden, run.heads, run.queryGroups, run.vocab,     static_cast<int>(run.recompute)};
    QCOMPARE(got, config);
    QCOMPARE(run.iterationTimeMs.value(), timeMs);
    QVERIFY(!run.peakMemMiB);

    for (int i = 0; i < stages.size(); ++i) {
        const Measurement& s = r.rows[size_t(i) + 1];
        QCOMPARE(s.stage.value(), int(stages[i][0]));
        QCOMPARE(s.stageLayers.value(), int(stages[i][1]));
        QCOMPARE(static_cast<int>(s.recompute), int(stages[i][2]));
        QCOMPARE(s.peakMemMiB.value(), stages[i][3]);
        QCOMPARE(s.runId, run.runId);
    }
    if (warning.isEmpty())
        QVERIFY2(r.warnings.empty(), qPrintable(joined(r.warnings)));
    else
        QVERIFY2(joined(r.warnings).contains(warning), qPrintable(joined(r.warnings)));
    // The rows are what a measurement file holds.
    QCOMPARE(memx::MeasurementCsv::parse(memx::MeasurementCsv::write(r.rows), "x.csv").rows.size(), r.rows.size());
}

void TestLogImport::unevenStagesWithoutMemory()
{
    // A reader gives the stages without a row an even share of the layers
    // left. Layout Et*4|t*8|t*4L (PP 3, 16 layers) with memory of stage 2
    // only leaves 12 layers for two stages (6 + 6, not 4 + 8): every stage
    // needs a row, the ones without memory carry the iteration time.
    QTemporaryDir dir;
    const QString path = dir.filePath("uneven.log");
    auto write = [&](const QString& layout, const QString& memory, bool withTime) {
        std::ofstream out(path.toStdString());
        out << "------------------------ arguments ------------------------\n";
        for (const QString& l : QStringList{"  bf16 ............................................ True",
                                            "  global_batch_size ............................... 8",
                                            "  hidden_size ..................................... 1024",
                                            "  micro_batch_size ................................ 1",
                                            "  num_attention_heads ............................. 16",
                                            "  num_layers ...................................... 16",
                                            "  padded_vocab_size ............................... 50304",
                                            "  pipeline_model_parallel_layout .................. " + layout,
                                            "  pipeline_model_parallel_size .................... 3",
                                            "  seq_length ...................................... 2048",
                                            "  tensor_model_parallel_size ...................... 1",
                                            "  use_distributed_optimizer ....................... True",
                                            "  world_size ...................................... 3"})
            out << l.toStdString() << "\n";
        out << "-------------------- end of arguments ---------------------\n";
        if (withTime)
            for (int n = 1; n <= 4; ++n)
                out << " iteration        " << n << "/      10 | elapsed time per iteration (ms): " << 100 + n
                    << ".0 |\n";
        out << memory.toStdString() << "\n";
    };
    LogImportOptions opt;
    opt.gpuType = "A100-80GB";
    const QString rank2
        = "[Rank 2] (after 2 iterations) memory (MB) | allocated: 1.0 | max allocated: 900.0 | reserved: "
          "2.0 | max reserved: 2.0";
    write("Et*4|t*8|t*4L", rank2, true);
    ImportedLog r = LogImporter(opt).import(path.toStdString());
    QVERIFY2(r.imported(), qPrintable(joined(r.errors)));
    // run row (median{103, 104} = 103.5), stage 0 (4 layers, time), stage 1 (8, time), stage 2 (4, memory).
    QCOMPARE(int(r.rows.size()), 4);
    QCOMPARE(r.rows[1].stageLayers.value(), 4);
    QCOMPARE(r.rows[1].iterationTimeMs.value(), 103.5);
    QCOMPARE(r.rows[2].stageLayers.value(), 8);
    QCOMPARE(r.rows[2].iterationTimeMs.value(), 103.5);
    QCOMPARE(r.rows[3].stageLayers.value(), 4);
    QCOMPARE(r.rows[3].peakMemMiB.value(), 900.0);
    // The rows read back into the same split.
    const auto back = memx::MeasuredRun::group(r.rows, "x").front();
    QCOMPARE(back.stages[1].layers, 8);
    // Even leftovers (memory of stage 0, 10 layers; 6 left for two stages = 3 + 3): no extra rows.
    write("Et*10|t*3|t*3L", QString(rank2).replace("Rank 2", "Rank 0"), true);
    r = LogImporter(opt).import(path.toStdString());
    QVERIFY2(r.imported(), qPrintable(joined(r.errors)));
    QCOMPARE(int(r.rows.size()), 2);
    // Without an iteration time nothing can stand in the rows: refused.
    write("Et*4|t*8|t*4L", rank2 + "\n iteration        1/      10 | elapsed time per iteration (ms): 900.0 |", false);
    r = LogImporter(opt).import(path.toStdString());
    QVERIFY(!r.imported());
    QVERIFY2(joined(r.errors).contains("not split evenly"), qPrintable(joined(r.errors)));
    QVERIFY(r.rows.empty());
}

void TestLogImport::refused_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("runList");  // "" for none
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QStringList>("errors");  // substrings, each in its own error

    QTest::newRow("no iteration lines") << "bad_no_iteration_lines.log"
                                        << ""
                                        << "H100-SXM"
                                        << QStringList{"bad_no_iteration_lines.log: no iteration line in its 86 lines"};
    QTest::newRow("cut argument dump")
        << "bad_truncated_dump.log"
        << ""
        << "H100-SXM"
        << QStringList{"bad_truncated_dump.log: line 3: the argument dump starting here has no end banner",
                       "it stops after argument num_attention_heads on line 43"};
    QTest::newRow("two configurations")
        << "bad_two_configurations.log"
        << ""
        << "A10G"
        << QStringList{"bad_two_configurations.log: line 125, argument micro_batch_size = 4 differs from 8 in the dump "
                       "at line 3"};
    // The dump (tensor_model_parallel_size on line 70, world_size on line 84,
    // seq_length on line 67) against tp 4, dp 1, seq_len 2048 in the list.
    QTest::newRow("contradicts the run list")
        << "main_2025_argdump_vpp.log"
        << "runs_contradicting.csv"
        << ""
        << QStringList{
               "main_2025_argdump_vpp.log: line 70, argument tensor_model_parallel_size = 2 gives tp 2, but run "
               "main_2025_argdump_vpp in",
               "main_2025_argdump_vpp.log: line 84, argument world_size = 8 gives dp 2, but",
               "main_2025_argdump_vpp.log: line 67, argument seq_length = 4096 gives seq_len 4096, but"};
    QTest::newRow("GPU type against the run list")
        << "resumed_run_three_lines.log"
        << "runs_matching.csv"
        << "H100-SXM" << QStringList{"GPU type H100-SXM given for this log, but run resumed_run_three_lines in"};
    // Full recomputation in chunks of 2 layers.
    QTest::newRow("setup the planner does not model")
        << "megatron_2020_chunked_recompute.log"
        << ""
        << "V100-32GB"
        << QStringList{"megatron_2020_chunked_recompute.log: line 10, argument checkpoint_activations = True: full "
                       "recomputation in chunks of 2 layers keeps fewer layer inputs",
                       "--allow-setup-mismatch imports it anyway"};
    QTest::newRow("no dump, no run list") << "nemo2_progress_lines.log"
                                          << ""
                                          << "H100-SXM" << QStringList{"nemo2_progress_lines.log: no argument dump"};
    QTest::newRow("no GPU type") << "main_2025_argdump_vpp.log"
                                 << ""
                                 << ""
                                 << QStringList{"no GPU type for this log; give --gpu-type or a line "
                                                "\"main_2025_argdump_vpp.log <gpu-type>\" in --gpu-type-map"};
    QTest::newRow("named after no run") << "k8s_timestamps_stdout.log"
                                        << "runs_matching.csv"
                                        << "" << QStringList{"no run \"k8s_timestamps_stdout\" in"};
    QTest::newRow("unreadable") << "no_such.log"
                                << ""
                                << "H100-SXM" << QStringList{"no_such.log: cannot open"};
}

void TestLogImport::refused()
{
    QFETCH(QString, file);
    QFETCH(QString, runList);
    QFETCH(QString, gpu);
    QFETCH(QStringList, errors);
    LogImportOptions opt = runList.isEmpty() ? LogImportOptions{} : runListOptions(runList);
    opt.gpuType = gpu.toStdString();
    const ImportedLog r = LogImporter(opt).import(logFile(file));
    QVERIFY(!r.imported());
    QVERIFY(r.rows.empty());
    for (const QString& e : errors)
        QVERIFY2(joined(r.errors).contains(e), qPrintable("missing: " + e + "\nin:\n" + joined(r.errors)));
    for (const std::string& e : r.errors)
        QVERIFY2(QString::fromStdString(e).contains(file), e.c_str());
}

void TestLogImport::withRunList()
{
    LogImporter importer(runListOptions("runs_matching.csv"));
    // The dump agrees (the list gives the unpadded vocabulary, 50257): the list's run.
    const ImportedLog main = importer.import(logFile("main_2025_argdump_vpp.log"));
    QVERIFY2(main.imported(), qPrintable(joined(main.errors)));
    QCOMPARE(main.rows.front().vocab, 50257);
    QCOMPARE(main.rows.front().iterationTimeMs.value(), 7305.2);
    // Megatron-Bridge has no dump: the list alone; TP2 PP1: stage 0 peak = 12.25 GB in MiB.
    const ImportedLog bridge = importer.import(logFile("megatron_bridge_memory_gb.log"));
    QVERIFY2(bridge.imported(), qPrintable(joined(bridge.errors)));
    QCOMPARE(int(bridge.rows.size()), 2);
    QCOMPARE(bridge.rows[0].iterationTimeMs.value(), 3111.2);
    QCOMPARE(bridge.rows[1].peakMemMiB.value(), 12.25e9 / 1048576.0);
    QCOMPARE(importer.runsWithoutLog(), std::vector<std::string>{"resumed_run_three_lines"});
}

void TestLogImport::dumpLackingAValue()
{
    // An excerpt without the " > padded vocab" line: a real dump has no
    // padded_vocab_size (Megatron sets it after printing) and vocab_size None.
    QTemporaryDir dir;
    const QString copy = dir.filePath("main_2025_argdump_vpp.log");
    {
        std::ifstream in(logFile("main_2025_argdump_vpp.log"));
        std::ofstream out(copy.toStdString());
        for (std::string line; std::getline(in, line);)
            if (line.find("padded vocab") == std::string::npos)
                out << line << "\n";
    }
    // With a run list the log is still usable: its vocabulary, unchecked.
    const ImportedLog listed = LogImporter(runListOptions("runs_matching.csv")).import(copy.toStdString());
    QVERIFY2(listed.imported(), qPrintable(joined(listed.errors)));
    QCOMPARE(listed.rows.front().vocab, 50257);
    QVERIFY2(joined(listed.warnings).contains("no vocabulary size")
                 && joined(listed.warnings).contains("the argument dump is not checked against"),
             qPrintable(joined(listed.warnings)));
    // Without one there is nothing to take the vocabulary from.
    LogImportOptions opt;
    opt.gpuType = "H100-SXM";
    const ImportedLog alone = LogImporter(opt).import(copy.toStdString());
    QVERIFY(!alone.imported());
    QVERIFY2(joined(alone.errors).contains("argument vocab_size: no vocabulary size"),
             qPrintable(joined(alone.errors)));
}

void TestLogImport::gpuTypeMap()
{
    const auto map = LogImporter::readGpuTypeMap(logFile("gpu_types.map"));
    QCOMPARE(int(map.size()), 4);
    QCOMPARE(map.at("torchrun_tee_ansi"), std::string("L4"));
    LogImportOptions opt;
    opt.gpuTypes = map;
    opt.gpuType = "H200";  // the map wins for the logs it names
    LogImporter importer(opt);
    QCOMPARE(importer.import(logFile("megatron_deepspeed_argdump.log")).rows.front().gpuType, std::string("A100-80GB"));
    QCOMPARE(importer.import(logFile("torchrun_tee_ansi.log")).rows.front().gpuType, std::string("L4"));  // by stem
    QCOMPARE(importer.import(logFile("k8s_timestamps_stdout.log")).rows.front().gpuType, std::string("H200"));
}

void TestLogImport::gpuTypeMapRefuses_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    QTest::newRow("one word") << QByteArray("# map\na.log\n") << "line 2"
                              << "expected \"log-file-name gpu-type\"";
    QTest::newRow("three words") << QByteArray("a.log H100-SXM extra\n") << "line 1"
                                 << "got \"a.log H100-SXM extra\"";
    QTest::newRow("twice") << QByteArray("a.log H100-SXM\n\na.log A100-80GB\n") << "line 3"
                           << "a second line for a.log";
}

void TestLogImport::gpuTypeMapRefuses()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    const std::string path = dir.filePath("types.map").toStdString();
    std::ofstream(path) << text.toStdString();
    try {
        LogImporter::readGpuTypeMap(path);
        QFAIL("expected an InputError");
    } catch (const InputError& e) {
        QCOMPARE(e.file(), path);
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

void TestLogImport::unknownGpuType()
{
    LogImportOptions opt;
    opt.gpuTypes = {{"a.log", "H1000"}};
    QVERIFY_THROWS_EXCEPTION(InputError, LogImporter{opt});
    opt.gpuTypes.clear();
    opt.gpuType = "H1000";
    try {
        LogImporter{opt};
        QFAIL("expected an InputError");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("unknown GPU type \"H1000\""), e.what());
    }
}

void TestLogImport::secondLogForARun()
{
    LogImportOptions opt;
    opt.gpuType = "A10G";
    LogImporter importer(opt);
    QVERIFY(importer.import(logFile("restart_in_one_file.log")).imported());
    const ImportedLog again = importer.import(logFile("restart_in_one_file.log"));
    QVERIFY(!again.imported());
    QVERIFY2(joined(again.errors).contains("a second log for run restart_in_one_file (the first: "),
             qPrintable(joined(again.errors)));
}

MEMX_TEST_APPLESS_MAIN(TestLogImport)
}  // namespace tst_log_import

#include "tst_log_import.moc"
