// One sample log per log format in tests/data/megatron_logs, read by
// MegatronLogParser: Megatron-LM main with its argument dump, a resumed run,
// 2020 (rank-less memory), Megatron-DeepSpeed, torchrun --tee with colours,
// srun -l with Python logging, a log collector's timestamps, NeMo 1 and 2,
// Megatron-Bridge (memory in GB), wrapped and cut lines, two starts in one
// file; then the prefixes, the warm-up rule, the memory forms and wrapped
// lines one by one. Expected values are worked out by hand from the log text.
#include "measure/LogLinePrefixes.h"
#include "measure/MegatronLogParser.h"
#include "megatron/RankLayout.h"

#include "TestNumbers.h"
#include "TestPaths.h"

#include "TestMain.h"

namespace tst_log_formats {

using memx::LogLinePrefixes;
using memx::MegatronLog;
using memx::MegatronLogParser;
using memx::RankLayout;
using memx::test::compareMaybeNaN;
using memx::test::kNaN;

class TestLogFormats : public QObject {
    Q_OBJECT

private slots:
    void formatFiles_data();
    void formatFiles();
    void formatDetails();
    void argumentDumpsInLogs();
    void prefixes_data();
    void prefixes();
    void warmup_data();
    void warmup();
    void memoryForms_data();
    void memoryForms();
    void wrappedLines_data();
    void wrappedLines();
};

void TestLogFormats::formatFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<double>("median");  // summary() (--skip-warmup 2)
    QTest::addColumn<QList<int>>("used");  // iterations in that median
    QTest::addColumn<bool>("fromWarmup");
    QTest::addColumn<QString>("note");  // substring of summary().note; "" for none
    QTest::addColumn<QList<int>>("layout");  // tp, pp, dp
    QTest::addColumn<QList<double>>("stagePeak");
    QTest::addColumn<int>("warnings");
    QTest::addColumn<QList<int>>("startLines");

