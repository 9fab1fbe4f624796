// Megatron-LM log import: the sample logs in tests/data/megatron_logs, one per
// log format (iteration, memory and timer lines, argument dumps, launcher
// prefixes, NeMo, Megatron-Bridge, wrapped lines, restarts; expected values
// worked out by hand from the log text), the timer formats the samples lack
// (--timing-log-option max and all, logger and launcher prefixes), the
// warm-up rule, Megatron's rank order, and damaged input.
#include "io/InputError.h"
#include "profile/LogLinePrefixes.h"
#include "profile/MegatronLogParser.h"
#include "profile/RankLayout.h"

#include "TestPaths.h"

#include <QtTest/QtTest>

#include <cmath>
#include <limits>

using memx::InputError;
using memx::LogLinePrefixes;
using memx::MegatronLog;
using memx::MegatronLogParser;
using memx::RankCoords;
using memx::RankLayout;
using memx::TimerStat;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

void compareMaybeNaN(double actual, double expected)
{
    if (std::isnan(expected))
        QVERIFY2(std::isnan(actual), qPrintable(QString("expected NaN, got %1").arg(actual)));
    else
        QCOMPARE(actual, expected);
}

QStringList timerNames(const MegatronLog& log)
{
    QStringList names;
    for (const auto& [name, values] : log.timers)
        names << QString::fromStdString(name);
    return names;  // std::map: sorted
}

}  // namespace

class TestMegatronLogParser : public QObject {
    Q_OBJECT

private slots:
    void sampleLogs_data();
    void sampleLogs();
    void currentMainDetails();
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
    void timerForms_data();
    void timerForms();
    void rankLayoutRoundTrip_data();
    void rankLayoutRoundTrip();
    void rankLayoutHandExamples();
    void rankLayoutRejectsBadInput();
    void damagedInput_data();
    void damagedInput();
    void unreadableFileNamesIt();
    void stageOutsideLayoutIsAnInputError();
};

void TestMegatronLogParser::sampleLogs_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<double>("medianAll");      // summary(0): no iteration number is warm-up
    QTest::addColumn<double>("medianDefault");  // summary(): lines averaging over iterations <= 2 dropped
    QTest::addColumn<double>("lastTflops");     // NaN: not in the log
    QTest::addColumn<QList<int>>("memRanks");   // memory records in log order
    QTest::addColumn<QList<double>>("memMaxAllocated");
    QTest::addColumn<QStringList>("timers");
    QTest::addColumn<int>("warnings");
    QTest::addColumn<QList<int>>("layout");  // tp, pp, dp from the log's "# Setup" line
    QTest::addColumn<QList<double>>("stagePeak");

    // Iterations 1-4: 9821.4, 8353.5, 8340.6, 8336.7 ms, one per line (the
    // gaps are 1), no start line before them. summary(0) keeps all four:
    // (8340.6 + 8353.5) / 2 = 8347.05; summary(2) drops iterations 1 and 2:
    // median{8340.6, 8336.7} = (8340.6 + 8336.7) / 2 = 8338.65.
    // Memory from ranks 0, 4, 1, 5 (DP rank 0 of TP2 PP2 DP2); stage 0 =
    // ranks 0-3 -> max(38911.20, 38907.95); stage 1 = ranks 4-7 ->
    // max(30422.87, 30419.02). Two (min, max) timer blocks of 5 timers.
    QTest::newRow("current_main_tp2_pp2")
        << "current_main_tp2_pp2.log" << QList<int>{1, 2, 3, 4} << 8347.05 << 8338.65 << 72.3
        << QList<int>{0, 4, 1, 5} << QList<double>{38911.20, 30422.87, 38907.95, 30419.02}
        << QStringList{"backward-compute", "batch-generator", "forward-backward", "forward-compute", "optimizer"}
        << 0 << QList<int>{2, 2, 2} << QList<double>{38911.20, 30422.87};

    // Iterations 10 and 20: 2411.8, 2398.2 ms. summary(0) = (2411.8 + 2398.2)
    // / 2 = 2405.0. The gap of 10 says --log-interval 10: the line at 10
    // averages iterations 1-10, which holds the warm-up, so summary(2) =
    // 2398.2 (the line at 20, iterations 11-20).
    // Raw-float memory from ranks 0-3; TP1 PP4 DP1: stage = rank. Two
    // one-line timer lines of 7 timers.
    QTest::newRow("legacy_2022_onelinetimers")
        << "legacy_2022_onelinetimers.log" << QList<int>{10, 20} << 2405.0 << 2398.2 << kNaN
        << QList<int>{0, 1, 2, 3}
        << QList<double>{14301.1806640625, 11209.7626953125, 8702.3818359375, 9011.0439453125}
        << QStringList{"backward-compute", "backward-embedding-all-reduce", "backward-params-all-reduce",
                       "batch-generator", "forward-compute", "optimizer", "optimizer-copy-to-main-grad"}
        << 0 << QList<int>{1, 4, 1}
        << QList<double>{14301.1806640625, 11209.7626953125, 8702.3818359375, 9011.0439453125};

    // Iterations 30, 31: 5122.7, 5119.1 ms -> (5122.7 + 5119.1) / 2 = 5120.9,
    // both past the warm-up (iteration numbers, not line positions).
    // "TFLOPs: 142.87" on the last line. Memory of rank 0 only; no timers.
    // TP4 PP1 DP2: one stage.
    QTest::newRow("megatron_deepspeed_style")
        << "megatron_deepspeed_style.log" << QList<int>{30, 31} << 5120.9 << 5120.9 << 142.87 << QList<int>{0}
        << QList<double>{30102.5595703125} << QStringList{} << 0 << QList<int>{4, 1, 2}
        << QList<double>{30102.5595703125};

    // "N: " prefixes, ranks interleaved. Iterations 5, 6 (printed by rank 5):
    // 10066.3, 10061.0 ms -> (10066.3 + 10061.0) / 2 = 10063.65 with or
    // without the warm-up (both lines are past iteration 2). Memory:
    // rank 0 (7581.40), rank 2 (6950.22), rank 4 cut off at "reser" on line 6
    // (skipped, one warning), rank 0 again (7581.40). TP2 PP3 DP1: stage 0 =
    // ranks 0-1, stage 1 = ranks 2-3, stage 2 = ranks 4-5 -> no data (NaN).
    QTest::newRow("slurm_prefixed_interleaved")
        << "slurm_prefixed_interleaved.log" << QList<int>{5, 6} << 10063.65 << 10063.65 << kNaN << QList<int>{0, 2, 0}
        << QList<double>{7581.40, 6950.22, 7581.40} << QStringList{} << 1 << QList<int>{2, 3, 1}
        << QList<double>{7581.40, 6950.22, kNaN};
}

