// Megatron-LM log import: the first four sample logs in tests/data/megatron_logs
// (iteration, memory and timer lines; expected values worked out by hand from
// the log text), the timer formats the samples lack (--timing-log-option max
// and all, logger and launcher prefixes), Megatron's rank order, and damaged
// input. The other formats are in tst_log_formats.cpp.
#include "io/InputError.h"
#include "measure/MegatronLogParser.h"
#include "megatron/RankLayout.h"

#include "TestNumbers.h"
#include "TestPaths.h"

#include <QDir>
#include <QTemporaryDir>
#include "TestMain.h"

#include <functional>

namespace tst_megatron_log_parser {

using memx::InputError;
using memx::MegatronLog;
using memx::MegatronLogParser;
using memx::RankCoords;
using memx::RankLayout;
using memx::TimerStat;

using memx::test::compareMaybeNaN;
using memx::test::kNaN;

namespace {

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
    void timerForms_data();
    void timerForms();
    void rankLayoutRoundTrip_data();
    void rankLayoutRoundTrip();
    void rankLayoutHandExamples();
    void rankLayoutRejectsBadInput();
    void damagedInput_data();
    void damagedInput();
    void unreadableFileNamesIt();
    void readingInPiecesEqualsReadingWhole_data();
    void readingInPiecesEqualsReadingWhole();
    void wrappedRecordAcrossAReadBoundary();
    void stageOutsideLayoutIsAnInputError();
};

void TestMegatronLogParser::sampleLogs_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<int>>("iterations");
    QTest::addColumn<double>("medianAll");  // summary(0): no iteration number is warm-up
    QTest::addColumn<double>("medianDefault");  // summary(): lines averaging over iterations <= 2 dropped
    QTest::addColumn<double>("lastTflops");  // NaN: not in the log
    QTest::addColumn<QList<int>>("memRanks");  // memory records in log order
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
        << "current_main_tp2_pp2.log" << QList<int>{1, 2, 3, 4} << 8347.05 << 8338.65 << 72.3 << QList<int>{0, 4, 1, 5}
        << QList<double>{38911.20, 30422.87, 38907.95, 30419.02}
        << QStringList{"backward-compute", "batch-generator", "forward-backward", "forward-compute", "optimizer"} << 0
        << QList<int>{2, 2, 2} << QList<double>{38911.20, 30422.87};