    // Megatron-LM main 2025: the dump (banner on line 6) starts training;
    // iterations 1-5 at --log-interval 1. Iterations 1 and 2 are warm-up:
    // median{7305.2, 7311.9, 7298.4} = 7305.2. DP-rank-0 memory: stage 0 =
    // ranks 0, 1 -> max(41234.56, 41230.12, 43012.34, 43010.99) = 43012.34;
    // stage 1 = ranks 4, 5 -> max(35678.90, 35690.01, 36001.23, 35999.87) = 36001.23.
    QTest::newRow("main 2025, argument dump")
        << "main_2025_argdump_vpp.log" << QList<int>{1, 2, 3, 4, 5} << 7305.2 << QList<int>{3, 4, 5} << false << ""
        << QList<int>{2, 2, 2} << QList<double>{43012.34, 36001.23} << 0 << QList<int>{6};
    // Resumed at 3380: 3381 is the first line after the start (warm-up),
    // 3382 and 3383 remain: (1790.6 + 1788.9) / 2 = 1789.75, two lines only.
    // TP4 DP4: all 16 ranks are stage 0; max of ranks 0-3 = 28012.80.
    QTest::newRow("resumed run, three lines")
        << "resumed_run_three_lines.log" << QList<int>{3381, 3382, 3383} << 1789.75 << QList<int>{3382, 3383} << false
        << "only 2 iteration line(s) after the warm-up (iterations 3382, 3383)" << QList<int>{4, 1, 4}
        << QList<double>{28012.80} << 0 << QList<int>{3};
    // 2020: log_interval 100 in the dump, so the line at 100 averages
    // iterations 1-100 (warm-up). median{421.7, 419.8, 420.5} = 420.5. The
    // memory line has no rank: rank 0's, stage 0 of TP2 PP1 DP4.
    QTest::newRow("Megatron-LM 2020, rank-less memory")
        << "megatron_2020_rankless_memory.log" << QList<int>{100, 200, 300, 400} << 420.5 << QList<int>{200, 300, 400}
        << false << "" << QList<int>{2, 1, 4} << QList<double>{5234.1787109375} << 0 << QList<int>{5};
    // log_interval 10: the line at 10 is warm-up; median{5987.2, 5990.8, 5985.1}
    // = 5987.2. TP2 PP2 DP4 (16 GPUs): stage 0 = ranks 0-7 -> max(23456.7890625,
    // 23450.12109375); stage 1 = ranks 8-15 -> max(19876.5, 19880.25).
    QTest::newRow("Megatron-DeepSpeed, argument dump")
        << "megatron_deepspeed_argdump.log" << QList<int>{10, 20, 30, 40} << 5987.2 << QList<int>{20, 30, 40} << false
        << "" << QList<int>{2, 2, 4} << QList<double>{23456.7890625, 19880.25} << 0 << QList<int>{7};
    // "[defaultN]:" prefixes and colours: 3 and 4 remain, (610.9 + 611.7) / 2 =
    // 611.3. TP1 PP2 DP2: stage 0 = rank 0 (5600.12), stage 1 = rank 2 (4400.50).
    QTest::newRow("torchrun --tee, ANSI colours")
        << "torchrun_tee_ansi.log" << QList<int>{1, 2, 3, 4} << 611.3 << QList<int>{3, 4} << false << "only 2"
        << QList<int>{1, 2, 2} << QList<double>{5600.12, 4400.50} << 0 << QList<int>{3};
    // srun -l + Python logging: median{9098.8, 9104.1, 9101.5, 9110.2} =
    // (9101.5 + 9104.1) / 2 = 9102.8. TP2 PP4 DP2: stage s = ranks 4s..4s+3;
    // each printed by rank 4s, the larger of its two lines.
    QTest::newRow("srun -l, Python logging")
        << "srun_python_logging_layout.log" << QList<int>{1, 2, 3, 4, 5, 6} << 9102.8 << QList<int>{3, 4, 5, 6} << false
        << "" << QList<int>{2, 4, 2} << QList<double>{51234.5, 44500.6, 44480.3, 40012.7} << 0 << QList<int>{3};
    // ISO timestamps + "stdout: "/"stderr: ": (39987.6 + 40003.9) / 2 = 39995.75;
    // TP8: ranks 0-7 are stage 0, the largest is rank 7's 61007.25.
    QTest::newRow("collector timestamps, stdout tags")
        << "k8s_timestamps_stdout.log" << QList<int>{1, 2, 3, 4} << 39995.75 << QList<int>{3, 4} << false << "only 2"
        << QList<int>{8, 1, 1} << QList<double>{61007.25} << 0 << QList<int>{3};
    // NeMo 1 bar: steps 1-5 (global_step + 1; step 3 drawn twice, kept once);
    // 3, 4, 5 remain: median{2.021, 2.027, 2.019} s = 2021 ms. No memory lines.
    QTest::newRow("NeMo 1 progress bar") << "nemo1_lightning_progress.log" << QList<int>{1, 2, 3, 4, 5} << 2021.0
                                         << QList<int>{3, 4, 5} << false << "" << QList<int>{1, 1, 1}
                                         << QList<double>{kNaN} << 0 << QList<int>{};
    // NeMo 2: global_step 0-5 are steps 1-6; 3-6 remain: median{3.398, 3.405,
    // 3.401, 3.409} s = (3.401 + 3.405) / 2 = 3.403 s.
    QTest::newRow("NeMo 2 progress lines")
        << "nemo2_progress_lines.log" << QList<int>{1, 2, 3, 4, 5, 6} << 3403.0 << QList<int>{3, 4, 5, 6} << false << ""
        << QList<int>{1, 1, 1} << QList<double>{kNaN} << 0 << QList<int>{};
    // Megatron-Bridge: "Training ..." starts (line 7), "[after training is
    // done]" ends (line 21); the line at 10 covers iterations 1-10 (gap 10).
    // median{3112.5, 3109.9, 3111.2} = 3111.2. Memory in GB (bytes / 1e9):
    // rank 1's 12.25 GB = 12.25e9 / 2^20 MiB = 11682.510375976562.
    QTest::newRow("Megatron-Bridge, memory in GB")
        << "megatron_bridge_memory_gb.log" << QList<int>{10, 20, 30, 40} << 3111.2 << QList<int>{20, 30, 40} << false
        << "" << QList<int>{2, 1, 1} << QList<double>{11682.510375976562} << 0 << QList<int>{7, 21};
    // Wrapped lines joined: iterations 101-104, median{1432.6, 1429.8, 1431.1,
    // 1430.4} = (1430.4 + 1431.1) / 2 = 1430.75; the cut line 22 (105) warned.
    QTest::newRow("wrapped and cut lines")
        << "wrapped_and_cut_lines.log" << QList<int>{101, 102, 103, 104} << 1430.75 << QList<int>{101, 102, 103, 104}
        << false << "" << QList<int>{1, 2, 1} << QList<double>{15321.9345703125, 12002.1083984375} << 1 << QList<int>{};
    // Two starts: 1-4, then 4-7 after the second dump (line 97). Out: 1, 2
    // (<= 2) and the second 4 (first after a start). median{902.7, 960.3,
    // 903.3, 901.9, 904.6} = 903.3. Rank 0's largest: 7401.00.
    QTest::newRow("restart in one file") << "restart_in_one_file.log" << QList<int>{1, 2, 3, 4, 4, 5, 6, 7} << 903.3
                                         << QList<int>{3, 4, 5, 6, 7} << false << "" << QList<int>{1, 1, 2}
                                         << QList<double>{7401.0} << 0 << QList<int>{3, 97};
    QTest::newRow("no iteration lines") << "bad_no_iteration_lines.log" << QList<int>{} << kNaN << QList<int>{} << false
                                        << "" << QList<int>{2, 2, 2} << QList<double>{kNaN, kNaN} << 0 << QList<int>{3};
    // The only line (3) follows the cut dump's banner: warm-up, which stands in.
    QTest::newRow("cut argument dump") << "bad_truncated_dump.log" << QList<int>{3} << 7305.2 << QList<int>{3} << true
                                       << "using the 1 warm-up line(s) at iteration 3 instead" << QList<int>{2, 2, 2}
                                       << QList<double>{kNaN, kNaN} << 0 << QList<int>{3};
}