void TestMegatronLogParser::sampleLogs()
{
    QFETCH(QString, file);
    QFETCH(QList<int>, iterations);
    QFETCH(double, medianAll);
    QFETCH(double, medianDefault);
    QFETCH(double, lastTflops);
    QFETCH(QList<int>, memRanks);
    QFETCH(QList<double>, memMaxAllocated);
    QFETCH(QStringList, timers);
    QFETCH(int, warnings);
    QFETCH(QList<int>, layout);
    QFETCH(QList<double>, stagePeak);

    const MegatronLog log = MegatronLogParser::read(memx::test::dataFile("megatron_logs/" + file.toStdString()));

    QList<int> its;
    for (const auto& it : log.iterations)
        its << it.iteration;
    QCOMPARE(its, iterations);
    compareMaybeNaN(log.summary(0).medianIterationMs, medianAll);
    compareMaybeNaN(log.summary().medianIterationMs, medianDefault);
    if (std::isnan(lastTflops))
        QVERIFY(!log.iterations.back().tflopsPerGpu.has_value());
    else
        QCOMPARE(log.iterations.back().tflopsPerGpu.value(), lastTflops);

    QList<int> ranks;
    QList<double> maxAlloc;
    for (const auto& m : log.memory) {
        ranks << m.rank;
        maxAlloc << m.maxAllocatedMiB;
    }
    QCOMPARE(ranks, memRanks);
    QCOMPARE(maxAlloc, memMaxAllocated);
    QCOMPARE(timerNames(log), timers);
    QCOMPARE(int(log.warnings.size()), warnings);
    for (const auto& w : log.warnings)
        QVERIFY2(QString::fromStdString(w).contains(file), w.c_str());

    const RankLayout rl(layout[0], layout[1], layout[2]);
    const std::vector<double> peaks = MegatronLogParser::stagePeakMiB(log, rl);
    QCOMPARE(int(peaks.size()), int(stagePeak.size()));
    for (int s = 0; s < stagePeak.size(); ++s)
        compareMaybeNaN(peaks[size_t(s)], stagePeak[s]);
}

