// memx-cli import-logs as a user runs it on logs from public issue threads:
// without a run list (the run from each log's argument dump, the GPU type
// from --gpu-type / --gpu-type-map), with a run list it is checked against,
// and with logs that must be skipped (exit code 3 when others were imported,
// 2 when none was). Numbers come from the log text (see tst_log_import.cpp).
#include "CliRunner.h"

#include "measure/MeasurementCsv.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_cli_import_logs {

using memx::Measurement;
using memx::MeasurementCsv;

namespace {

QString logFile(const char* name)
{
    return QString::fromStdString(memx::test::dataFile(std::string("megatron_logs/") + name));
}

}  // namespace

class TestCliImportLogs : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void withoutRunList();
    void partlyImported();
    void noneImported_data();
    void noneImported();
    void runListChecked();
    void impossibleNumbers_data();
    void impossibleNumbers();
    void setupMismatchAllowed();
    void attentionAndDropoutFromTheDump();
    void helpNamesExitCodes();
};

void TestCliImportLogs::withoutRunList()
{
    const QStringList args{"import-logs",
                           "--out",
                           path("m.csv"),
                           "--gpu-type-map",
                           logFile("gpu_types.map"),
                           logFile("main_2025_argdump_vpp.log"),
                           logFile("megatron_deepspeed_argdump.log"),
                           logFile("torchrun_tee_ansi.log")};
    RUN_EXPECT(r, args, 0);
    // 3 logs: run row + 2 stage rows each.
    QVERIFY2(r.out.contains("9 rows from 3 of 3 log(s)"), qPrintable(r.out));
    const auto set = MeasurementCsv::read(path("m.csv").toStdString());
    QCOMPARE(int(set.rows.size()), 9);
    const Measurement& main = set.rows[0];
    QCOMPARE(main.runId, std::string("main_2025_argdump_vpp"));
    QCOMPARE(main.gpuType, std::string("H100-SXM"));
    QCOMPARE(main.iterationTimeMs.value(), 7305.2);
    QCOMPARE((QList<int>{main.tp, main.pp, main.dp, main.vp, main.queryGroups, main.vocab}),
             (QList<int>{2, 2, 2, 2, 8, 50432}));
    QCOMPARE(set.rows[1].peakMemMiB.value(), 43012.34);
    QCOMPARE(set.rows[3].runId, std::string("megatron_deepspeed_argdump"));
    QCOMPARE(set.rows[3].gpuType, std::string("A100-80GB"));
    QCOMPARE(set.rows[6].gpuType, std::string("L4"));
    // The MLP and the embeddings come from swiglu and untie_embeddings_and_output_weights.
    QCOMPARE(main.mlp, memx::MlpKind::SwiGlu);
    QVERIFY(!main.tiedEmbeddings);
    QCOMPARE(set.rows[3].mlp, memx::MlpKind::Gelu);  // Megatron-DeepSpeed GPT: swiglu False
    QVERIFY(!set.rows[3].tiedEmbeddings);
    // The attention: Transformer Engine with attention_backend auto picks a
    // fused kernel; Megatron-DeepSpeed without --use-flash-attn (and without
    // Transformer Engine) materialises the scores. Both dumps say dropout 0.0.
    QVERIFY(main.flashAttention);
    QVERIFY(!set.rows[3].flashAttention);
    QCOMPARE(main.attentionDropout, 0.0);
    QCOMPARE(set.rows[3].hiddenDropout, 0.0);
    // The torchrun log keeps two lines after the warm-up: said on stderr.
    QVERIFY2(r.err.contains("warning: ") && r.err.contains("torchrun_tee_ansi.log: only 2 iteration line(s)"),
             qPrintable(r.err));
}

void TestCliImportLogs::partlyImported()
{
    const QStringList args{"import-logs",
                           "--out",
                           path("p.csv"),
                           "--gpu-type",
                           "H100-SXM",
                           logFile("bad_truncated_dump.log"),
                           logFile("main_2025_argdump_vpp.log"),
                           logFile("bad_no_iteration_lines.log")};
    RUN_EXPECT(r, args, 3);
    QVERIFY2(r.err.contains("error: ")
                 && r.err.contains("bad_truncated_dump.log: line 3: the argument dump starting here "
                                   "has no end banner"),
             qPrintable(r.err));
    QVERIFY(r.err.contains("it stops after argument num_attention_heads on line 43"));
    QVERIFY(r.err.contains("bad_no_iteration_lines.log: no iteration line in its 86 lines"));
    QVERIFY(r.err.contains("bad_no_iteration_lines.log: nothing written for this log"));
    QVERIFY2(r.err.contains("2 log(s) skipped (reasons above); exit code 3"), qPrintable(r.err));
    QVERIFY2(r.out.contains("3 rows from 1 of 3 log(s)"), qPrintable(r.out));
    const auto set = MeasurementCsv::read(path("p.csv").toStdString());
    QCOMPARE(int(set.rows.size()), 3);
    for (const Measurement& m : set.rows)
        QCOMPARE(m.runId, std::string("main_2025_argdump_vpp"));
}