void TestLogFormats::formatFiles()
{
    QFETCH(QString, file);
    QFETCH(QList<int>, iterations);
    QFETCH(double, median);
    QFETCH(QList<int>, used);
    QFETCH(bool, fromWarmup);
    QFETCH(QString, note);
    QFETCH(QList<int>, layout);
    QFETCH(QList<double>, stagePeak);
    QFETCH(int, warnings);
    QFETCH(QList<int>, startLines);

    const MegatronLog log = MegatronLogParser::read(memx::test::dataFile("megatron_logs/" + file.toStdString()));
    QList<int> its;
    for (const auto& it : log.iterations)
        its << it.iteration;
    QCOMPARE(its, iterations);
    const auto sum = log.summary();
    compareMaybeNaN(sum.medianIterationMs, median);
    QCOMPARE(QList<int>(sum.usedIterations.begin(), sum.usedIterations.end()), used);
    QCOMPARE(sum.fromWarmup, fromWarmup);
    if (note.isEmpty())
        QVERIFY2(sum.note.empty(), sum.note.c_str());
    else
        QVERIFY2(QString::fromStdString(sum.note).contains(note), sum.note.c_str());
    QCOMPARE(int(log.warnings.size()), warnings);
    QCOMPARE(QList<int>(log.startLines.begin(), log.startLines.end()), startLines);
    const std::vector<double> peaks = MegatronLogParser::stagePeakMiB(log, RankLayout(layout[0], layout[1], layout[2]));
    QCOMPARE(int(peaks.size()), stagePeak.size());
    for (int s = 0; s < stagePeak.size(); ++s)
        compareMaybeNaN(peaks[size_t(s)], stagePeak[s]);
}