void TestMegatronLogParser::currentMainDetails()
{
    const MegatronLog log = MegatronLogParser::read(memx::test::dataFile("megatron_logs/current_main_tp2_pp2.log"));
    QCOMPARE(int(log.iterations.size()), 4);
    const auto& first = log.iterations.front();
    QCOMPARE(first.totalIterations, 50);
    QCOMPARE(first.elapsedMs, 9821.4);
    QCOMPARE(first.timestamp, std::string("2026-03-02 10:14:05.118204"));
    QCOMPARE(first.consumedSamples.value(), 32LL);
    QCOMPARE(first.globalBatchSize.value(), 32);
    QCOMPARE(first.lmLoss.value(), 10.39431);
    QVERIFY(first.warmup(2));  // iteration 1
    QVERIFY(!first.tflopsCountRecompute);
    QVERIFY(log.iterations[1].warmup(2));  // iteration 2 <= 2
    QVERIFY(!log.iterations[2].warmup(2));
    QCOMPARE(first.line, 3);

    // Memory record of rank 4: every field.
    const auto& m = log.memory[1];
    QCOMPARE(m.rank, 4);
    QCOMPARE(m.iteration, 1);
    QCOMPARE(m.when, std::string("after 1 iterations"));
    QCOMPARE(m.allocatedMiB, 20110.12);
    QCOMPARE(m.maxAllocatedMiB, 30422.87);
    QCOMPARE(m.reservedMiB, 33544.00);
    QCOMPARE(m.maxReservedMiB, 33544.00);

    // forward-compute: (3010.44, 3388.19) after iteration 1, (2844.02, 3101.47) after 2.
    const auto& fc = log.timers.at("forward-compute");
    QCOMPARE(int(fc.size()), 2);
    QCOMPARE(fc[0].iteration, 1);
    QCOMPARE(fc[0].minMs, 3010.44);
    QCOMPARE(fc[0].maxMs, 3388.19);
    QCOMPARE(fc[1].iteration, 2);
    QCOMPARE(fc[1].maxMs, 3101.47);
    QVERIFY(fc[0].stat == TimerStat::MinMax);

    const auto sum = log.summary();
    QCOMPARE(sum.iterationsUsed, 2);
    QCOMPARE(sum.iterationsExcluded, 2);
    QCOMPARE(int(sum.peakAllocatedMiB.size()), 4);
    QCOMPARE(sum.peakAllocatedMiB.at(1), 38907.95);
    QCOMPARE(sum.peakAllocatedMiB.at(5), 30419.02);

    // DeepSpeed's TFLOPs include recomputation.
    const MegatronLog ds = MegatronLogParser::read(memx::test::dataFile("megatron_logs/megatron_deepspeed_style.log"));
    QVERIFY(ds.iterations.front().tflopsCountRecompute);
    QCOMPARE(ds.iterations.front().tflopsPerGpu.value(), 142.77);
    // Legacy: one-line timers attach to the iteration printed before them.
    const MegatronLog legacy =
        MegatronLogParser::read(memx::test::dataFile("megatron_logs/legacy_2022_onelinetimers.log"));
    const auto& bc = legacy.timers.at("backward-compute");
    QCOMPARE(int(bc.size()), 2);
    QCOMPARE(bc[0].iteration, 10);
    QCOMPARE(bc[0].maxMs, 1240.87);
    QCOMPARE(bc[1].iteration, 20);
    QCOMPARE(bc[1].maxMs, 1236.10);
    QVERIFY(bc[0].stat == TimerStat::Legacy);
}

void TestMegatronLogParser::formatFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<double>("median");         // summary() (--skip-warmup 2)
    QTest::addColumn<QList<int>>("used");        // iterations in that median
    QTest::addColumn<bool>("fromWarmup");
    QTest::addColumn<QString>("note");          // substring of summary().note; "" for none
    QTest::addColumn<QList<int>>("layout");      // tp, pp, dp
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
    QTest::newRow("NeMo 1 progress bar")
        << "nemo1_lightning_progress.log" << QList<int>{1, 2, 3, 4, 5} << 2021.0 << QList<int>{3, 4, 5} << false << ""
        << QList<int>{1, 1, 1} << QList<double>{kNaN} << 0 << QList<int>{};
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
    QTest::newRow("restart in one file")
        << "restart_in_one_file.log" << QList<int>{1, 2, 3, 4, 4, 5, 6, 7} << 903.3 << QList<int>{3, 4, 5, 6, 7} << false
        << "" << QList<int>{1, 1, 2} << QList<double>{7401.0} << 0 << QList<int>{3, 97};
    QTest::newRow("no iteration lines")
        << "bad_no_iteration_lines.log" << QList<int>{} << kNaN << QList<int>{} << false << "" << QList<int>{2, 2, 2}
        << QList<double>{kNaN, kNaN} << 0 << QList<int>{3};
    // The only line (3) follows the cut dump's banner: warm-up, which stands in.
    QTest::newRow("cut argument dump")
        << "bad_truncated_dump.log" << QList<int>{3} << 7305.2 << QList<int>{3} << true
        << "using the 1 warm-up line(s) at iteration 3 instead" << QList<int>{2, 2, 2} << QList<double>{kNaN, kNaN} << 0
        << QList<int>{3};
}

void TestMegatronLogParser::formatFiles()
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

