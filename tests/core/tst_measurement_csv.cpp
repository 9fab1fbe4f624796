// MeasurementCsv: the memx-measurements/1 reader and writer (docs/MEASUREMENTS.md).
// The example files parse with the right values and defaults, write -> parse
// round-trips exactly, and every bad input raises memx::InputError naming the
// file, the line and column, and the reason with the valid values.
#include "io/InputError.h"
#include "model/ModelSpec.h"
#include "measure/MeasurementCsv.h"

#include "TestPaths.h"

#include "TestMain.h"

#include <string>
#include <vector>

namespace tst_measurement_csv {

using memx::InputError;
using memx::Measurement;
using memx::MeasurementCsv;
using memx::MeasurementSource;
using memx::Recompute;

namespace {

const QString kHeader = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,recompute,"
                        "source,stage,stage_layers,iteration_time_ms,stage_time_ms,peak_mem_mib";
const QString kRunRow = "r1,A100-80GB,8,2,2,2,1,16,4096,32,4096,32,32000,none,measured,,,1000,,50000";
const QString kStageRow = "r1,A100-80GB,8,2,2,2,1,16,4096,32,4096,32,32000,none,measured,0,16,,400,50000";

// kRunRow (or `base`) with the cells of the named columns replaced.
QString with(const QList<QPair<QString, QString>>& changes, const QString& base = kRunRow)
{
    const QStringList names = kHeader.split(',');
    QStringList cells = base.split(',');
    for (const auto& [col, value] : changes)
        cells[names.indexOf(col)] = value;
    return cells.join(',');
}

QString doc(const QStringList& rows, const QString& header = kHeader) { return header + "\n" + rows.join("\n") + "\n"; }

memx::MeasurementSet parse(const QString& text) { return MeasurementCsv::parse(text.toStdString(), "m.csv"); }

Measurement sample()
{
    Measurement m;
    m.runId = "run 1";
    m.gpuType = "H100-SXM";
    m.numGpus = 8;
    m.tp = 2;
    m.pp = 2;
    m.dp = 2;
    m.mbs = 1;
    m.gbs = 16;
    m.seqLen = 4096;
    m.numLayers = 32;
    m.hidden = 4096;
    m.ffnHidden = 11008;
    m.heads = 32;
    m.queryGroups = 8;
    m.vocab = 32000;
    m.iterationTimeMs = 1000;
    return m;
}

}  // namespace

class TestMeasurementCsv : public QObject {
    Q_OBJECT

private slots:
    void runLevelExample();
    void stageLevelExample();
    void heterogeneousRun();
    void defaults();
    void mlpColumn();
    void attentionAndDropoutColumns_data();
    void attentionAndDropoutColumns();
    void runColumnsAreChecked_data();
    void runColumnsAreChecked();
    void parallelismColumns_data();
    void parallelismColumns();
    void overlapColumns_data();
    void overlapColumns();
    void roundTrip_data();
    void roundTrip();
    void saveAndRead();
    void quotedFieldsAndCrlf();
    void unknownColumnsWarnOnce();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void missingFileNamesIt();
};

void TestMeasurementCsv::runLevelExample()
{
    const std::string file = memx::test::dataFile("measurements/run_level_example.csv");
    const auto set = MeasurementCsv::read(file);
    QVERIFY(set.warnings.empty());
    QCOMPARE(set.rows.size(), size_t(4));
    const Measurement& a = set.rows[0];
    QCOMPARE(a.runId, std::string("gpt3_7b_tp1_pp4_h100"));
    QCOMPARE(a.source, MeasurementSource::Measured);
    QCOMPARE(a.gpuType, std::string("H100-SXM"));
    QCOMPARE(a.numGpus, 8);
    QCOMPARE(a.tp, 1);
    QCOMPARE(a.pp, 4);
    QCOMPARE(a.dp, 2);
    QCOMPARE(a.vp, 8);
    QCOMPARE(a.mbs, 1);
    QCOMPARE(a.gbs, 8);
    QCOMPARE(a.seqLen, 8192);
    QCOMPARE(a.numLayers, 32);
    QCOMPARE(a.hidden, 4096);
    QCOMPARE(a.ffnHidden, 16384);
    QCOMPARE(a.heads, 32);
    QCOMPARE(a.queryGroups, 8);
    QCOMPARE(a.vocab, 131073);
    QCOMPARE(a.recompute, Recompute::None);
    QVERIFY(!a.isStageRow());
    QVERIFY(!a.stageLayers);
    QCOMPARE(*a.iterationTimeMs, 1150.17);
    QVERIFY(!a.stageTimeMs);
    QVERIFY(!a.peakMemMiB);
    const Measurement& d = set.rows[3];
    QCOMPARE(d.gpuType, std::string("GB200"));
    QCOMPARE(d.tp, 4);
    QCOMPARE(d.vp, 1);
    QCOMPARE(*d.iterationTimeMs, 852.57);
    QCOMPARE(*d.peakMemMiB, 55520.256);
}

void TestMeasurementCsv::stageLevelExample()
{
    const auto set = MeasurementCsv::read(memx::test::dataFile("measurements/stage_level_example.csv"));
    QVERIFY(set.warnings.empty());
    QCOMPARE(set.rows.size(), size_t(5));
    for (const Measurement& m : set.rows) {
        QVERIFY(m.isStageRow());
        QCOMPARE(m.source, MeasurementSource::Simulated);
        QCOMPARE(m.vp, 1);  // default
        QCOMPARE(m.queryGroups, m.heads);  // default
        QCOMPARE(m.ffnHidden, memx::ModelSpec::defaultFfn(4096));  // default
        QCOMPARE(m.ffnHidden, 11008);
    }
    const Measurement& s1 = set.rows[1];
    QCOMPARE(s1.runId, std::string("homo-a100"));
    QCOMPARE(*s1.stage, 1);
    QCOMPARE(*s1.stageLayers, 16);
    QCOMPARE(*s1.stageTimeMs, 3302.75);
    QCOMPARE(*s1.peakMemMiB, 48870.0);
    QCOMPARE(*s1.iterationTimeMs, 6620.25);
    const Measurement& h2 = set.rows[4];
    QCOMPARE(h2.runId, std::string("hetero, 3 vendors"));
    QCOMPARE(*h2.stage, 2);
    QVERIFY(!h2.peakMemMiB);
    QVERIFY(!h2.iterationTimeMs);
}

void TestMeasurementCsv::heterogeneousRun()
{
    const QString text = doc({
        with({{"gpu_type", "A100-80GB"},
              {"recompute", "selective"},
              {"stage", "0"},
              {"stage_layers", "12"},
              {"tp", "2"},
              {"dp", "1"}},
             kStageRow),
        with({{"gpu_type", "Vendor-B"},
              {"recompute", "full"},
              {"stage", "1"},
              {"stage_layers", "20"},
              {"tp", "4"},
              {"dp", "1"}},
             kStageRow),
    });
    const auto set = parse(text);
    QCOMPARE(set.rows.size(), size_t(2));
    QCOMPARE(set.rows[0].gpuType, std::string("A100-80GB"));
    QCOMPARE(set.rows[0].recompute, Recompute::Selective);
    QCOMPARE(set.rows[0].tp, 2);
    QCOMPARE(set.rows[1].gpuType, std::string("Vendor-B"));
    QCOMPARE(set.rows[1].recompute, Recompute::Full);
    QCOMPARE(set.rows[1].tp, 4);
    QCOMPARE(*set.rows[1].stageLayers, 20);
}

void TestMeasurementCsv::defaults()
{
    // Only the required columns and one target.
    const auto set
        = parse("run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,peak_mem_mib\n"
                "a,L4,4,1,1,4,2,8,2048,24,2048,16,50257,20000.5\n");
    QCOMPARE(set.rows.size(), size_t(1));
    const Measurement& m = set.rows[0];
    QCOMPARE(m.vp, 1);
    QCOMPARE(m.queryGroups, 16);
    QCOMPARE(m.ffnHidden, memx::ModelSpec::defaultFfn(2048));
    QCOMPARE(m.recompute, Recompute::None);
    QCOMPARE(m.source, MeasurementSource::Measured);
    QVERIFY(!m.iterationTimeMs);
    QCOMPARE(*m.peakMemMiB, 20000.5);
}

// A GPT run (Megatron without --swiglu) says mlp gelu; its default FFN is
// Megatron's 4h, not LLaMA's 8h/3. Files without the column stay SwiGLU, and
// the writer adds the column only when a row needs it.
void TestMeasurementCsv::mlpColumn()
{
    const auto set = parse(doc({with({{"run_id", "gpt"}}) + ",gelu", kRunRow + ","}, kHeader + ",mlp"));
    QCOMPARE(set.rows.size(), size_t(2));
    QCOMPARE(set.rows[0].mlp, memx::MlpKind::Gelu);
    QCOMPARE(set.rows[0].ffnHidden, 16384);  // no ffn_hidden column: 4 * 4096
    QCOMPARE(set.rows[1].mlp, memx::MlpKind::SwiGlu);  // empty cell
    QCOMPARE(set.rows[1].ffnHidden, 11008);
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(written.find(",mlp\n") != std::string::npos);
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
    QVERIFY(MeasurementCsv::write({set.rows[1]}).find("mlp") == std::string::npos);
    try {
        parse(doc({kRunRow + ",relu"}, kHeader + ",mlp"));
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), QString("line 2, column mlp"));
        QVERIFY2(QString::fromStdString(e.reason()).contains("mlp must be empty (swiglu) or swiglu|gelu, got \"relu\""),
                 e.what());
    }
    // Rows of one run agree on it.
    const QString stage1 = with({{"stage", "1"}}, kStageRow);
    try {
        parse(doc({kStageRow + ",16384,gelu", stage1 + ",16384,swiglu"}, kHeader + ",ffn_hidden,mlp"));
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), QString("line 3, column mlp"));
    }
}

