// FlagScale's rules for process meshes (space/MeshRules.h), which the search,
// the plan reader and the FlagScale export share: a mesh's micro-batch is
// dp0 x mbs / dp and whole; with tied embeddings the first and last meshes'
// TPs are equal and, with the distributed optimizer, DPs that differ divide
// one another (../shared/reference/EXPORT_AND_LOGS.md section 3).
#include "space/MeshRules.h"

#include "TestMain.h"

namespace tst_mesh_rules {

using namespace memx;

class TestMeshRules : public QObject {
    Q_OBJECT
private slots:
    void meshMicroBatch_data();
    void meshMicroBatch();
    void tiedEmbeddings_data();
    void tiedEmbeddings();
};

void TestMeshRules::meshMicroBatch_data()
{
    QTest::addColumn<int>("dp0");
    QTest::addColumn<int>("mbs");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("expected");
    QTest::newRow("same DP") << 2 << 1 << 2 << 1;
    QTest::newRow("half the DP, twice the batch") << 2 << 1 << 1 << 2;
    QTest::newRow("4 x 2 / 8") << 4 << 2 << 8 << 1;
    QTest::newRow("2 x 1 / 4 is not whole") << 2 << 1 << 4 << 0;
    QTest::newRow("3 x 2 / 4 is not whole") << 3 << 2 << 4 << 0;
    QTest::newRow("no DP") << 2 << 1 << 0 << 0;
}

void TestMeshRules::meshMicroBatch()
{
    QFETCH(int, dp0);
    QFETCH(int, mbs);
    QFETCH(int, dp);
    QFETCH(int, expected);
    QCOMPARE(MeshRules::meshMicroBatch(dp0, mbs, dp), expected);
}

void TestMeshRules::tiedEmbeddings_data()
{
    QTest::addColumn<int>("firstTp");
    QTest::addColumn<int>("lastTp");
    QTest::addColumn<int>("firstDp");
    QTest::addColumn<int>("lastDp");
    QTest::addColumn<bool>("distributedOptimizer");
    QTest::addColumn<QString>("broken");  // a word of the reason; empty: the rules hold
    QTest::newRow("equal TP and DP") << 4 << 4 << 2 << 2 << true << "";
    QTest::newRow("TPs differ") << 4 << 8 << 2 << 2 << true << "same TP (4 vs 8)";
    QTest::newRow("TPs differ, no distributed optimizer") << 4 << 8 << 2 << 2 << false << "same TP";
    QTest::newRow("DPs 2 and 4 divide") << 4 << 4 << 2 << 4 << true << "";
    QTest::newRow("DPs 2 and 3 do not divide") << 4 << 4 << 2 << 3 << true << "divide one another (2 and 3)";
    // Upstream checks the DPs only with the distributed optimizer.
    QTest::newRow("DPs 2 and 3, no distributed optimizer") << 4 << 4 << 2 << 3 << false << "";
}

void TestMeshRules::tiedEmbeddings()
{
    QFETCH(int, firstTp);
    QFETCH(int, lastTp);
    QFETCH(int, firstDp);
    QFETCH(int, lastDp);
    QFETCH(bool, distributedOptimizer);
    QFETCH(QString, broken);
    const QString why
        = QString::fromStdString(MeshRules::tiedEmbeddings(firstTp, lastTp, firstDp, lastDp, distributedOptimizer));
    if (broken.isEmpty())
        QVERIFY2(why.isEmpty(), qPrintable(why));
    else
        QVERIFY2(why.contains(broken), qPrintable(why));
}

MEMX_TEST_GUILESS_MAIN(TestMeshRules)
}  // namespace tst_mesh_rules

#include "tst_mesh_rules.moc"