void TestMegatronLogParser::formatDetails()
{
    auto read = [](const char* f) { return MegatronLogParser::read(memx::test::dataFile(std::string("megatron_logs/") + f)); };
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

void TestMegatronLogParser::argumentDumpsInLogs()
{
    auto read = [](const char* f) { return MegatronLogParser::read(memx::test::dataFile(std::string("megatron_logs/") + f)); };
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

void TestMegatronLogParser::prefixes_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("timestamp");

    QTest::newRow("none") << QByteArray("  adam_beta1 ... 0.9") << "  adam_beta1 ... 0.9" << "" << "";
    QTest::newRow("srun -l") << QByteArray("5: [Rank 5] x") << "[Rank 5] x" << "5/" << "";
    QTest::newRow("srun -l, right-aligned") << QByteArray(" 3: training ...") << "training ..." << "3/" << "";
    QTest::newRow("torchrun --tee") << QByteArray("[default3]: iteration") << "iteration" << "default3/" << "";
    QTest::newRow("PyTorch rank") << QByteArray("[rank0]: torch.OutOfMemoryError") << "torch.OutOfMemoryError" << "rank0/"
                                  << "";
    QTest::newRow("stdout tag") << QByteArray("stdout: [Rank 0] m") << "[Rank 0] m" << "" << "";
    QTest::newRow("Megatron timestamp")
        << QByteArray(" [2026-03-02 10:14:05.118204] iteration        1/") << "iteration        1/" << ""
        << "2026-03-02 10:14:05.118204";
    QTest::newRow("Bridge timestamp") << QByteArray(" [2025-10-06 03:27:07] iteration") << "iteration" << ""
                                      << "2025-10-06 03:27:07";
    QTest::newRow("Python logging") << QByteArray("2024-05-01 12:00:01,123 - INFO - training ...") << "training ..." << ""
                                    << "2024-05-01 12:00:01,123";
    QTest::newRow("Python logging with a logger name")
        << QByteArray("2024-05-01 12:00:01,123 - megatron.training - WARNING - [Rank 0] x") << "[Rank 0] x" << ""
        << "2024-05-01 12:00:01,123";
    QTest::newRow("bracketed timestamp, DeepSpeed logger")
        << QByteArray("[2024-05-01 12:00:01,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=10") << "[Rank 0] step=10"
        << "" << "2024-05-01 12:00:01,123";
    QTest::newRow("collector ISO timestamp")
        << QByteArray("2025-02-14T08:01:00.740700Z stdout:  [2025-02-14 08:01:00.000000] iteration") << "iteration" << ""
        << "2025-02-14 08:01:00.000000";
    QTest::newRow("NeMo logger") << QByteArray("[NeMo I 2024-10-09 10:48:44 nemo_logging:393] Experiments")
                                 << "Experiments" << "" << "";
    QTest::newRow("ANSI colours") << QByteArray("\x1b[32m[default0]:\x1b[0m [Rank 0] \x1b[1;31mx\x1b[0m") << "[Rank 0] x"
                                  << "default0/" << "";
    QTest::newRow("stacked") << QByteArray("12: [default4]: 2024-05-01 12:00:01,123 - INFO - [Rank 4] y") << "[Rank 4] y"
                             << "12/default4/" << "2024-05-01 12:00:01,123";
    QTest::newRow("a number with a colon is not srun") << QByteArray("10:30 is the time") << "10:30 is the time" << "" << "";
}

void TestMegatronLogParser::prefixes()
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
    return QString(" iteration %1/     100 | elapsed time per iteration (ms): %2 | number of skipped iterations: %3 |\n")
        .arg(n, 8)
        .arg(ms, 0, 'f', 1)
        .arg(skipped)
        .toUtf8();
}

}  // namespace

void TestMegatronLogParser::warmup_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("skipWarmup");
    QTest::addColumn<QList<int>>("used");
    QTest::addColumn<double>("median");
    QTest::addColumn<bool>("fromWarmup");

    const QByteArray fresh = iterationLine(1, 900) + iterationLine(2, 120) + iterationLine(3, 100) + iterationLine(4, 104)
        + iterationLine(5, 102);
    QTest::newRow("fresh run, N = 2") << fresh << 2 << QList<int>{3, 4, 5} << 102.0 << false;
    QTest::newRow("fresh run, N = 3") << fresh << 3 << QList<int>{4, 5} << 103.0 << false;
    // N = 0: no line is warm-up by number (no start line before them).
    QTest::newRow("fresh run, N = 0") << fresh << 0 << QList<int>{1, 2, 3, 4, 5} << 104.0 << false;
    // An excerpt from deep in a run, no start lines: nothing to drop.
    QTest::newRow("excerpt at 3383") << iterationLine(3383, 100) + iterationLine(3384, 104) << 2 << QList<int>{3383, 3384}
                                     << 102.0 << false;
    // The same after a checkpoint load: its first line is warm-up.
    QTest::newRow("excerpt after a load")
        << " loading checkpoint from /c at iteration 3382\n" + iterationLine(3383, 150) + iterationLine(3384, 104)
               + iterationLine(3385, 100)
        << 2 << QList<int>{3384, 3385} << 102.0 << false;
    // N = 0 still drops the first line after a start.
    QTest::newRow("after a load, N = 0")
        << "training ...\n" + iterationLine(3383, 150) + iterationLine(3384, 104) << 0 << QList<int>{3384} << 104.0
        << false;
    // Numbers going back with no start line: a restart; 6 after 7 is its first line.
    QTest::newRow("numbers go back")
        << iterationLine(6, 100) + iterationLine(7, 102) + iterationLine(6, 300) + iterationLine(7, 104) << 2
        << QList<int>{6, 7, 7} << 102.0 << false;
    // Lines every 10 iterations: the line at 10 averages 1-10.
    QTest::newRow("log interval from the gaps") << iterationLine(10, 150) + iterationLine(20, 100) + iterationLine(30, 104)
                                                << 2 << QList<int>{20, 30} << 102.0 << false;
    // Only warm-up lines: the ones past iteration 1 stand in.
    QTest::newRow("only iterations 1 and 2") << iterationLine(1, 900) + iterationLine(2, 120) << 2 << QList<int>{2}
                                             << 120.0 << true;
    QTest::newRow("only iteration 1") << iterationLine(1, 900) << 2 << QList<int>{} << kNaN << false;
    // Skipped iterations never count, not even as stand-ins.
    QTest::newRow("skipped iteration")
        << iterationLine(3, 100) + iterationLine(4, 50, 1) + iterationLine(5, 104) << 2 << QList<int>{3, 5} << 102.0
        << false;
    // A progress bar drawn twice keeps one line.
    QTest::newRow("redrawn NeMo bar")
        << QByteArray("Epoch 0: : 3/9 [global_step=2.000, train_step_timing in s=0.100]\r"
                      "Epoch 0: : 3/9 [global_step=2.000, train_step_timing in s=0.100]\r"
                      "Epoch 0: : 4/9 [global_step=3.000, train_step_timing in s=0.104]\n")
        << 2 << QList<int>{3, 4} << 102.0 << false;
}