// A Megatron run that used --attention-backend unfused or kept dropout says
// so; Megatron's own backend names are read too. Empty cells: flash, no
// dropout (what a file from before these columns meant).
void TestMeasurementCsv::attentionAndDropoutColumns_data()
{
    QTest::addColumn<QString>("attention");
    QTest::addColumn<QString>("attentionDropout");
    QTest::addColumn<QString>("hiddenDropout");
    QTest::addColumn<bool>("flash");
    QTest::addColumn<double>("attentionRate");
    QTest::addColumn<double>("hiddenRate");
    QTest::newRow("empty cells") << ""
                                 << ""
                                 << "" << true << 0.0 << 0.0;
    QTest::newRow("unfused, Megatron's default dropout") << "unfused"
                                                         << "0.1"
                                                         << "0.1" << false << 0.1 << 0.1;
    QTest::newRow("flash, hidden only") << "flash"
                                        << "0"
                                        << "0.05" << true << 0.0 << 0.05;
    QTest::newRow("Megatron's local layers") << "local"
                                             << "0.0"
                                             << "0.0" << false << 0.0 << 0.0;
    QTest::newRow("Megatron's fused backend") << "fused"
                                              << ""
                                              << "" << true << 0.0 << 0.0;
    QTest::newRow("Megatron's auto backend") << "auto"
                                             << ""
                                             << "" << true << 0.0 << 0.0;
}