    // Iterations 10 and 20: 2411.8, 2398.2 ms. summary(0) = (2411.8 + 2398.2)
    // / 2 = 2405.0. The gap of 10 says --log-interval 10: the line at 10
    // averages iterations 1-10, which holds the warm-up, so summary(2) =
    // 2398.2 (the line at 20, iterations 11-20).
    // Raw-float memory from ranks 0-3; TP1 PP4 DP1: stage = rank. Two
    // one-line timer lines of 7 timers.
    QTest::newRow("legacy_2022_onelinetimers")
        << "legacy_2022_onelinetimers.log" << QList<int>{10, 20} << 2405.0 << 2398.2 << kNaN << QList<int>{0, 1, 2, 3}
        << QList<double>{14301.1806640625, 11209.7626953125, 8702.3818359375, 9011.0439453125}
        << QStringList{"backward-compute",
                       "backward-embedding-all-reduce",
                       "backward-params-all-reduce",
                       "batch-generator",
                       "forward-compute",
                       "optimizer",
                       "optimizer-copy-to-main-grad"}
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
    const MegatronLog legacy
        = MegatronLogParser::read(memx::test::dataFile("megatron_logs/legacy_2022_onelinetimers.log"));
    const auto& bc = legacy.timers.at("backward-compute");
    QCOMPARE(int(bc.size()), 2);
    QCOMPARE(bc[0].iteration, 10);
    QCOMPARE(bc[0].maxMs, 1240.87);
    QCOMPARE(bc[1].iteration, 20);
    QCOMPARE(bc[1].maxMs, 1236.10);
    QVERIFY(bc[0].stat == TimerStat::Legacy);
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
        << (iter
            + "INFO:megatron.core.timers:(min, max) time across ranks (ms):\n"
              "    forward-backward ...............................: (9402.11, 9403.87)\n"
              "    optimizer ......................................: (301.72, 305.14)\n")
        << "forward-backward" << QList<int>{-1} << QList<double>{9402.11} << QList<double>{9403.87}
        << int(TimerStat::MinMax) << 0;
    QTest::newRow("max only") << (iter
                                  + "max time across ranks (ms):\n"
                                    "    forward-backward ...............................: 9403.87\n"
                                    "    optimizer ......................................: 305.14\n")
                              << "optimizer" << QList<int>{-1} << QList<double>{305.14} << QList<double>{305.14}
                              << int(TimerStat::MaxOnly) << 0;
    // Older Megatron printed max-only entries under the (min, max) header.
    QTest::newRow("max entries under minmax header")
        << (iter
            + "(min, max) time across ranks (ms):\n"
              "    optimizer ......................................: 305.14\n")
        << "optimizer" << QList<int>{-1} << QList<double>{305.14} << QList<double>{305.14} << int(TimerStat::MaxOnly)
        << 0;
    QTest::newRow("all ranks") << (iter
                                   + "times across ranks (ms):\n"
                                     "  forward-compute:\n"
                                     "     rank  0: 3010.44\n"
                                     "     rank  1: 3011.02\n"
                                     "     rank  2: 3388.19\n"
                                     "     rank  3: 3387.50\n"
                                     "  optimizer:\n"
                                     "     rank  0: 301.72\n")
                               << "forward-compute" << QList<int>{0, 1, 2, 3}
                               << QList<double>{3010.44, 3011.02, 3388.19, 3387.50}
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
        << "forward-compute" << QList<int>{0, 11} << QList<double>{3010.44, 3388.19} << QList<double>{3010.44, 3388.19}
        << int(TimerStat::PerRank) << 0;
    QTest::newRow("torchrun tee prefix") << QByteArray(
        "[default3]: iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\n"
        "[default3]:(min, max) time across ranks (ms):\n"
        "[default3]:    forward-backward ...............................: (1.50, 2.50)\n")
                                         << "forward-backward" << QList<int>{-1} << QList<double>{1.50}
                                         << QList<double>{2.50} << int(TimerStat::MinMax) << 0;
    QTest::newRow("truncated entry") << (iter
                                         + "(min, max) time across ranks (ms):\n"
                                           "    forward-backward ...............................: (9402.11, 9403.87)\n"
                                           "    optimizer ......................................: (301.7\n")
                                     << "forward-backward" << QList<int>{-1} << QList<double>{9402.11}
                                     << QList<double>{9403.87} << int(TimerStat::MinMax) << 1;
    QTest::newRow("legacy one-line, cut off")
        << (iter + "time (ms) | forward-compute: 611.20 | backward-compute: 1240.87 | optimi\n") << "backward-compute"
        << QList<int>{-1} << QList<double>{1240.87} << QList<double>{1240.87} << int(TimerStat::Legacy) << 1;
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
    QCOMPARE(a.rankOf(1, 0, 1), 3);  // 3 = 1 + 2*(1 + 2*0)

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
    QTest::newRow("garbage bytes only") << QByteArray("\x00\x01\xff\xfe\x80garbage\n\x7f\x1b[0m\xc3\x28", 17) << true
                                        << 0 << 0 << "bad.log";
    QTest::newRow("garbage bytes then a good line")
        << (QByteArray("\x00\x01\xff\xfe\x80garbage\n", 13) + ok) << false << 1 << 0 << "bad.log:1: line holds binary";
    QTest::newRow("memory line missing max allocated")
        << (ok + "[Rank 0] (after 7 iterations) memory (MB) | allocated: 1.00 | reserved: 3.00 | max reserved: 4.00\n"
            + mem)
        << false << 1 << 1 << "bad.log:2: memory line of rank 0 lacks a readable 'max allocated'";
    QTest::newRow("memory line with a non-number")
        << (mem
            + "[Rank 1] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: n/a | "
              "reserved: 3.00 | max reserved: 4.00\n")
        << false << 0 << 1 << "bad.log:2: memory line of rank 1 lacks a readable 'max allocated'";
    QTest::newRow("memory line cut off") << (mem + "[Rank 2] (after 7 iterations) memory (MB) | alloc") << false << 0
                                         << 1 << "bad.log:2";
    // Issue #14: impossible numbers are refused at the log's line, not later against the output CSV.
    // A log reformatted with thousands separators: said once, with why and how many.
    QTest::newRow("thousands separators")
        << (ok + " iteration        8/      50 | elapsed time per iteration (ms): 7,305.2 |\n"
            + " iteration        9/      50 | elapsed time per iteration (ms): 7,311.9 |\n"
            + " iteration       10/      50 | elapsed time per iteration (ms): 12,005.0 |\n")
        << false << 1 << 0
        << "bad.log:2: iteration line 8: elapsed time per iteration: has thousands separators (\"7,305.2\"), which "
           "Megatron-LM never prints";
    QTest::newRow("thousands separators, counted once")
        << (ok + " iteration        8/      50 | elapsed time per iteration (ms): 7,305.2 |\n"
            + " iteration        9/      50 | elapsed time per iteration (ms): 7,311.9 |\n"
            + " iteration       10/      50 | elapsed time per iteration (ms): 12,005.0 |\n")
        << false << 1 << 0
        << "bad.log: 2 more line(s) the same: iteration line #: elapsed time per iteration: has "
           "thousands separators";
    QTest::newRow("elapsed time 0")
        << (ok + " iteration        8/      50 | elapsed time per iteration (ms): 0.0 |\n") << false << 1 << 0
        << "bad.log:2: iteration line 8: elapsed time per iteration: must be greater than 0 (got 0 ms)";
    QTest::newRow("elapsed time 1e300 ms")
        << (ok + " iteration        8/      50 | elapsed time per iteration (ms): 1e300 |\n") << false << 1 << 0
        << "bad.log:2: iteration line 8: elapsed time per iteration: time 1e+300 ms is outside the plausible range";
    QTest::newRow("max allocated -5")
        << (mem
            + "[Rank 1] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: -5 | "
              "reserved: 3.00 | max reserved: 4.00\n")
        << false << 0 << 1 << "bad.log:2: memory line of rank 1: 'max allocated': must be greater than 0 (got -5 MiB)";
    QTest::newRow("reserved 1e300")
        << (mem
            + "[Rank 1] (after 7 iterations) memory (MB) | allocated: 1.00 | max allocated: 2.00 | "
              "reserved: 1e300 | max reserved: 4.00\n")
        << false << 0 << 1 << "bad.log:2: memory line of rank 1: 'reserved': memory 1e+300 MiB is outside";
    QTest::newRow("CRLF line endings") << QByteArray(
        " iteration        7/      50 | elapsed time per iteration (ms): 100.0 |\r\n"
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
    // One warning per cause: a cause on several lines adds one line counting them.
    const bool repeated = std::any_of(log.warnings.begin(), log.warnings.end(), [](const std::string& w) {
        return w.find("more line(s) the same") != std::string::npos;
    });
    QCOMPARE(int(log.warnings.size()), repeated ? 2 : 1);
    QVERIFY2(std::any_of(log.warnings.begin(), log.warnings.end(),
                         [&](const std::string& w) { return QString::fromStdString(w).contains(warning); }),
             log.warnings.front().c_str());
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

namespace {

// What a reader of the log relies on, as text: every record with its line.
QString describe(const MegatronLog& log)
{
    QString d = QStringLiteral("lines %1 starts %2 dumps %3\n")
                    .arg(log.lineCount)
                    .arg(log.startLines.size())
                    .arg(log.arguments.size());
    for (const auto& a : log.arguments)
        d += QStringLiteral("dump %1-%2 (%3 arguments)\n").arg(a.startLine()).arg(a.endLine()).arg(a.size());
    for (const auto& r : log.iterations)
        d += QStringLiteral("it %1 line %2 ms %3 run %4 interval %5 first %6 ts %7\n")
                 .arg(r.iteration)
                 .arg(r.line)
                 .arg(r.elapsedMs)
                 .arg(r.run)
                 .arg(r.interval)
                 .arg(r.firstAfterStart)
                 .arg(QString::fromStdString(r.timestamp));
    for (const auto& m : log.memory)
        d += QStringLiteral("mem rank %1 line %2 max %3\n").arg(m.rank).arg(m.line).arg(m.maxAllocatedMiB);
    for (const auto& [name, values] : log.timers)
        for (const auto& t : values)
            d += QStringLiteral("timer %1 line %2 it %3 max %4\n")
                     .arg(QString::fromStdString(name))
                     .arg(t.line)
                     .arg(t.iteration)
                     .arg(t.maxMs);
    for (const std::string& w : log.warnings)
        d += QString::fromStdString(w) + "\n";
    return d;
}

// What import-logs reads from a log: the summary and the memory peaks.
QString describeSummary(const MegatronLog& log)
{
    const memx::MegatronLogSummary s = log.summary();
    QString d = QStringLiteral("median %1 used %2 excluded %3 rankless %4\n")
                    .arg(s.medianIterationMs)
                    .arg(s.iterationsUsed)
                    .arg(s.iterationsExcluded)
                    .arg(std::count_if(log.memory.begin(), log.memory.end(),
                                       [](const memx::MemoryRecord& m) { return m.rank < 0; })
                         > 0);
    for (const auto& [rank, mib] : s.peakAllocatedMiB)
        d += QStringLiteral("rank %1 allocated %2 reserved %3\n").arg(rank).arg(mib).arg(s.peakReservedMiB.at(rank));
    return d;
}

QString describeOutcome(const std::function<MegatronLog()>& parse, bool summaryOnly = false)
{
    try {
        return summaryOnly ? describeSummary(parse()) : describe(parse());
    } catch (const InputError& e) {
        return QStringLiteral("error: ") + e.what();
    }
}

}  // namespace

// MegatronLogParser::read takes a log 1 MiB at a time (a 350 MB log is not
// held whole); reading the same text whole (parse) must give the same log.
// Each sample is repeated to 3.5 MiB so that the read boundaries fall at
// other places in its lines, wrapped records and '\r' progress bars.
void TestMegatronLogParser::readingInPiecesEqualsReadingWhole_data()
{
    QTest::addColumn<QString>("sample");
    const QDir dir(QString::fromStdString(memx::test::dataFile("megatron_logs")));
    for (const QString& name : dir.entryList({"*.log"}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(name)) << dir.filePath(name);
}

void TestMegatronLogParser::readingInPiecesEqualsReadingWhole()
{
    QFETCH(QString, sample);
    QFile in(sample);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray once = in.readAll();
    QVERIFY(!once.isEmpty());
    QByteArray text;
    while (text.size() < (7 << 19))
        text += once;
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string file = tmp.filePath("big.log").toStdString();
    QFile out(QString::fromStdString(file));
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(text), text.size());
    out.close();
    const std::string whole = text.toStdString();
    const QString expected = describeOutcome([&] { return MegatronLogParser::parse(whole, file); });
    const QString got = describeOutcome([&] { return MegatronLogParser::read(file); });
    QVERIFY(expected.size() > 40);  // a log described, or the reason it is refused
    QCOMPARE(got, expected);
    // What import-logs keeps (Keep::Peaks: no timers, each rank's peak
    // memory lines only) gives the same summary and peaks.
    QCOMPARE(describeOutcome([&] { return MegatronLogParser::read(file, MegatronLogParser::Keep::Peaks); }, true),
             describeOutcome([&] { return MegatronLogParser::parse(whole, file); }, true));
}

// A record wrapped over four lines whose second line ends exactly at the
// first 1 MiB read (the filler before it is 1 MiB minus the first two lines):
// one iteration, 1432.6 ms, on line 2 of the file (after the filler line).
void TestMegatronLogParser::wrappedRecordAcrossAReadBoundary()
{
    const std::string l1 = " iteration      101/   10000 | consumed samples:         6464 | elapsed time per\n";
    const std::string l2 = " iteration (ms): 1432.6 | learning rate: 2.000E-05 | global batch size:    64 | \n";
    const std::string rest = "lm loss: 6.490000E+00 | loss scale: 8192.0 | grad norm: 1.500 | number of skippe\n"
                             "d iterations:   0 | number of nan iterations:   0 |\n";
    const size_t mib = 1u << 20;
    std::string filler(mib - l1.size() - l2.size() - 1, 'x');
    filler += '\n';
    const std::string text = filler + l1 + l2 + rest;
    QCOMPARE(text.find(l2) + l2.size(), mib);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string file = tmp.filePath("wrapped.log").toStdString();
    QFile out(QString::fromStdString(file));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text.data(), static_cast<qint64>(text.size()));
    out.close();
    const MegatronLog log = MegatronLogParser::read(file);
    QCOMPARE(log.iterations.size(), size_t(1));
    QCOMPARE(log.iterations[0].iteration, 101);
    QCOMPARE(log.iterations[0].elapsedMs, 1432.6);
    QCOMPARE(log.iterations[0].line, 2);
    QCOMPARE(log.lineCount, 5);
    QVERIFY(log.warnings.empty());
}

void TestMegatronLogParser::stageOutsideLayoutIsAnInputError()
{
    // current_main has memory of rank 5; a TP1 PP2 DP1 layout has 2 ranks.
    const MegatronLog log = MegatronLogParser::read(memx::test::dataFile("megatron_logs/current_main_tp2_pp2.log"));
    QVERIFY_THROWS_EXCEPTION(InputError, MegatronLogParser::stagePeakMiB(log, RankLayout(1, 2, 1)));
}

MEMX_TEST_APPLESS_MAIN(TestMegatronLogParser)
}  // namespace tst_megatron_log_parser

#include "tst_megatron_log_parser.moc"