void TestCliImportLogs::noneImported_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QString out = path("none.csv");
    QTest::newRow("only bad logs") << QStringList{"import-logs", "--out",    out,
                                                  "--gpu-type",  "H100-SXM", logFile("bad_no_iteration_lines.log")}
                                   << "no log could be imported (1 skipped, reasons above)";
    QTest::newRow("no GPU type without a run list")
        << QStringList{"import-logs", "--out", out, logFile("main_2025_argdump_vpp.log")}
        << "without --runs the logs do not say which GPU ran them";
    QTest::newRow("unknown GPU type") << QStringList{"import-logs", "--out", out,
                                                     "--gpu-type",  "H1000", logFile("main_2025_argdump_vpp.log")}
                                      << "unknown GPU type \"H1000\"";
    QTest::newRow("negative warm-up") << QStringList{"import-logs", "--out",
                                                     out,           "--gpu-type",
                                                     "H100-SXM",    "--skip-warmup",
                                                     "-1",          logFile("main_2025_argdump_vpp.log")}
                                      << "--skip-warmup";
}

void TestCliImportLogs::noneImported()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("none.csv")));
}

void TestCliImportLogs::impossibleNumbers_data()
{
    // Issue #14: refused at the log's line, not later against the output CSV.
    QTest::addColumn<QString>("log");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("max allocated -5, elapsed 1e300 ms")
        << "megatron_impossible_numbers.log" << 0
        << QStringList{"megatron_impossible_numbers.log:113: memory line of rank 0: 'max allocated': must be "
                       "greater than 0 (got -5 MiB); skipped",
                       "megatron_impossible_numbers.log:117: iteration line 3: elapsed time per iteration: time "
                       "1e+300 ms is outside the plausible range 0.001-1000000000 ms; skipped"};
    QTest::newRow("every elapsed time 0")
        << "megatron_elapsed_zero.log" << 2
        << QStringList{"megatron_elapsed_zero.log:107: iteration line 1: elapsed time per iteration: must be "
                       "greater than 0 (got 0 ms); skipped",
                       "megatron_elapsed_zero.log: nothing written for this log"};
}

void TestCliImportLogs::impossibleNumbers()
{
    QFETCH(QString, log);
    QFETCH(int, exitCode);
    QFETCH(QStringList, expected);
    const QString file = QString::fromStdString(memx::test::dataFile("bad_inputs/" + log.toStdString()));
    const QStringList args{"import-logs", "--out", path("impossible.csv"), "--gpu-type", "H100-SXM", file};
    RUN_EXPECT(r, args, exitCode);
    for (const QString& e : expected)
        QVERIFY2(r.err.contains(e), qPrintable(r.err));
    QVERIFY2(!r.err.contains("impossible.csv:"), qPrintable(r.err));  // never blamed on the output
}