void TestMeasurementCsv::attentionAndDropoutColumns()
{
    QFETCH(QString, attention);
    QFETCH(QString, attentionDropout);
    QFETCH(QString, hiddenDropout);
    const auto set = parse(doc({kRunRow + "," + attention + "," + attentionDropout + "," + hiddenDropout},
                               kHeader + ",attention,attention_dropout,hidden_dropout"));
    QCOMPARE(set.rows.size(), size_t(1));
    const memx::Measurement& m = set.rows[0];
    QTEST(m.flashAttention, "flash");
    QTEST(m.attentionDropout, "attentionRate");
    QTEST(m.hiddenDropout, "hiddenRate");
    // Written back (flash|unfused) and read again, the same run.
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
    const bool defaults = m.flashAttention && m.attentionDropout == 0 && m.hiddenDropout == 0;
    QCOMPARE(written.find("attention") == std::string::npos, defaults);
}

// The optional run-level columns refuse bad cells, naming line and column,
// and the rows of one run must agree on them.
void TestMeasurementCsv::runColumnsAreChecked_data()
{
    QTest::addColumn<QString>("columns");  // appended to kHeader
    QTest::addColumn<QStringList>("rows");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    const QString attention = ",attention,attention_dropout,hidden_dropout";
    const QString parallel = ",sequence_parallel,distributed_optimizer";
    const QString stage1 = with({{"stage", "1"}}, kStageRow);
    QTest::newRow("attention sdpa") << attention << QStringList{kRunRow + ",sdpa,,"} << "line 2, column attention"
                                    << "attention must be empty (flash) or flash|unfused";
    QTest::newRow("attention dropout 1")
        << attention << QStringList{kRunRow + ",,1,"} << "line 2, column attention_dropout"
        << "attention_dropout must be empty (0) or a dropout rate in [0, 1), got \"1\"";
    QTest::newRow("hidden dropout -0.1")
        << attention << QStringList{kRunRow + ",,,-0.1"} << "line 2, column hidden_dropout"
        << "hidden_dropout must be empty (0) or a dropout rate in [0, 1), got \"-0.1\"";
    QTest::newRow("attention dropout ten")
        << attention << QStringList{kRunRow + ",,ten,"} << "line 2, column attention_dropout"
        << "got \"ten\"";
    QTest::newRow("dropout differs within a run")
        << attention << QStringList{kStageRow + ",unfused,0.1,0.1", stage1 + ",unfused,0.1,0"}
        << "line 3, column hidden_dropout"
        << "rows of one run must agree on it";
    QTest::newRow("sequence parallel yes")
        << parallel << QStringList{kRunRow + ",yes,"} << "line 2, column sequence_parallel"
        << "sequence_parallel must be empty (true) or true|false, got \"yes\"";
    QTest::newRow("distributed optimizer 1")
        << parallel << QStringList{kRunRow + ",,1"} << "line 2, column distributed_optimizer"
        << "distributed_optimizer must be empty (true) or true|false, got \"1\"";
    QTest::newRow("distributed optimizer differs within a run")
        << parallel << QStringList{kStageRow + ",false,false", stage1 + ",false,true"}
        << "line 3, column distributed_optimizer"
        << "rows of one run must agree on it";
    // A spreadsheet's thousands separators: the message says so and gives
    // the plain number, instead of only "must be a positive number".
    QTest::newRow("time with a thousands separator")
        << QString() << QStringList{with({{"iteration_time_ms", "\"7,305.2\""}})} << "line 2, column iteration_time_ms"
        << "got \"7,305.2\" (a thousands separator: write 7305.2)";
    QTest::newRow("batch with a thousands separator")
        << QString() << QStringList{with({{"gbs", "\"1,024\""}})} << "line 2, column gbs"
        << "(a thousands separator: write 1024)";
    QTest::newRow("commas that are not a separator")
        << QString() << QStringList{with({{"iteration_time_ms", "\"12,34\""}})} << "line 2, column iteration_time_ms"
        << "got \"12,34\"";
}