void TestMegatronLogParser::warmup()
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

void TestMegatronLogParser::memoryForms_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QList<int>>("layout");  // tp, pp, dp
    QTest::addColumn<QList<double>>("stagePeak");

    const QByteArray rankless2020 = "after 5 iterations memory (MB) | allocated: 3187.44 | max allocated: 5234.17 | "
                                    "reserved: 6120.0 | max reserved: 6120.0\n";
    QTest::newRow("2020 rank-less, PP 1: the only stage") << rankless2020 << QList<int>{2, 1, 4}
                                                          << QList<double>{5234.17};
    QTest::newRow("2019 cached names") << QByteArray("after 100 iterations memory (MB) | allocated: 1.5 | max allocated: "
                                                     "2.5 | cached: 3.0 | max cached: 4.0\n")
                                       << QList<int>{1, 1, 1} << QList<double>{2.5};
    // PP 2: rank 0 (print_rank_0) is on stage 0; stage 1 has no line.
    QTest::newRow("rank-less, PP 2: stage 0 only") << rankless2020 << QList<int>{1, 2, 1}
                                                   << QList<double>{5234.17, kNaN};
    // A ranked line of stage 0 wins over the rank-less one.
    QTest::newRow("ranked wins over rank-less")
        << rankless2020
               + "[Rank 0] (after 5 iterations) memory (MB) | allocated: 1.0 | max allocated: 4000.0 | reserved: 5.0 | "
                 "max reserved: 5.0\n"
        << QList<int>{1, 2, 1} << QList<double>{4000.0, kNaN};
    // Megatron-Bridge GB: 1.048576 GB = 1.048576e9 bytes = 1000 MiB.
    QTest::newRow("Bridge GB")
        << QByteArray("[Rank 1] (after 2 iterations) memory (GB) | mem-allocated-gigabytes: 0.5 | "
                      "mem-reserved-gigabytes: 2.0 | mem-max-allocated-gigabytes: 1.048576 | mem-max-reserved-gigabytes: 2.0 | "
                      "mem-alloc-retires: 0\n")
        << QList<int>{1, 2, 1} << QList<double>{kNaN, 1000.0};
}

void TestMegatronLogParser::memoryForms()
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

void TestMegatronLogParser::wrappedLines_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<int>("memory");
    QTest::addColumn<int>("warnings");

    const QByteArray first = "3:  iteration        6/      50 | elapsed time per iteration (ms): 100.0 |\n";
    // Continuations of another stream are not joined: the cut line stays cut.
    QTest::newRow("other stream")
        << first + "3:  iteration        7/      50 | elapsed time per iteration (ms): 100.0 | lm loss:\n0: 1.0 |\n"
        << QList<int>{6} << 0 << 1;
    QTest::newRow("same stream")
        << first + "3:  iteration        7/      50 | elapsed time per iteration (ms): 100.0 | lm loss:\n3:  1.0 |\n"
        << QList<int>{6, 7} << 0 << 0;
    // A record of its own ends the search.
    QTest::newRow("next record") << QByteArray(" iteration        7/      50 | elapsed time per\n"
                                               " iteration        8/      50 | elapsed time per iteration (ms): 100.0 |\n")
                                 << QList<int>{8} << 0 << 1;
    QTest::newRow("memory in three pieces")
        << QByteArray("[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.0 | max al\nlocated: 2.0 | reserved: 3.0 |"
                      " max re\nserved: 4.0\n")
        << QList<int>{} << 1 << 0;
    // More than 8 continuation lines is not a wrapped line.
    QTest::newRow("too many pieces")
        << first + "3:  iteration        7/      50 | elapsed time per iteration (ms): 1\n3: 0\n3: 0\n3: 0\n3: 0\n3: 0\n3: 0\n"
                   "3: 0\n3: 0\n3: .0 |\n"
        << QList<int>{6} << 0 << 1;
}

