// IterationComposer: MemX Eq. (3) for 1F1B, its interleaved variant, the
// in-flight micro-batch counts and the data-parallel sync time. All
// expectations are worked out by hand in the comments.
#include "predict/IterationComposer.h"

#include "TestMain.h"

#include <vector>

namespace tst_iteration_composer {

using memx::IterationComposer;

class TestIterationComposer : public QObject {
    Q_OBJECT

private slots:
    void eq3_data();
    void eq3();
    void scalarAndVectorFormsAgree();
    void inflight1F1B_data();
    void inflight1F1B();
    void inflightInterleaved_data();
    void inflightInterleaved();
    void interleavedFirstStageIsKorthikantiFactor_data();
    void interleavedFirstStageIsKorthikantiFactor();
    void dataParallelMs_data();
    void dataParallelMs();
    void dataParallelCommSplitsReduceAndGather();
    void exposedDataParallelMs_data();
    void exposedDataParallelMs();
    void lastBucket_data();
    void lastBucket();
};

void TestIterationComposer::eq3_data()
{
    QTest::addColumn<QList<double>>("stages");
    QTest::addColumn<QList<double>>("hops");
    QTest::addColumn<int>("G");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("fixed");
    QTest::addColumn<double>("dp");
    QTest::addColumn<double>("expected");
    // Stage times {10,20,15} ms, hops {1,2} ms, G=8:
    //   (8-1)*20 = 140; sum 45; 2*(1+2) = 6; fixed 5; dp 7 -> 203
    QTest::newRow("3 stages G8 1F1B") << QList<double>{10, 20, 15} << QList<double>{1, 2} << 8 << 1 << 5.0 << 7.0
                                      << 203.0;
    //   same, no fixed/dp -> 140 + 45 + 6 = 191
    QTest::newRow("3 stages G8 no fixed, no dp")
        << QList<double>{10, 20, 15} << QList<double>{1, 2} << 8 << 1 << 0.0 << 0.0 << 191.0;
    //   interleaved v=2 halves the bubble, the 45 - 20 = 25 ms of fill and
    //   drain beyond the slowest stage's own micro-batches (Narayanan et al.
    //   2021: (m + (p-1)/v) t): 8*20 + 25/2 + 6 + 5 + 7 = 190.5
    QTest::newRow("3 stages G8 interleaved v2")
        << QList<double>{10, 20, 15} << QList<double>{1, 2} << 8 << 2 << 5.0 << 7.0 << 190.5;
    //   v=3: 160 + 25/3 + 6 + 5 + 7 = 186.333
    QTest::newRow("3 stages G8 interleaved v3")
        << QList<double>{10, 20, 15} << QList<double>{1, 2} << 8 << 3 << 5.0 << 7.0 << 186.0 + 1.0 / 3;
    //   Narayanan's uniform case, p = 4 stages of t = 10 ms, m = 8, v = 4:
    //   (m + (p-1)/v) t = (8 + 3/4) * 10 = 87.5
    QTest::newRow("Narayanan uniform p4 m8 v4")
        << QList<double>{10, 10, 10, 10} << QList<double>{} << 8 << 4 << 0.0 << 0.0 << 87.5;
    //   one micro-batch: no steady state, 0*20 + 45 + 6 = 51
    QTest::newRow("G1 is fill and drain only")
        << QList<double>{10, 20, 15} << QList<double>{1, 2} << 1 << 1 << 0.0 << 0.0 << 51.0;
    //   single stage, no hops, G=4: 3*12 + 12 + 0 + 1 + 2 = 51
    QTest::newRow("single stage G4") << QList<double>{12} << QList<double>{} << 4 << 1 << 1.0 << 2.0 << 51.0;
    //   balanced 4 stages of 25 ms, hops 0.5 each, G=16: 15*25 + 100 + 2*1.5 = 478
    QTest::newRow("4 balanced stages G16")
        << QList<double>{25, 25, 25, 25} << QList<double>{0.5, 0.5, 0.5} << 16 << 1 << 0.0 << 0.0 << 478.0;
}

void TestIterationComposer::eq3()
{
    QFETCH(QList<double>, stages);
    QFETCH(QList<double>, hops);
    QFETCH(int, G);
    QFETCH(int, v);
    QFETCH(double, fixed);
    QFETCH(double, dp);
    std::vector<double> s(stages.begin(), stages.end()), h(hops.begin(), hops.end());
    QTEST(IterationComposer::iterationMs(s, h, G, v, fixed, dp), "expected");
}

void TestIterationComposer::scalarAndVectorFormsAgree()
{
    // max 20, sum 45, hops 3: both overloads are Eq. (3); v=1 gives Eq. (3) back.
    const double vec = IterationComposer::iterationMs({10, 20, 15}, {1, 2}, 8, 1, 5, 7);
    QCOMPARE(IterationComposer::iterationMs(20, 45, 3, 8, 1, 5, 7), vec);
    QCOMPARE(vec, 203.0);
    // v = 0 is treated as no interleaving (no division by zero).
    QCOMPARE(IterationComposer::iterationMs(20, 45, 3, 8, 0, 5, 7), 203.0);
}

// PipeDream-Flush / 1F1B: stage i of P holds min(P - i, G) micro-batches.
void TestIterationComposer::inflight1F1B_data()
{
    QTest::addColumn<int>("stage");
    QTest::addColumn<int>("P");
    QTest::addColumn<int>("G");
    QTest::addColumn<double>("expected");
    QTest::newRow("first of 4, G8") << 0 << 4 << 8 << 4.0;
    QTest::newRow("second of 4, G8") << 1 << 4 << 8 << 3.0;
    QTest::newRow("last of 4, G8") << 3 << 4 << 8 << 1.0;
    QTest::newRow("first of 4, G2 < P") << 0 << 4 << 2 << 2.0;
    QTest::newRow("second of 4, G3 < P") << 1 << 4 << 3 << 3.0;
    QTest::newRow("third of 4, G1") << 2 << 4 << 1 << 1.0;
    QTest::newRow("single stage") << 0 << 1 << 16 << 1.0;
    QTest::newRow("first of 8, G8") << 0 << 8 << 8 << 8.0;
}

void TestIterationComposer::inflight1F1B()
{
    QFETCH(int, stage);
    QFETCH(int, P);
    QFETCH(int, G);
    QTEST(IterationComposer::inflight1F1B(stage, P, G), "expected");
}

// Megatron's interleaved schedule warms up (P-i-1)*2 + (v-1)*P chunks and runs
// one more; each chunk is 1/v of the stage, capped at the G*v chunks that exist.
void TestIterationComposer::inflightInterleaved_data()
{
    QTest::addColumn<int>("stage");
    QTest::addColumn<int>("P");
    QTest::addColumn<int>("G");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("expected");
    QTest::newRow("P4 v2 stage0 G8") << 0 << 4 << 8 << 2 << 5.5;  // 3*2 + 1*4 + 1 = 11 chunks / 2
    QTest::newRow("P4 v2 stage1 G8") << 1 << 4 << 8 << 2 << 4.5;  // 2*2 + 4 + 1 = 9 / 2
    QTest::newRow("P4 v2 stage3 G8") << 3 << 4 << 8 << 2 << 2.5;  // 0 + 4 + 1 = 5 / 2
    QTest::newRow("P4 v2 stage0 G2 capped") << 0 << 4 << 2 << 2 << 2.0;  // min(11, 2*2=4) / 2
    QTest::newRow("P4 v4 stage0 G16") << 0 << 4 << 16 << 4 << 4.75;  // 6 + 12 + 1 = 19 / 4
    QTest::newRow("P8 v2 stage7 G16") << 7 << 8 << 16 << 2 << 4.5;  // 0 + 8 + 1 = 9 / 2
    // G == P: only stages whose warm-up reaches all G v chunks run every
    // forward first (Megatron-LM since microbatch groups per virtual stage).
    QTest::newRow("P4 v3 stage0 G4") << 0 << 4 << 4 << 3 << 4.0;  // 6 + 8 + 1 = 15, capped at 12 / 3
    QTest::newRow("P4 v3 stage1 G4") << 1 << 4 << 4 << 3 << 4.0;  // 4 + 8 + 1 = 13, capped at 12 / 3
    QTest::newRow("P4 v3 stage2 G4") << 2 << 4 << 4 << 3 << 11.0 / 3;  // 2 + 8 + 1 = 11 / 3
    QTest::newRow("P4 v3 stage3 G4") << 3 << 4 << 4 << 3 << 3.0;  // 0 + 8 + 1 = 9 / 3
    QTest::newRow("P4 v8 stage3 G4") << 3 << 4 << 4 << 8 << 3.625;  // 0 + 28 + 1 = 29 / 8
}

void TestIterationComposer::inflightInterleaved()
{
    QFETCH(int, stage);
    QFETCH(int, P);
    QFETCH(int, G);
    QFETCH(int, v);
    QTEST(IterationComposer::inflightInterleaved(stage, P, G, v), "expected");
}

// Korthikanti et al. 2022 (sec. 4.2.3): with interleaving the first stage
// holds (1 + (p-1)/(p*m)) times the L layers' activations, i.e. in units of
// one stage's micro-batch (L/p layers): p * (1 + (p-1)/(p*m)) = p + (p-1)/m.
void TestIterationComposer::interleavedFirstStageIsKorthikantiFactor_data()
{
    QTest::addColumn<int>("P");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("expected");
    QTest::newRow("p4 m2") << 4 << 2 << 5.5;  // 1.375 * 4
    QTest::newRow("p8 m4") << 8 << 4 << 9.75;  // (1 + 7/32) * 8 = 8 + 1.75
    QTest::newRow("p2 m2") << 2 << 2 << 2.5;  // (1 + 1/4) * 2
    QTest::newRow("p6 m3") << 6 << 3 << 7.6667;  // 6 + 5/3
}

void TestIterationComposer::interleavedFirstStageIsKorthikantiFactor()
{
    QFETCH(int, P);
    QFETCH(int, v);
    QFETCH(double, expected);
    const double got = IterationComposer::inflightInterleaved(0, P, /*G large*/ 64, v);
    QVERIFY2(qAbs(got - expected) < 1e-3, qPrintable(QString::number(got)));
}

// t_dp for one stage over its DP group, 1e9 parameters per GPU at 100 GB/s
// (= 1e8 bytes per ms):
//   all-reduce of fp32 gradients: 2*(DP-1)/DP * 4e9 bytes
//   distributed optimizer: reduce-scatter fp32 grads + all-gather bf16 weights,
//   (DP-1)/DP * (4+2)e9 bytes.
void TestIterationComposer::dataParallelMs_data()
{
    QTest::addColumn<double>("params");
    QTest::addColumn<int>("dp");
    QTest::addColumn<bool>("distributed");
    QTest::addColumn<double>("GBps");
    QTest::addColumn<double>("latencyUs");
    QTest::addColumn<double>("expected");
    QTest::newRow("DP4 all-reduce") << 1e9 << 4 << false << 100.0 << 0.0 << 60.0;  // 2*0.75*4e9/1e8
    QTest::newRow("DP4 distributed optimizer") << 1e9 << 4 << true << 100.0 << 0.0 << 45.0;  // 0.75*6e9/1e8
    QTest::newRow("DP2 all-reduce") << 1e9 << 2 << false << 100.0 << 0.0 << 40.0;  // 2*0.5*4e9/1e8
    QTest::newRow("DP8 all-reduce 50 GB/s") << 1e9 << 8 << false << 50.0 << 0.0 << 140.0;  // 2*7/8*4e9/5e7
    // + ring latency: 2*(DP-1) steps * 10 us = 60 us = 0.06 ms
    QTest::newRow("DP4 all-reduce with latency") << 1e9 << 4 << false << 100.0 << 10.0 << 60.06;
    QTest::newRow("DP4 distributed with latency") << 1e9 << 4 << true << 100.0 << 10.0 << 45.06;
    QTest::newRow("DP1 has nothing to sync") << 1e9 << 1 << false << 100.0 << 10.0 << 0.0;
    QTest::newRow("DP1 distributed") << 1e9 << 1 << true << 100.0 << 10.0 << 0.0;
}

void TestIterationComposer::dataParallelMs()
{
    QFETCH(double, params);
    QFETCH(int, dp);
    QFETCH(bool, distributed);
    QFETCH(double, GBps);
    QFETCH(double, latencyUs);
    QFETCH(double, expected);
    const double got = IterationComposer::dataParallelMs(params, dp, distributed, GBps, latencyUs);
    QVERIFY2(qAbs(got - expected) < 1e-9, qPrintable(QString::number(got, 'g', 12)));
}

// The two parts of the distributed optimizer's 45 ms above (DP 4, 1e9
// parameters at 1e8 bytes/ms): reduce-scatter of fp32 gradients
// 0.75*4e9/1e8 = 30 ms, all-gather of bf16 weights 0.75*2e9/1e8 = 15 ms; each
// ring takes DP-1 = 3 steps of latency. Without it, one all-reduce.
void TestIterationComposer::dataParallelCommSplitsReduceAndGather()
{
    auto c = IterationComposer::dataParallelComm(1e9, 4, true, 100.0, 10.0);
    QCOMPARE(c.reduceMs, 30.0 + 0.03);
    QCOMPARE(c.gatherMs, 15.0 + 0.03);
    c = IterationComposer::dataParallelComm(1e9, 4, false, 100.0, 0.0);
    QCOMPARE(c.reduceMs, 60.0);
    QCOMPARE(c.gatherMs, 0.0);
}

// What the iteration waits for, by hand. Megatron's bucket at DP 2 is 40M
// parameters, so a first stage of 100M parameters sends its last bucket,
// 40 %, after backward ends; later stages send one bucket that the cool-down
// of the stages before them hides.
void TestIterationComposer::exposedDataParallelMs_data()
{
    QTest::addColumn<double>("reduceMs");
    QTest::addColumn<double>("gatherMs");
    QTest::addColumn<bool>("gradReduce");
    QTest::addColumn<bool>("paramGather");
    QTest::addColumn<bool>("firstStage");
    QTest::addColumn<double>("params");
    QTest::addColumn<double>("lastBucket");
    QTest::addColumn<double>("forwardMs");
    QTest::addColumn<double>("backwardMs");
    QTest::addColumn<double>("expected");
    // Megatron's default: no overlap, every millisecond counts.
    QTest::newRow("no overlap") << 10.0 << 5.0 << false << false << true << 100e6 << 40e6 << 3.0 << 20.0 << 15.0;
    // max(0.4 * 10, 10 - 20) = 4, plus the gather 5.
    QTest::newRow("grad reduce, first stage, long backward")
        << 10.0 << 5.0 << true << false << true << 100e6 << 40e6 << 3.0 << 20.0 << 9.0;
    // max(0.4 * 10, 10 - 2) = 8, plus 5.
    QTest::newRow("grad reduce, first stage, short backward")
        << 10.0 << 5.0 << true << false << true << 100e6 << 40e6 << 3.0 << 2.0 << 13.0;
    // One bucket hidden behind 20 ms: max(0, 10 - 20) = 0, plus 5.
    QTest::newRow("grad reduce, later stage")
        << 10.0 << 5.0 << true << false << false << 100e6 << 40e6 << 3.0 << 20.0 << 5.0;
    // 10M parameters fit one 40M bucket: nothing overlaps on the first stage.
    QTest::newRow("grad reduce, small first stage")
        << 10.0 << 5.0 << true << false << true << 10e6 << 40e6 << 3.0 << 20.0 << 15.0;
    // The embedding fills the last bucket: 70M of 100M; max(7, 10 - 20) + max(3.5, 5 - 3) = 10.5.
    QTest::newRow("both, first stage, embedding bucket")
        << 10.0 << 5.0 << true << true << true << 100e6 << 70e6 << 3.0 << 20.0 << 10.5;
    // max(4, -10) + max(2, 5 - 3) = 6.
    QTest::newRow("both, first stage") << 10.0 << 5.0 << true << true << true << 100e6 << 40e6 << 3.0 << 20.0 << 6.0;
    // Later stage: max(0, 10 - 20) + max(0, 5 - 3) = 2.
    QTest::newRow("both, later stage") << 10.0 << 5.0 << true << true << false << 100e6 << 40e6 << 3.0 << 20.0 << 2.0;
    // Megatron refuses the gather overlap alone; the composer ignores it.
    QTest::newRow("param gather without grad reduce")
        << 10.0 << 5.0 << false << true << false << 100e6 << 40e6 << 3.0 << 20.0 << 15.0;
}

// Megatron's buckets: max(40M, 1M x DP), and the first stage's last one at
// least the embedding it holds whole.
void TestIterationComposer::lastBucket_data()
{
    QTest::addColumn<int>("dp");
    QTest::addColumn<double>("embedding");
    QTest::addColumn<double>("expected");
    QTest::newRow("DP 2, small embedding") << 2 << 10e6 << 40e6;
    QTest::newRow("DP 64") << 64 << 10e6 << 64e6;
    // llama2-7b at TP 2: 32000 x 4096 / 2 = 65.536M on each rank.
    QTest::newRow("llama2-7b embedding at TP 2") << 4 << 65.536e6 << 65.536e6;
}

void TestIterationComposer::lastBucket()
{
    QFETCH(int, dp);
    QFETCH(double, embedding);
    QFETCH(double, expected);
    QCOMPARE(IterationComposer::lastBucketParams(dp, embedding), expected);
}

void TestIterationComposer::exposedDataParallelMs()
{
    QFETCH(double, reduceMs);
    QFETCH(double, gatherMs);
    QFETCH(bool, gradReduce);
    QFETCH(bool, paramGather);
    QFETCH(bool, firstStage);
    QFETCH(double, params);
    QFETCH(double, lastBucket);
    QFETCH(double, forwardMs);
    QFETCH(double, backwardMs);
    QFETCH(double, expected);
    const double got = IterationComposer::exposedDataParallelMs({reduceMs, gatherMs}, {gradReduce, paramGather},
                                                                firstStage, params, lastBucket, forwardMs, backwardMs);
    QVERIFY2(qAbs(got - expected) < 1e-9, qPrintable(QString::number(got, 'g', 12)));
}

MEMX_TEST_APPLESS_MAIN(TestIterationComposer)
}  // namespace tst_iteration_composer

#include "tst_iteration_composer.moc"