void TestMeasurementCsv::runColumnsAreChecked()
{
    QFETCH(QString, columns);
    QFETCH(QStringList, rows);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    try {
        parse(doc(rows, kHeader + columns));
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

// Megatron's --sequence-parallel and --use-distributed-optimizer as the run
// used them (both off by default in Megatron, on in the planner).
void TestMeasurementCsv::parallelismColumns_data()
{
    QTest::addColumn<QString>("cells");
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<bool>("distributedOptimizer");
    QTest::newRow("empty cells: the planner's defaults") << "," << true << true;
    QTest::newRow("neither (Megatron's defaults)") << "false,false" << false << false;
    QTest::newRow("sequence parallel only") << "true,false" << true << false;
    QTest::newRow("sharded optimizer only") << "false,true" << false << true;
}

void TestMeasurementCsv::parallelismColumns()
{
    QFETCH(QString, cells);
    const QString header
        = kHeader + ",attention,attention_dropout,hidden_dropout,sequence_parallel,distributed_optimizer";
    const auto set = parse(doc({kRunRow + ",,,," + cells}, header));
    QCOMPARE(set.rows.size(), size_t(1));
    const memx::Measurement& m = set.rows[0];
    QTEST(m.sequenceParallel, "sequenceParallel");
    QTEST(m.distributedOptimizer, "distributedOptimizer");
    // Written back and read again, the same run; the columns only when needed.
    const std::string written = MeasurementCsv::write(set.rows);
    QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
    QCOMPARE(written.find("sequence_parallel") == std::string::npos, m.sequenceParallel && m.distributedOptimizer);
}

// Megatron's --overlap-grad-reduce and --overlap-param-gather: off when the
// cells are empty (Megatron's default), written only when a run used them,
// and the gather overlap refused without the other two, as Megatron does.
void TestMeasurementCsv::overlapColumns_data()
{
    QTest::addColumn<QString>("cells");
    QTest::addColumn<bool>("gradReduce");
    QTest::addColumn<bool>("paramGather");
    QTest::addColumn<QString>("error");
    QTest::newRow("empty: Megatron's default, off") << ",,," << false << false << "";
    QTest::newRow("gradient reduction") << ",true,true," << true << false << "";
    QTest::newRow("both") << ",true,true,true" << true << true << "";
    QTest::newRow("gather alone") << ",true,,true" << false << false << "needs overlap_grad_reduce true";
    QTest::newRow("gather without the distributed optimizer")
        << ",false,true,true" << false << false << "needs distributed_optimizer true";
    QTest::newRow("not a boolean") << ",true,yes," << false << false << "true|false";
}

void TestMeasurementCsv::overlapColumns()
{
    QFETCH(QString, cells);
    QFETCH(QString, error);
    const QString header = kHeader
        + ",attention,attention_dropout,hidden_dropout,sequence_parallel,distributed_optimizer,overlap_grad_reduce,"
          "overlap_param_gather";
    try {
        const auto set = parse(doc({kRunRow + ",,,," + cells}, header));
        QVERIFY2(error.isEmpty(), "no InputError raised");
        const memx::Measurement& m = set.rows.at(0);
        QTEST(m.overlapGradReduce, "gradReduce");
        QTEST(m.overlapParamGather, "paramGather");
        const std::string written = MeasurementCsv::write(set.rows);
        QVERIFY(MeasurementCsv::parse(written, "w.csv").rows == set.rows);
        QCOMPARE(written.find("overlap_grad_reduce") == std::string::npos, !m.overlapGradReduce);
    } catch (const InputError& e) {
        QVERIFY2(!error.isEmpty(), e.what());
        QVERIFY2(QString::fromStdString(e.reason()).contains(error), e.what());
        QVERIFY2(QString::fromStdString(e.field()).contains("overlap"), e.what());
    }
}

void TestMeasurementCsv::roundTrip_data()
{
    QTest::addColumn<QString>("text");
    auto fileText = [](const char* rel) {
        QFile f(QString::fromStdString(memx::test::dataFile(rel)));
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot open %s", rel);
        return QString::fromUtf8(f.readAll());
    };
    QTest::addRow("run-level example") << fileText("measurements/run_level_example.csv");
    QTest::addRow("stage-level example") << fileText("measurements/stage_level_example.csv");
}

void TestMeasurementCsv::roundTrip()
{
    QFETCH(QString, text);
    const auto first = parse(text);
    const std::string written = MeasurementCsv::write(first.rows);
    const auto second = MeasurementCsv::parse(written, "w.csv");
    QVERIFY(second.warnings.empty());
    QVERIFY(second.rows == first.rows);
    QCOMPARE(MeasurementCsv::write(second.rows), written);
}

void TestMeasurementCsv::saveAndRead()
{
    std::vector<Measurement> rows;
    Measurement a = sample();
    a.runId = "# odd \"id\", with comma ";
    a.gpuType = " spaced ";
    a.source = MeasurementSource::Interpolated;
    a.recompute = Recompute::Full;
    a.iterationTimeMs = 0.1 + 0.2;  // not exactly representable in short decimal
    a.peakMemMiB = 1.0 / 3.0;  // every value within the plausible ranges of io/Ranges.h
    rows.push_back(a);
    Measurement b = sample();
    b.runId = "Größe 'run' $(x) `y`";  // any one line of text is a name
    b.stage = 1;
    b.stageLayers = 16;
    b.iterationTimeMs.reset();
    b.stageTimeMs = 12345.678901234567;
    b.peakMemMiB = 123456.789012345;
    rows.push_back(b);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string file = dir.filePath("out.csv").toStdString();
    MeasurementCsv::save(file, rows);
    const auto back = MeasurementCsv::read(file);
    QVERIFY(back.warnings.empty());
    QCOMPARE(back.rows.size(), rows.size());
    QVERIFY(back.rows[0] == rows[0]);
    QVERIFY(back.rows[1] == rows[1]);
    QCOMPARE(MeasurementCsv::write(back.rows), MeasurementCsv::write(rows));

    // A run id that breaks its line is refused, naming the cell (names are
    // one line of text: io/Text.h, nameProblem): on saving, which never
    // writes what the reader would refuse, and so the file stays as it was.
    rows[1].runId = "multi\nline";
    try {
        MeasurementCsv::save(file, rows);
        QFAIL("a run id with a line feed was saved");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("column run_id: run_id holds a line feed (U+000A)") != std::string::npos,
                 e.what());
    }
    QVERIFY(MeasurementCsv::read(file).rows.size() == 2);
}

void TestMeasurementCsv::quotedFieldsAndCrlf()
{
    QString text = doc({with({{"run_id", "\"a \"\"quoted\"\", id\""}, {"gpu_type", " \"H100-SXM\" "}})});
    text.replace("\n", "\r\n");
    const auto set = parse(text);
    QCOMPARE(set.rows.size(), size_t(1));
    QCOMPARE(set.rows[0].runId, std::string("a \"quoted\", id"));
    QCOMPARE(set.rows[0].gpuType, std::string("H100-SXM"));
    QCOMPARE(*set.rows[0].peakMemMiB, 50000.0);
}

void TestMeasurementCsv::unknownColumnsWarnOnce()
{
    const QString header = kHeader + ",notes,host";  // (cluster is a column now: docs/MEASUREMENTS.md)
    const auto set = parse(doc({kRunRow + ",first,x", with({{"run_id", "r2"}}) + ",second,y"}, header));
    QCOMPARE(set.rows.size(), size_t(2));
    QCOMPARE(set.warnings.size(), size_t(1));
    const QString w = QString::fromStdString(set.warnings[0]);
    QVERIFY2(w.contains("m.csv") && w.contains("notes") && w.contains("host"), qPrintable(w));
}

void TestMeasurementCsv::rejectsBadInput_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");

    QString headerNoTp = kHeader;
    headerNoTp.replace(",tp,", ",");
    QStringList rowNoTp = kRunRow.split(',');
    rowNoTp.removeAt(3);

    // Classic Mac OS line endings: the whole file is one line to a CSV reader.
    {
        QString cr = doc({kRunRow});
        cr.replace("\n", "\r");
        QTest::addRow("bare carriage returns") << cr << "line 1"
                                               << "lines end in a bare carriage return";
    }
    QTest::addRow("unknown recompute") << doc({with({{"recompute", "partial"}})}) << "line 2, column recompute"
                                       << "recompute must be none|selective|full, got \"partial\"";
    QTest::addRow("unknown source") << doc({with({{"source", "real"}})}) << "line 2, column source"
                                    << "source must be measured|simulated|interpolated";
    QTest::addRow("tp zero") << doc({with({{"tp", "0"}})}) << "line 2, column tp"
                             << "tp must be a positive integer";
    QTest::addRow("tp not a number") << doc({with({{"tp", "two"}})}) << "line 2, column tp"
                                     << "tp must be a positive integer, got \"two\"";
    QTest::addRow("tp fractional") << doc({with({{"tp", "2.5"}})}) << "line 2, column tp"
                                   << "tp must be a positive integer";
    QTest::addRow("num_gpus empty") << doc({with({{"num_gpus", ""}})}) << "line 2, column num_gpus"
                                    << "num_gpus must be a positive integer, got an empty cell";
    QTest::addRow("run_id empty") << doc({with({{"run_id", ""}})}) << "line 2, column run_id"
                                  << "run_id must not be empty";
    QTest::addRow("stage without stage_layers") << doc({with({{"stage", "0"}})}) << "line 2, column stage_layers"
                                                << "stage given without stage_layers";
    QTest::addRow("stage_layers without stage") << doc({with({{"stage_layers", "16"}})}) << "line 2, column stage"
                                                << "stage_layers given without stage";
    QTest::addRow("stage >= pp") << doc({with({{"stage", "2"}}, kStageRow)}) << "line 2, column stage"
                                 << "stage must be in 0..pp-1 (pp 2), got 2";
    QTest::addRow("negative stage") << doc({with({{"stage", "-1"}}, kStageRow)}) << "line 2, column stage"
                                    << "stage must be a non-negative integer";
    QTest::addRow("duplicate run row") << doc({kRunRow, kRunRow}) << "line 3, column run_id"
                                       << "duplicate (run_id, stage) = (r1, run row); first given on line 2";
    QTest::addRow("duplicate stage row") << doc({kStageRow, kStageRow}) << "line 3, column stage"
                                         << "duplicate (run_id, stage) = (r1, 0)";
    QTest::addRow("required column missing") << doc({rowNoTp.join(',')}, headerNoTp) << "line 1, column tp"
                                             << "required column missing";
    QTest::addRow("no target column")
        << doc({"a,L4,4,1,1,4,2,8,2048,24,2048,16,50257"},
               "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab")
        << "line 1"
        << "the header has no target column";
    QTest::addRow("no target value") << doc({with({{"iteration_time_ms", ""}, {"peak_mem_mib", ""}})}) << "line 2"
                                     << "a row needs at least one of iteration_time_ms, stage_time_ms, peak_mem_mib";
    QTest::addRow("negative time") << doc({with({{"iteration_time_ms", "-5"}})}) << "line 2, column iteration_time_ms"
                                   << "iteration_time_ms must be empty or a positive number, got \"-5\"";
    QTest::addRow("nan memory") << doc({with({{"peak_mem_mib", "nan"}})}) << "line 2, column peak_mem_mib"
                                << "peak_mem_mib must be empty or a positive number";
    QTest::addRow("stage time on run row") << doc({with({{"stage_time_ms", "5"}})}) << "line 2, column stage_time_ms"
                                           << "stage_time_ms belongs to a stage row";
    QTest::addRow("too few fields") << doc({"r1,A100-80GB,8"}) << "line 2"
                                    << "expected 20 fields as in the header, found 3";
    QTest::addRow("unterminated quote") << doc({with({{"run_id", "\"r1"}})}) << "line 2"
                                        << "unterminated quoted field";
    QTest::addRow("heads do not divide hidden") << doc({with({{"heads", "30"}})}) << "line 2, column heads"
                                                << "heads must divide hidden (4096), got 30";
    QTest::addRow("num_gpus not tp*pp*dp") << doc({with({{"num_gpus", "16"}})}) << "line 2, column num_gpus"
                                           << "must equal tp * pp * dp (8), got 16";
    QTest::addRow("gbs not multiple of mbs*dp") << doc({with({{"gbs", "15"}})}) << "line 2, column gbs"
                                                << "gbs must be a multiple of mbs * dp (2), got 15";
    QTest::addRow("stage rows disagree") << doc({kStageRow, with({{"stage", "1"}, {"seq_len", "2048"}}, kStageRow)})
                                         << "line 3, column seq_len"
                                         << "seq_len 2048 differs from 4096 on line 2 of the same run \"r1\"";
    QTest::addRow("stage layers do not add up")
        << doc({kStageRow, with({{"stage", "1"}, {"stage_layers", "8"}}, kStageRow)}) << "line 3, column stage_layers"
        << "add up to 24 over 2 stage(s), but num_layers is 32";
    QTest::addRow("comments and blank lines count")
        << ("# comment\n\n" + doc({kRunRow, with({{"run_id", "r2"}, {"mbs", "x"}})})) << "line 5, column mbs"
        << "mbs must be a positive integer";
    QTest::addRow("other format version") << ("# format: memx-measurements/2\n" + doc({kRunRow})) << "line 1"
                                          << "unsupported format \"memx-measurements/2\"";
    QTest::addRow("empty file") << QString("# nothing\n") << "line 1"
                                << "no header row";
    QTest::addRow("column twice") << doc({kRunRow + ",2"}, kHeader + ",tp") << "line 1, column tp"
                                  << "column given twice in the header";
}

void TestMeasurementCsv::rejectsBadInput()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    try {
        parse(text);
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("m.csv"));
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

void TestMeasurementCsv::missingFileNamesIt()
{
    try {
        MeasurementCsv::read("/nonexistent/dir/m.csv");
        QFAIL("no InputError raised");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("/nonexistent/dir/m.csv"));
        QVERIFY(QString::fromStdString(e.reason()).contains("cannot open"));
    }
}

MEMX_TEST_APPLESS_MAIN(TestMeasurementCsv)
}  // namespace tst_measurement_csv

#include "tst_measurement_csv.moc"