void TestMegatronLogParser::wrappedLines()
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

void TestMegatronLogParser::timerForms_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("timer");
    QTest::addColumn<QList<int>>("ranks");  // -1 for aggregated values
    QTest::addColumn<QList<double>>("minMs");
    QTest::addColumn<QList<double>>("maxMs");
    QTest::addColumn<int>("stat");
    QTest::addColumn<int>("warnings");

    const QByteArray iter = " iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\n";
    QTest::newRow("minmax with logger prefix")
        << (iter + "INFO:megatron.core.timers:(min, max) time across ranks (ms):\n"
                   "    forward-backward ...............................: (9402.11, 9403.87)\n"
                   "    optimizer ......................................: (301.72, 305.14)\n")
        << "forward-backward" << QList<int>{-1} << QList<double>{9402.11} << QList<double>{9403.87}
        << int(TimerStat::MinMax) << 0;
    QTest::newRow("max only")
        << (iter + "max time across ranks (ms):\n"
                   "    forward-backward ...............................: 9403.87\n"
                   "    optimizer ......................................: 305.14\n")
        << "optimizer" << QList<int>{-1} << QList<double>{305.14} << QList<double>{305.14} << int(TimerStat::MaxOnly)
        << 0;
    // Older Megatron printed max-only entries under the (min, max) header.
    QTest::newRow("max entries under minmax header")
        << (iter + "(min, max) time across ranks (ms):\n"
                   "    optimizer ......................................: 305.14\n")
        << "optimizer" << QList<int>{-1} << QList<double>{305.14} << QList<double>{305.14} << int(TimerStat::MaxOnly)
        << 0;
    QTest::newRow("all ranks")
        << (iter + "times across ranks (ms):\n"
                   "  forward-compute:\n"
                   "     rank  0: 3010.44\n"
                   "     rank  1: 3011.02\n"
                   "     rank  2: 3388.19\n"
                   "     rank  3: 3387.50\n"
                   "  optimizer:\n"
                   "     rank  0: 301.72\n")
        << "forward-compute" << QList<int>{0, 1, 2, 3} << QList<double>{3010.44, 3011.02, 3388.19, 3387.50}
        << QList<double>{3010.44, 3011.02, 3388.19, 3387.50} << int(TimerStat::PerRank) << 0;
    // srun -l: the last rank's block is interleaved with other ranks' output,
    // which neither ends the block nor is taken for a timer.
    QTest::newRow("all ranks, srun prefixes, interleaved")
        << QByteArray("3:  iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\n"
                      "3: times across ranks (ms):\n"
                      "3:   forward-compute:\n"
                      "0: [Rank 0] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: 2.00 | "
                      "reserved: 3.00 | max reserved: 4.00\n"
                      "3:      rank  0: 3010.44\n"
                      "1:  > some other output of rank 1\n"
                      "3:      rank 11: 3388.19\n"
                      "3:   backward-compute:\n"
                      "3:      rank  0: 5.00\n")
        << "forward-compute" << QList<int>{0, 11} << QList<double>{3010.44, 3388.19}
        << QList<double>{3010.44, 3388.19} << int(TimerStat::PerRank) << 0;
    QTest::newRow("torchrun tee prefix")
        << QByteArray("[default3]: iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\n"
                      "[default3]:(min, max) time across ranks (ms):\n"
                      "[default3]:    forward-backward ...............................: (1.50, 2.50)\n")
        << "forward-backward" << QList<int>{-1} << QList<double>{1.50} << QList<double>{2.50}
        << int(TimerStat::MinMax) << 0;
    QTest::newRow("truncated entry")
        << (iter + "(min, max) time across ranks (ms):\n"
                   "    forward-backward ...............................: (9402.11, 9403.87)\n"
                   "    optimizer ......................................: (301.7\n")
        << "forward-backward" << QList<int>{-1} << QList<double>{9402.11} << QList<double>{9403.87}
        << int(TimerStat::MinMax) << 1;
    QTest::newRow("legacy one-line, cut off")
        << (iter + "time (ms) | forward-compute: 611.20 | backward-compute: 1240.87 | optimi\n")
        << "backward-compute" << QList<int>{-1} << QList<double>{1240.87} << QList<double>{1240.87}
        << int(TimerStat::Legacy) << 1;
}