void TestLogFormats::formatDetails()
{
    auto read = [](const char* f) {
        return MegatronLogParser::read(memx::test::dataFile(std::string("megatron_logs/") + f));
    };
    // Megatron-DeepSpeed: TFLOPs (with recomputation) and samples per second as printed.
    const MegatronLog ds = read("megatron_deepspeed_argdump.log");
    QCOMPARE(ds.iterations[1].tflopsPerGpu.value(), 103.53);
    QVERIFY(ds.iterations[1].tflopsCountRecompute);
    QCOMPARE(ds.iterations[1].samplesPerSecond.value(), 42.758);
    QCOMPARE(ds.iterations[1].consumedSamples.value(), 5120LL);
    QCOMPARE(ds.iterations[0].interval, 10);  // log_interval of the dump
    QCOMPARE(ds.paddedVocab->padded, 50432);
    QCOMPARE(ds.paddedVocab->size, 50257);
    // NeMo 1: step = global_step + 1, seconds to ms, loss and samples from the bar.
    const MegatronLog n1 = read("nemo1_lightning_progress.log");
    QVERIFY(n1.iterations[0].nemo);
    QCOMPARE(n1.iterations[0].elapsedMs, 5120.0);
    QCOMPARE(n1.iterations[1].lmLoss.value(), 10.80);
    QCOMPARE(n1.iterations[1].consumedSamples.value(), 512LL);
    QCOMPARE(n1.iterations[1].totalIterations, 100);
    QCOMPARE(n1.iterations[1].line, 12);  // every bar state is on physical line 12
    QCOMPARE(n1.lineCount, 13);
    // NeMo 2: "iteration 5/99" is 0-based, global_step 5: step 6.
    const MegatronLog n2 = read("nemo2_progress_lines.log");
    QCOMPARE(n2.iterations.back().iteration, 6);
    QCOMPARE(n2.iterations.back().totalIterations, 99);
    QCOMPARE(n2.iterations.back().globalBatchSize.value(), 32);
    QCOMPARE(n2.iterations.back().consumedSamples.value(), 192LL);
    // Megatron-Bridge: GB lines in MiB; rank 0 after 10 iterations: 12.004 GB.
    const MegatronLog br = read("megatron_bridge_memory_gb.log");
    QVERIFY(br.memory[0].gigabytes);
    QCOMPARE(br.memory[0].maxAllocatedMiB, 12.004e9 / 1048576.0);
    QCOMPARE(br.memory[0].reservedMiB, 12.826e9 / 1048576.0);
    // 2020: rank-less memory, iteration number from "after 100 iterations".
    const MegatronLog old = read("megatron_2020_rankless_memory.log");
    QCOMPARE(old.memory[0].rank, -1);
    QCOMPARE(old.memory[0].iteration, 100);
    QCOMPARE(old.memory[0].reservedMiB, 6120.0);
    QCOMPARE(old.timers.at("forward").size(), size_t(4));
    // Restart: runs numbered, first lines after each start flagged.
    const MegatronLog rs = read("restart_in_one_file.log");
    QList<int> runs, first;
    for (const auto& it : rs.iterations) {
        runs << it.run;
        first << int(it.firstAfterStart);
    }
    QCOMPARE(runs, (QList<int>{0, 0, 0, 0, 1, 1, 1, 1}));
    QCOMPARE(first, (QList<int>{1, 0, 0, 0, 1, 0, 0, 0}));
    // Timestamps of every kind of prefix end up on the iteration record.
    QCOMPARE(read("k8s_timestamps_stdout.log").iterations[0].timestamp, std::string("2025-02-14 08:01:00.000000"));
    QCOMPARE(read("torchrun_tee_ansi.log").iterations[2].timestamp, std::string("2025-01-20 17:02:48.003000"));
}