void TestCliImportLogs::runListChecked()
{
    // main_2025's dump contradicts its row (tp, dp, seq_len); the resumed run
    // agrees; the list's third run has no log.
    const QStringList args{"import-logs",
                           "--runs",
                           logFile("runs_contradicting.csv"),
                           "--out",
                           path("r.csv"),
                           logFile("main_2025_argdump_vpp.log"),
                           logFile("resumed_run_three_lines.log")};
    RUN_EXPECT(r, args, 3);
    QVERIFY2(r.err.contains("main_2025_argdump_vpp.log: line 70, argument tensor_model_parallel_size = 2 gives tp 2, "
                            "but run main_2025_argdump_vpp in"),
             qPrintable(r.err));
    QVERIFY(r.err.contains("argument world_size = 8 gives dp 2, but run main_2025_argdump_vpp"));
    QVERIFY(r.err.contains("argument seq_length = 4096 gives seq_len 4096, but run main_2025_argdump_vpp"));
    // A GPT run list for a LLaMA-style log: the MLP kind comes from the swiglu argument.
    QVERIFY2(r.err.contains("argument swiglu = True gives mlp swiglu, but run main_2025_argdump_vpp"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("warning: no log for run main_2025_argdump_vpp"), qPrintable(r.err));
    const auto set = MeasurementCsv::read(path("r.csv").toStdString());
    QCOMPARE(int(set.rows.size()), 2);
    QCOMPARE(set.rows[0].runId, std::string("resumed_run_three_lines"));
    QCOMPARE(set.rows[0].mlp, memx::MlpKind::Gelu);  // swiglu False
    QVERIFY(set.rows[0].tiedEmbeddings);  // untie_embeddings_and_output_weights False
    QCOMPARE(set.rows[0].iterationTimeMs.value(), 1789.75);
    QCOMPARE(set.rows[1].peakMemMiB.value(), 28012.80);
}

void TestCliImportLogs::setupMismatchAllowed()
{
    const QStringList refused{"import-logs", "--out",     path("s.csv"),
                              "--gpu-type",  "V100-32GB", logFile("megatron_2020_chunked_recompute.log")};
    RUN_EXPECT(r1, refused, 2);
    QVERIFY2(r1.err.contains("full recomputation in chunks of 2 layers"), qPrintable(r1.err));
    QStringList allowed = refused;
    allowed.insert(1, "--allow-setup-mismatch");
    RUN_EXPECT(r2, allowed, 0);
    QVERIFY2(r2.err.contains("imported anyway: --allow-setup-mismatch"), qPrintable(r2.err));
    const auto set = MeasurementCsv::read(path("s.csv").toStdString());
    QCOMPARE(int(set.rows.size()), 2);
    QCOMPARE(set.rows[0].iterationTimeMs.value(), 420.5);
    QCOMPARE(set.rows[1].peakMemMiB.value(), 5234.1787109375);  // the rank-less 2020 line
    // Megatron of 2020: no attention backend, no Transformer Engine, no
    // --use-flash-attn (unfused), dropout 0.1 on both.
    QVERIFY(!set.rows[0].flashAttention);
    QCOMPARE(set.rows[0].attentionDropout, 0.1);
    QCOMPARE(set.rows[0].hiddenDropout, 0.1);
    // Nor sequence parallelism or a distributed optimizer: the rows say so.
    QVERIFY(!set.rows[0].sequenceParallel);
    QVERIFY(!set.rows[0].distributedOptimizer);
    QFile written(path("s.csv"));
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(written.readAll());
    // The 2020 dump has no layer-style arguments: Megatron's defaults then, GPT's.
    QVERIFY2(text.contains(",sequence_parallel,distributed_optimizer,overlap_grad_reduce,overlap_param_gather,"
                           "position_embedding,normalization,bias_linear\n"),
             qPrintable(text));
    QVERIFY(set.rows[0].style == memx::LayerStyle::gpt());
}

// A run like Megatron-LM CI's gpt3_mcore_te_tp1_pp1_dist_optimizer_fim_dataset:
// --attention-backend unfused and Megatron's default dropout 0.1. The dump
// is the resumed-run log with those three arguments changed.
void TestCliImportLogs::attentionAndDropoutFromTheDump()
{
    QFile in(logFile("resumed_run_three_lines.log"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QString original = QString::fromUtf8(in.readAll());
    const auto variant = [&](const QString& backend, const QString& name) {
        QString text = original;
        text.replace("AttnBackend.auto", backend);
        text.replace("attention_dropout ............................... 0.0",
                     "attention_dropout ............................... 0.1");
        text.replace("hidden_dropout .................................. 0.0",
                     "hidden_dropout .................................. 0.1");
        QFile out(path(name));
        if (!out.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(name));
        out.write(text.toUtf8());
        return path(name);
    };
    const QString unfused = variant("AttnBackend.unfused", "unfused_dropout.log");
    RUN_EXPECT(r, (QStringList{"import-logs", "--out", path("u.csv"), "--gpu-type", "A100-80GB", unfused}), 0);
    const auto set = MeasurementCsv::read(path("u.csv").toStdString());
    QCOMPARE(int(set.rows.size()), 2);
    QVERIFY(!set.rows[0].flashAttention);
    QCOMPARE(set.rows[0].attentionDropout, 0.1);
    QCOMPARE(set.rows[0].hiddenDropout, 0.1);
    // The file says so in its columns.
    QFile written(path("u.csv"));
    QVERIFY(written.open(QIODevice::ReadOnly));
    // The dump also says overlap_grad_reduce = True, which brings the
    // parallelism and overlap columns along.
    QVERIFY(set.rows[0].overlapGradReduce);
    QVERIFY(!set.rows[0].overlapParamGather);
    QVERIFY(QString::fromUtf8(written.readAll())
                .contains(",attention,attention_dropout,hidden_dropout,sequence_parallel,distributed_optimizer,"
                          "overlap_grad_reduce,overlap_param_gather"));

    // A run list written for FlashAttention without dropout is contradicted
    // by the dump, argument by argument.
    QFile list(path("unfused_dropout.csv"));
    QVERIFY(list.open(QIODevice::WriteOnly));
    list.write("# format: memx-measurements/1\n"
               "run_id,gpu_type,num_gpus,tp,pp,dp,vp,mbs,gbs,seq_len,num_layers,hidden,ffn_hidden,heads,query_groups,"
               "vocab,recompute,mlp,tied_embeddings\n"
               "unfused_dropout,A100-80GB,16,4,1,4,1,4,256,2048,24,2048,8192,16,16,50688,none,gelu,true\n");
    list.close();
    RUN_EXPECT(r2,
               (QStringList{"import-logs", "--runs", path("unfused_dropout.csv"), "--out", path("u2.csv"), unfused}),
               2);
    QVERIFY2(r2.err.contains("argument attention_backend = AttnBackend.unfused gives attention unfused, but run "
                             "unfused_dropout in"),
             qPrintable(r2.err));
    QVERIFY2(r2.err.contains("argument attention_dropout = 0.1 gives attention_dropout 0.1, but run unfused_dropout"),
             qPrintable(r2.err));
    QVERIFY2(r2.err.contains("argument hidden_dropout = 0.1 gives hidden_dropout 0.1"), qPrintable(r2.err));

    // Megatron before --attention-backend: --use-flash-attn turns
    // FlashAttention on whatever the layers are; without it the local layers
    // keep the scores and Transformer Engine picks a fused kernel.
    const auto legacy = [&](const QString& impl, const QString& flashFlag, const QString& name) {
        QString text = original;
        text.remove(QRegularExpression(QStringLiteral("^[^\\n]*attention_backend [^\\n]*\\n"),
                                       QRegularExpression::MultilineOption));
        text.replace("transformer_impl ................................ transformer_engine",
                     "transformer_impl ................................ " + impl);
        text.replace("use_flash_attn .................................. False",
                     "use_flash_attn .................................. " + flashFlag);
        QFile out(path(name));
        if (!out.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(name));
        out.write(text.toUtf8());
        return path(name);
    };
    const struct {
        const char *impl, *flag;
        bool flash;
    } legacyRuns[] = {{"local", "True", true}, {"local", "False", false}, {"transformer_engine", "False", true}};
    for (const auto& l : legacyRuns) {
        const QString log = legacy(l.impl, l.flag, QString("legacy_%1_%2.log").arg(l.impl, l.flag));
        RUN_EXPECT(rl, (QStringList{"import-logs", "--out", path("l.csv"), "--gpu-type", "A100-80GB", log}), 0);
        const auto rows = MeasurementCsv::read(path("l.csv").toStdString()).rows;
        QVERIFY(!rows.empty());
        QVERIFY2(rows[0].flashAttention == l.flash, qPrintable(log));
    }

    // An attention backend Megatron does not have is refused, named.
    const QString bad = variant("AttnBackend.sdpa", "bad_backend.log");
    RUN_EXPECT(r3, (QStringList{"import-logs", "--out", path("b.csv"), "--gpu-type", "A100-80GB", bad}), 2);
    QVERIFY2(r3.err.contains("attention_backend")
                 && r3.err.contains("expected flash, fused, unfused, local or auto, "
                                    "got \"AttnBackend.sdpa\""),
             qPrintable(r3.err));
}

void TestCliImportLogs::helpNamesExitCodes()
{
    RUN_EXPECT(r, (QStringList{"import-logs", "--help"}), 0);
    QVERIFY2(r.out.contains("3 some logs skipped"), qPrintable(r.out));
    for (const char* option : {"--runs", "--gpu-type", "--gpu-type-map", "--skip-warmup", "--allow-setup-mismatch"})
        QVERIFY2(r.out.contains(option), option);
}

MEMX_TEST_GUILESS_MAIN(TestCliImportLogs)
}  // namespace tst_cli_import_logs

#include "tst_cli_import_logs.moc"