void TestMegatronLogParser::timerForms()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, timer);
    QFETCH(QList<int>, ranks);
    QFETCH(QList<double>, minMs);
    QFETCH(QList<double>, maxMs);
    QFETCH(int, stat);
    QFETCH(int, warnings);

    const MegatronLog log = MegatronLogParser::parse(text.toStdString(), "timers.log");
    QCOMPARE(int(log.warnings.size()), warnings);
    QCOMPARE(int(log.iterations.size()), 1);
    QVERIFY2(log.timers.count(timer.toStdString()) == 1, qPrintable(timerNames(log).join(",")));
    const auto& values = log.timers.at(timer.toStdString());
    QCOMPARE(int(values.size()), int(ranks.size()));
    for (int i = 0; i < ranks.size(); ++i) {
        QCOMPARE(values[size_t(i)].rank, ranks[i]);
        QCOMPARE(values[size_t(i)].minMs, minMs[i]);
        QCOMPARE(values[size_t(i)].maxMs, maxMs[i]);
        QCOMPARE(int(values[size_t(i)].stat), stat);
        QCOMPARE(values[size_t(i)].iteration, 7);
    }
}

void TestMegatronLogParser::rankLayoutRoundTrip_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<bool>("tpPpDp");
    QTest::newRow("tp1 pp1 dp1") << 1 << 1 << 1 << 1 << false;
    QTest::newRow("tp2 pp2 dp2") << 2 << 2 << 2 << 1 << false;
    QTest::newRow("tp2 pp3 dp1") << 2 << 3 << 1 << 1 << false;
    QTest::newRow("tp1 pp4 dp1") << 1 << 4 << 1 << 1 << false;
    QTest::newRow("tp4 pp1 dp2") << 4 << 1 << 2 << 1 << false;
    QTest::newRow("tp8 pp4 dp3") << 8 << 4 << 3 << 1 << false;
    QTest::newRow("tp2 pp2 dp2 cp2") << 2 << 2 << 2 << 2 << false;
    QTest::newRow("tp2 pp3 dp2, tp-pp-dp mapping") << 2 << 3 << 2 << 1 << true;
}

void TestMegatronLogParser::rankLayoutRoundTrip()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(bool, tpPpDp);
    const RankLayout rl(tp, pp, dp, cp, tpPpDp ? RankLayout::Order::TpCpPpDp : RankLayout::Order::TpCpDpPp);
    QCOMPARE(rl.worldSize(), tp * pp * dp * cp);
    std::vector<int> seen(size_t(rl.worldSize()), 0);
    for (int r = 0; r < rl.worldSize(); ++r) {
        const RankCoords c = rl.coordsOf(r);
        QCOMPARE(rl.rankOf(c), r);
        QVERIFY(c.tp < tp && c.pp < pp && c.dp < dp && c.cp < cp);
        QCOMPARE(rl.stageOf(r), c.pp);
    }
    // Stages partition the ranks, each of size TP*CP*DP.
    for (int s = 0; s < pp; ++s) {
        const std::vector<int> ranks = rl.ranksOfStage(s);
        QCOMPARE(int(ranks.size()), tp * cp * dp);
        for (const int r : ranks) {
            QCOMPARE(rl.coordsOf(r).pp, s);
            ++seen[size_t(r)];
        }
    }
    for (const int n : seen)
        QCOMPARE(n, 1);
}

void TestMegatronLogParser::rankLayoutHandExamples()
{
    // Default order: rank = tp + TP*(cp + CP*(dp + DP*pp)).
    const RankLayout a(2, 2, 2);
    QCOMPARE(a.ranksOfStage(0), (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(a.ranksOfStage(1), (std::vector<int>{4, 5, 6, 7}));
    QCOMPARE(a.coordsOf(5), (RankCoords{1, 1, 0, 0}));  // 5 = 1 + 2*(0 + 2*1)
    QCOMPARE(a.coordsOf(6), (RankCoords{0, 1, 1, 0}));  // 6 = 0 + 2*(1 + 2*1)
    QCOMPARE(a.rankOf(1, 0, 1), 3);                      // 3 = 1 + 2*(1 + 2*0)

    const RankLayout b(2, 3, 1);
    QCOMPARE(b.ranksOfStage(2), (std::vector<int>{4, 5}));
    QCOMPARE(b.stageOf(3), 1);

    const RankLayout c(1, 4, 1);
    QCOMPARE(c.stageOf(3), 3);
    QCOMPARE(c.ranksOfStage(3), (std::vector<int>{3}));

    // --use-tp-pp-dp-mapping: rank = tp + TP*(cp + CP*(pp + PP*dp)).
    const RankLayout d(2, 2, 2, 1, RankLayout::Order::TpCpPpDp);
    QCOMPARE(d.ranksOfStage(1), (std::vector<int>{2, 3, 6, 7}));
    QCOMPARE(d.coordsOf(6), (RankCoords{0, 1, 1, 0}));  // 6 = 0 + 2*(1 + 2*1)

    // CP sits between TP and DP: TP2 CP2 DP1 PP2, rank 6 = 0 + 2*(1 + 2*(0 + 1*1)).
    const RankLayout e(2, 2, 1, 2);
    QCOMPARE(e.coordsOf(6), (RankCoords{0, 1, 0, 1}));
    QCOMPARE(e.ranksOfStage(1), (std::vector<int>{4, 5, 6, 7}));
}

void TestMegatronLogParser::rankLayoutRejectsBadInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankLayout(0, 1, 1));
    const RankLayout rl(2, 2, 2);
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, rl.coordsOf(8));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, rl.coordsOf(-1));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, rl.rankOf(2, 0, 0));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, rl.ranksOfStage(2));
}