void TestLogFormats::argumentDumpsInLogs()
{
    auto read = [](const char* f) {
        return MegatronLogParser::read(memx::test::dataFile(std::string("megatron_logs/") + f));
    };
    // A complete dump: banner on line 6, 78 arguments, end banner on line 85.
    const MegatronLog main = read("main_2025_argdump_vpp.log");
    QCOMPARE(int(main.arguments.size()), 1);
    QVERIFY(main.arguments[0].complete());
    QCOMPARE(main.arguments[0].startLine(), 6);
    QCOMPARE(main.arguments[0].endLine(), 85);
    QCOMPARE(int(main.arguments[0].size()), 78);
    QCOMPARE(main.arguments[0].text("recompute_granularity").value(), std::string("selective"));
    // Another rank's warning inside the dump (torchrun --tee) does not end it.
    const MegatronLog tee = read("torchrun_tee_ansi.log");
    QVERIFY(tee.arguments[0].complete());
    QCOMPARE(tee.arguments[0].integer("world_size").value(), 4LL);
    // Prefixed with srun task id and Python logging: still read.
    QCOMPARE(read("srun_python_logging_layout.log").arguments[0].text("pipeline_model_parallel_layout").value(),
             std::string("Et*10|t*8|t*8|t*6L"));
    // 2020: 32-column dots and 20/16-dash banners.
    const MegatronLog old = read("megatron_2020_rankless_memory.log");
    QVERIFY(old.arguments[0].complete());
    QCOMPARE(old.arguments[0].integer("model_parallel_size").value(), 2LL);
    // Cut: the banner on line 3, arguments up to num_attention_heads on line
    // 43, then "..." and an iteration line, which closes it incomplete.
    const MegatronLog cut = read("bad_truncated_dump.log");
    QVERIFY(!cut.arguments[0].complete());
    QCOMPARE(cut.arguments[0].startLine(), 3);
    QCOMPARE(cut.arguments[0].lastArgument(), std::string("num_attention_heads"));
    QCOMPARE(cut.arguments[0].lastLine(), 43);
    // A start line closes an open dump too, and is not read as an argument.
    const MegatronLog t = MegatronLogParser::parse("------------------------ arguments ------------------------\n"
                                                   "  adam_beta1 ...................................... 0.9\n"
                                                   "training ...\n"
                                                   "  zzz_late ........................................ 1\n",
                                                   "open.log");
    QVERIFY(!t.arguments[0].complete());
    QCOMPARE(int(t.arguments[0].size()), 1);
    QCOMPARE(QList<int>(t.startLines.begin(), t.startLines.end()), QList<int>{1});
}

void TestLogFormats::prefixes_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("timestamp");

    QTest::newRow("none") << QByteArray("  adam_beta1 ... 0.9") << "  adam_beta1 ... 0.9"
                          << ""
                          << "";
    QTest::newRow("srun -l") << QByteArray("5: [Rank 5] x") << "[Rank 5] x"
                             << "5/"
                             << "";
    QTest::newRow("srun -l, right-aligned") << QByteArray(" 3: training ...") << "training ..."
                                            << "3/"
                                            << "";
    QTest::newRow("torchrun --tee") << QByteArray("[default3]: iteration") << "iteration"
                                    << "default3/"
                                    << "";
    QTest::newRow("PyTorch rank") << QByteArray("[rank0]: torch.OutOfMemoryError") << "torch.OutOfMemoryError"
                                  << "rank0/"
                                  << "";
    QTest::newRow("stdout tag") << QByteArray("stdout: [Rank 0] m") << "[Rank 0] m"
                                << ""
                                << "";
    QTest::newRow("Megatron timestamp") << QByteArray(" [2026-03-02 10:14:05.118204] iteration        1/")
                                        << "iteration        1/"
                                        << ""
                                        << "2026-03-02 10:14:05.118204";
    QTest::newRow("Bridge timestamp") << QByteArray(" [2025-10-06 03:27:07] iteration") << "iteration"
                                      << ""
                                      << "2025-10-06 03:27:07";
    QTest::newRow("Python logging") << QByteArray("2024-05-01 12:00:01,123 - INFO - training ...") << "training ..."
                                    << ""
                                    << "2024-05-01 12:00:01,123";
    QTest::newRow("Python logging with a logger name")
        << QByteArray("2024-05-01 12:00:01,123 - megatron.training - WARNING - [Rank 0] x") << "[Rank 0] x"
        << ""
        << "2024-05-01 12:00:01,123";
    QTest::newRow("bracketed timestamp, DeepSpeed logger")
        << QByteArray("[2024-05-01 12:00:01,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=10")
        << "[Rank 0] step=10"
        << ""
        << "2024-05-01 12:00:01,123";
    QTest::newRow("collector ISO timestamp")
        << QByteArray("2025-02-14T08:01:00.740700Z stdout:  [2025-02-14 08:01:00.000000] iteration") << "iteration"
        << ""
        << "2025-02-14 08:01:00.000000";
    QTest::newRow("NeMo logger") << QByteArray("[NeMo I 2024-10-09 10:48:44 nemo_logging:393] Experiments")
                                 << "Experiments"
                                 << ""
                                 << "";
    QTest::newRow("ANSI colours") << QByteArray("\x1b[32m[default0]:\x1b[0m [Rank 0] \x1b[1;31mx\x1b[0m")
                                  << "[Rank 0] x"
                                  << "default0/"
                                  << "";
    QTest::newRow("stacked") << QByteArray("12: [default4]: 2024-05-01 12:00:01,123 - INFO - [Rank 4] y")
                             << "[Rank 4] y"
                             << "12/default4/"
                             << "2024-05-01 12:00:01,123";
    QTest::newRow("a number with a colon is not srun") << QByteArray("10:30 is the time") << "10:30 is the time"
                                                       << ""
                                                       << "";
}

void TestLogFormats::prefixes()
{
    QFETCH(QByteArray, raw);
    QFETCH(QString, content);
    QFETCH(QString, source);
    QFETCH(QString, timestamp);
    const memx::StrippedLogLine s = LogLinePrefixes::strip(raw.toStdString());
    QCOMPARE(QString::fromStdString(s.content), content);
    QCOMPARE(QString::fromStdString(s.source), source);
    QCOMPARE(QString::fromStdString(s.timestamp), timestamp);
}

namespace {

QByteArray iterationLine(int n, double ms, int skipped = 0)
{
    return QString(
               " iteration %1/     100 | elapsed time per iteration (ms): %2 | number of skipped iterations: %3 |\n")
        .arg(n, 8)
        .arg(ms, 0, 'f', 1)
        .arg(skipped)
        .toUtf8();
}

}  // namespace

void TestLogFormats::warmup_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("skipWarmup");
    QTest::addColumn<QList<int>>("used");
    QTest::addColumn<double>("median");
    QTest::addColumn<bool>("fromWarmup");

    const QByteArray fresh = iterationLine(1, 900) + iterationLine(2, 120) + iterationLine(3, 100)
        + iterationLine(4, 104) + iterationLine(5, 102);
    QTest::newRow("fresh run, N = 2") << fresh << 2 << QList<int>{3, 4, 5} << 102.0 << false;
    QTest::newRow("fresh run, N = 3") << fresh << 3 << QList<int>{4, 5} << 103.0 << false;
    // N = 0: no line is warm-up by number (no start line before them).
    QTest::newRow("fresh run, N = 0") << fresh << 0 << QList<int>{1, 2, 3, 4, 5} << 104.0 << false;
    // An excerpt from deep in a run, no start lines: nothing to drop.
    QTest::newRow("excerpt at 3383") << iterationLine(3383, 100) + iterationLine(3384, 104) << 2
                                     << QList<int>{3383, 3384} << 102.0 << false;
    // The same after a checkpoint load: its first line is warm-up.
    QTest::newRow("excerpt after a load") << " loading checkpoint from /c at iteration 3382\n"
            + iterationLine(3383, 150) + iterationLine(3384, 104) + iterationLine(3385, 100)
                                          << 2 << QList<int>{3384, 3385} << 102.0 << false;
    // N = 0 still drops the first line after a start.
    QTest::newRow("after a load, N = 0") << "training ...\n" + iterationLine(3383, 150) + iterationLine(3384, 104) << 0
                                         << QList<int>{3384} << 104.0 << false;
    // Numbers going back with no start line: a restart; 6 after 7 is its first line.
    QTest::newRow("numbers go back") << iterationLine(6, 100) + iterationLine(7, 102) + iterationLine(6, 300)
            + iterationLine(7, 104) << 2
                                     << QList<int>{6, 7, 7} << 102.0 << false;
    // Lines every 10 iterations: the line at 10 averages 1-10.
    QTest::newRow("log interval from the gaps")
        << iterationLine(10, 150) + iterationLine(20, 100) + iterationLine(30, 104) << 2 << QList<int>{20, 30} << 102.0
        << false;
    // Only warm-up lines: the ones past iteration 1 stand in.
    QTest::newRow("only iterations 1 and 2")
        << iterationLine(1, 900) + iterationLine(2, 120) << 2 << QList<int>{2} << 120.0 << true;
    QTest::newRow("only iteration 1") << iterationLine(1, 900) << 2 << QList<int>{} << kNaN << false;
    // Skipped iterations never count, not even as stand-ins.
    QTest::newRow("skipped iteration") << iterationLine(3, 100) + iterationLine(4, 50, 1) + iterationLine(5, 104) << 2
                                       << QList<int>{3, 5} << 102.0 << false;
    // A progress bar drawn twice keeps one line.
    QTest::newRow("redrawn NeMo bar") << QByteArray(
        "Epoch 0: : 3/9 [global_step=2.000, train_step_timing in s=0.100]\r"
        "Epoch 0: : 3/9 [global_step=2.000, train_step_timing in s=0.100]\r"
        "Epoch 0: : 4/9 [global_step=3.000, train_step_timing in s=0.104]\n")
                                      << 2 << QList<int>{3, 4} << 102.0 << false;
}