void TestMegatronLogParser::damagedInput_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("throws");
    QTest::addColumn<int>("iterations");
    QTest::addColumn<int>("memory");
    QTest::addColumn<QString>("warning");  // substring of a warning (or of the error)

    const QByteArray ok = " iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\n";
    const QByteArray mem = "[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: 2.00 | "
                           "reserved: 3.00 | max reserved: 4.00\n";
    QTest::newRow("empty") << QByteArray() << true << 0 << 0 << "bad.log";
    QTest::newRow("only comments") << QByteArray("# nothing here\n\n") << true << 0 << 0 << "bad.log";
    QTest::newRow("only a truncated iteration line")
        << QByteArray(" iteration        7/      50 | consumed samp") << true << 0 << 0 << "bad.log:1";
    QTest::newRow("truncated iteration line after a good one")
        << (ok + " iteration        8/      50 | elapsed time per iteration (ms): 10") << false << 1 << 0
        << "bad.log:2: truncated iteration line";
    QTest::newRow("iteration line cut before the total")
        << (ok + " iteration        8/") << false << 1 << 0 << "bad.log:2: truncated iteration line";
    QTest::newRow("iteration line without elapsed time")
        << (ok + " iteration        8/      50 | consumed samples: 5 |\n") << false << 1 << 0
        << "bad.log:2: iteration line 8 has no readable";
    QTest::newRow("garbage bytes only")
        << QByteArray("\x00\x01\xff\xfe\x80garbage\n\x7f\x1b[0m\xc3\x28", 17) << true << 0 << 0 << "bad.log";
    QTest::newRow("garbage bytes then a good line")
        << (QByteArray("\x00\x01\xff\xfe\x80garbage\n", 13) + ok) << false << 1 << 0 << "bad.log:1: line holds binary";
    QTest::newRow("memory line missing max allocated")
        << (ok + "[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.00 | reserved: 3.00 | max reserved: 4.00\n"
            + mem)
        << false << 1 << 1 << "bad.log:2: memory line of rank 0 lacks a readable 'max allocated'";
    QTest::newRow("memory line with a non-number")
        << (mem + "[Rank 1] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: n/a | "
                  "reserved: 3.00 | max reserved: 4.00\n")
        << false << 0 << 1 << "bad.log:2: memory line of rank 1 lacks a readable 'max allocated'";
    QTest::newRow("memory line cut off") << (mem + "[Rank 2] (after 7 iterations) memory (MB) | alloc") << false
                                         << 0 << 1 << "bad.log:2";
    QTest::newRow("CRLF line endings")
        << QByteArray(" iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\r\n"
                      "[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: 2.00 | "
                      "reserved: 3.00 | max reserved: 4.00\r\n")
        << false << 1 << 1 << "";
}

void TestMegatronLogParser::damagedInput()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, throws);
    QFETCH(int, iterations);
    QFETCH(int, memory);
    QFETCH(QString, warning);

    const std::string s(text.constData(), size_t(text.size()));
    if (throws) {
        try {
            MegatronLogParser::parse(s, "bad.log");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.file(), std::string("bad.log"));
            QVERIFY2(QString(e.what()).contains(warning), e.what());
        }
        return;
    }
    const MegatronLog log = MegatronLogParser::parse(s, "bad.log");
    QCOMPARE(int(log.iterations.size()), iterations);
    QCOMPARE(int(log.memory.size()), memory);
    if (warning.isEmpty()) {
        QVERIFY(log.warnings.empty());
        if (!log.memory.empty())
            QCOMPARE(log.memory.front().maxReservedMiB, 4.0);
        return;
    }
    QCOMPARE(int(log.warnings.size()), 1);
    QVERIFY2(QString::fromStdString(log.warnings.front()).contains(warning), log.warnings.front().c_str());
}

void TestMegatronLogParser::unreadableFileNamesIt()
{
    const std::string missing = memx::test::dataFile("megatron_logs/no_such_file.log");
    try {
        MegatronLogParser::read(missing);
        QFAIL("expected an InputError");
    } catch (const InputError& e) {
        QCOMPARE(e.file(), missing);
    }
}

void TestMegatronLogParser::stageOutsideLayoutIsAnInputError()
{
    // current_main has memory of rank 5; a TP1 PP2 DP1 layout has 2 ranks.
    const MegatronLog log = MegatronLogParser::read(memx::test::dataFile("megatron_logs/current_main_tp2_pp2.log"));
    QVERIFY_THROWS_EXCEPTION(InputError, MegatronLogParser::stagePeakMiB(log, RankLayout(1, 2, 1)));
}

QTEST_APPLESS_MAIN(TestMegatronLogParser)
#include "tst_megatron_log_parser.moc"