void TestLogFormats::warmup()
{
    QFETCH(QByteArray, text);
    QFETCH(int, skipWarmup);
    QFETCH(QList<int>, used);
    QFETCH(double, median);
    QFETCH(bool, fromWarmup);
    const MegatronLog log = MegatronLogParser::parse(text.toStdString(), "w.log");
    const auto sum = log.summary(skipWarmup);
    QCOMPARE(QList<int>(sum.usedIterations.begin(), sum.usedIterations.end()), used);
    compareMaybeNaN(sum.medianIterationMs, median);
    QCOMPARE(sum.fromWarmup, fromWarmup);
    QCOMPARE(sum.iterationsUsed + sum.iterationsExcluded, int(log.iterations.size()));
    // Fewer than three lines in the median earn a note naming their count.
    if (!used.isEmpty() && (used.size() < MegatronLog::kSteadyLines || fromWarmup))
        QVERIFY2(QString::fromStdString(sum.note).contains(QString::number(used.size()) + " "), sum.note.c_str());
    else
        QVERIFY2(sum.note.empty(), sum.note.c_str());
}

void TestLogFormats::memoryForms_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QList<int>>("layout");  // tp, pp, dp
    QTest::addColumn<QList<double>>("stagePeak");

    const QByteArray rankless2020 = "after 5 iterations memory (MB) | allocated: 3187.44 | max allocated: 5234.17 | "
                                    "reserved: 6120.0 | max reserved: 6120.0\n";
    QTest::newRow("2020 rank-less, PP 1: the only stage")
        << rankless2020 << QList<int>{2, 1, 4} << QList<double>{5234.17};
    QTest::newRow("2019 cached names") << QByteArray(
        "after 100 iterations memory (MB) | allocated: 1.5 | max allocated: "
        "2.5 | cached: 3.0 | max cached: 4.0\n")
                                       << QList<int>{1, 1, 1} << QList<double>{2.5};
    // PP 2: rank 0 (print_rank_0) is on stage 0; stage 1 has no line.
    QTest::newRow("rank-less, PP 2: stage 0 only")
        << rankless2020 << QList<int>{1, 2, 1} << QList<double>{5234.17, kNaN};
    // A ranked line of stage 0 wins over the rank-less one.
    QTest::newRow("ranked wins over rank-less") << rankless2020
            + "[Rank 0] (after 5 iterations) memory (MB) | allocated: 1.0 | max allocated: 4000.0 | reserved: 5.0 | "
              "max reserved: 5.0\n" << QList<int>{1, 2, 1}
                                                << QList<double>{4000.0, kNaN};
    // Megatron-Bridge GB: 1.048576 GB = 1.048576e9 bytes = 1000 MiB.
    QTest::newRow("Bridge GB") << QByteArray(
        "[Rank 1] (after 2 iterations) memory (GB) | mem-allocated-gigabytes: 0.5 | "
        "mem-reserved-gigabytes: 2.0 | mem-max-allocated-gigabytes: 1.048576 | mem-max-reserved-gigabytes: 2.0 | "
        "mem-alloc-retires: 0\n")
                               << QList<int>{1, 2, 1} << QList<double>{kNaN, 1000.0};
}

void TestLogFormats::memoryForms()
{
    QFETCH(QByteArray, text);
    QFETCH(QList<int>, layout);
    QFETCH(QList<double>, stagePeak);
    const MegatronLog log = MegatronLogParser::parse(text.toStdString(), "m.log");
    QVERIFY(log.warnings.empty());
    const auto peaks = MegatronLogParser::stagePeakMiB(log, RankLayout(layout[0], layout[1], layout[2]));
    QCOMPARE(int(peaks.size()), stagePeak.size());
    for (int s = 0; s < stagePeak.size(); ++s)
        compareMaybeNaN(peaks[size_t(s)], stagePeak[s]);
}

void TestLogFormats::wrappedLines_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<int>("memory");
    QTest::addColumn<int>("warnings");

    const QByteArray first = "3:  iteration        6/      50 | elapsed time per iteration (ms): 100.0 |\n";
    // Continuations of another stream are not joined: the cut line stays cut.
    QTest::newRow("other stream") << first
            + "3:  iteration        7/      50 | elapsed time per iteration (ms): 100.0 | lm loss:\n0: 1.0 |\n"
                                  << QList<int>{6} << 0 << 1;
    QTest::newRow("same stream") << first
            + "3:  iteration        7/      50 | elapsed time per iteration (ms): 100.0 | lm loss:\n3:  1.0 |\n"
                                 << QList<int>{6, 7} << 0 << 0;
    // A record of its own ends the search.
    QTest::newRow("next record") << QByteArray(
        " iteration        7/      50 | elapsed time per\n"
        " iteration        8/      50 | elapsed time per iteration (ms): 100.0 |\n")
                                 << QList<int>{8} << 0 << 1;
    QTest::newRow("memory in three pieces") << QByteArray(
        "[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.0 | max al\nlocated: 2.0 | reserved: 3.0 |"
        " max re\nserved: 4.0\n") << QList<int>{}
                                            << 1 << 0;
    // More than 8 continuation lines is not a wrapped line.
    QTest::newRow("too many pieces") << first
            + "3:  iteration        7/      50 | elapsed time per iteration (ms): 1\n3: 0\n3: 0\n3: 0\n3: 0\n3: 0\n3: 0\n"
              "3: 0\n3: 0\n3: .0 |\n" << QList<int>{6}
                                     << 0 << 1;
}

void TestLogFormats::wrappedLines()
{
    QFETCH(QByteArray, text);
    QFETCH(QList<int>, iterations);
    QFETCH(int, memory);
    QFETCH(int, warnings);
    const MegatronLog log = MegatronLogParser::parse(text.toStdString(), "wrap.log");
    QList<int> its;
    for (const auto& it : log.iterations)
        its << it.iteration;
    QCOMPARE(its, iterations);
    QCOMPARE(int(log.memory.size()), memory);
    QCOMPARE(int(log.warnings.size()), warnings);
    if (memory > 0)
        QCOMPARE(log.memory[0].maxReservedMiB, 4.0);
}

MEMX_TEST_APPLESS_MAIN(TestLogFormats)
}  // namespace tst_log_formats

#include "tst_log_formats.moc"
