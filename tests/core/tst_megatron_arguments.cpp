// The argument dump Megatron-LM prints at start (MegatronArguments) and the
// layer split it implies (PipelineLayout). Dumps are written here the way
// Megatron's _print_args writes them ("  " + name + " " + dots to 48 columns +
// " " + str(value), sorted case-insensitively, between the two banners);
// every expected number is worked out by hand from the arguments in the row.
#include "io/InputError.h"
#include "measure/MegatronArguments.h"
#include "megatron/PipelineLayout.h"

#include "TestMain.h"

#include <algorithm>
#include <stdexcept>

namespace tst_megatron_arguments {

using memx::DumpedRun;
using memx::InputError;
using memx::MegatronArguments;
using memx::PaddedVocabLine;
using memx::PipelineLayout;
using memx::Recompute;

namespace {

using Args = QMap<QString, QString>;

// A LLaMA-7B-shaped run on 8 GPUs, TP2 PP2 (so DP2), as Megatron prints it.
Args baseArgs()
{
    return Args{
        {"bf16", "True"},
        {"context_parallel_size", "1"},
        {"data_parallel_size", "2"},
        {"ffn_hidden_size", "11008"},
        {"fp16", "False"},
        {"global_batch_size", "64"},
        {"group_query_attention", "False"},
        {"hidden_size", "4096"},
        {"log_interval", "1"},
        {"micro_batch_size", "1"},
        {"num_attention_heads", "32"},
        {"num_layers", "32"},
        {"num_query_groups", "1"},
        {"padded_vocab_size", "50432"},
        {"params_dtype", "torch.bfloat16"},
        {"pipeline_model_parallel_layout", "None"},
        {"pipeline_model_parallel_size", "2"},
        {"recompute_granularity", "None"},
        {"recompute_method", "None"},
        {"recompute_num_layers", "None"},
        {"seq_length", "4096"},
        {"sequence_parallel", "True"},
        {"swiglu", "True"},
        {"tensor_model_parallel_size", "2"},
        {"use_distributed_optimizer", "True"},
        {"vocab_size", "50257"},
        {"world_size", "8"},
    };
}

Args with(Args a, const Args& overrides)
{
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        if (it.value() == "<absent>")
            a.remove(it.key());
        else
            a[it.key()] = it.value();
    }
    return a;
}

// The dump lines in Megatron's order: the start banner on line 1, arguments
// from line 2 sorted case-insensitively, the end banner last.
QStringList dumpLines(const Args& args, int width = 48)
{
    QStringList lines;
    for (auto it = args.begin(); it != args.end(); ++it)
        lines << "  " + it.key() + " " + QString(std::max<qsizetype>(0, width - it.key().size()), '.') + " "
                + it.value();
    std::sort(lines.begin(), lines.end(), [](const QString& a, const QString& b) { return a.toLower() < b.toLower(); });
    lines.prepend("------------------------ arguments ------------------------");
    lines << "-------------------- end of arguments ---------------------";
    return lines;
}

MegatronArguments readDump(const Args& args)
{
    const QStringList lines = dumpLines(args);
    MegatronArguments a("dump.log", 1);
    for (int i = 1; i + 1 < lines.size(); ++i)
        a.addLine(lines[i].toStdString(), i + 1);
    a.finish(lines.size());
    return a;
}

// The 1-based line of `name` in dumpLines(args).
int lineOf(const Args& args, const QString& name)
{
    const QStringList lines = dumpLines(args);
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].startsWith("  " + name + " "))
            return i + 1;
    return 0;
}

QList<int> toList(const std::vector<int>& v) { return QList<int>(v.begin(), v.end()); }

QList<int> recomputeLevels(const DumpedRun& r)
{
    QList<int> out;
    for (const Recompute x : r.stageRecompute)
        out << static_cast<int>(x);
    return out;
}

constexpr int None = static_cast<int>(Recompute::None);
constexpr int Sel = static_cast<int>(Recompute::Selective);
constexpr int Full = static_cast<int>(Recompute::Full);

}  // namespace

class TestMegatronArguments : public QObject {
    Q_OBJECT

private slots:
    void banners_data();
    void banners();
    void dumpLine_data();
    void dumpLine();
    void typedValues_data();
    void typedValues();
    void toRun_data();
    void toRun();
    void overlapFlags_data();
    void overlapFlags();
    void layerStyle_data();
    void layerStyle();
    void toRunRefuses_data();
    void toRunRefuses();
    void unmodelledSetup_data();
    void unmodelledSetup();
    void sourcesNameTheArgument();
    void firstDifference();
    void layoutEntries_data();
    void layoutEntries();
    void layoutRefuses_data();
    void layoutRefuses();
};

void TestMegatronArguments::banners_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("start");
    QTest::addColumn<bool>("end");
    QTest::newRow("main start") << "------------------------ arguments ------------------------" << true << false;
    QTest::newRow("main end") << "-------------------- end of arguments ---------------------" << false << true;
    QTest::newRow("2020 start") << "-------------------- arguments --------------------" << true << false;
    QTest::newRow("2020 end") << "---------------- end of arguments ----------------" << false << true;
    QTest::newRow("indented") << "   ------------------------ arguments ------------------------  " << true << false;
    QTest::newRow("other title") << "------------------------ env vars ------------------------" << false << false;
    QTest::newRow("Bridge config") << "------- Task Configuration -------" << false << false;
    QTest::newRow("plain rule") << "--------------------------------------" << false << false;
}

void TestMegatronArguments::banners()
{
    QFETCH(QString, line);
    QFETCH(bool, start);
    QFETCH(bool, end);
    QCOMPARE(MegatronArguments::isStartBanner(line.toStdString()), start);
    QCOMPARE(MegatronArguments::isEndBanner(line.toStdString()), end);
}

void TestMegatronArguments::dumpLine_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");

    QTest::newRow("48 columns") << "  adam_beta1 ...................................... 0.9" << true << "adam_beta1"
                                << "0.9";
    QTest::newRow("32 columns (2020)") << "  batch_size ...................... 8" << true << "batch_size"
                                       << "8";
    // len 50 >= 48: '.' * (48 - 50) is empty, leaving two spaces.
    QTest::newRow("name past the padding") << "  use_persistent_ckpt_worker_for_non_persistent_save  True" << true
                                           << "use_persistent_ckpt_worker_for_non_persistent_save"
                                           << "True";
    QTest::newRow("list with spaces")
        << "  data_path ....................................... ['0.5', '/d/a', '0.5', '/d/b']" << true << "data_path"
        << "['0.5', '/d/a', '0.5', '/d/b']";
    QTest::newRow("value starting with a dot")
        << "  save ............................................ ./checkpoints" << true << "save"
        << "./checkpoints";
    QTest::newRow("empty string value") << "  wandb_project ................................... " << true
                                        << "wandb_project"
                                        << "";
    QTest::newRow("timer entry") << "    optimizer ......................................: (301.72, 305.14)" << false
                                 << ""
                                 << "";
    QTest::newRow("timer with dash") << "    forward-backward ...............................: (9402.11, 9403.87)"
                                     << false << ""
                                     << "";
    QTest::newRow("prose") << "using world size: 8, data-parallel size: 2" << false << ""
                           << "";
    QTest::newRow("DeepSpeed env info") << "torch version .................... 2.1.0" << false << ""
                                        << "";
    QTest::newRow("short name without dots") << "  seed 1234" << false << ""
                                             << "";
}

void TestMegatronArguments::dumpLine()
{
    QFETCH(QString, line);
    QFETCH(bool, accepted);
    QFETCH(QString, name);
    QFETCH(QString, value);
    MegatronArguments a("d.log", 1);
    QCOMPARE(a.addLine(line.toStdString(), 7), accepted);
    QCOMPARE(int(a.size()), accepted ? 1 : 0);
    if (!accepted)
        return;
    QCOMPARE(QString::fromStdString(a.raw(name.toStdString()).value()), value);
    QCOMPARE(a.line(name.toStdString()), 7);
    QCOMPARE(QString::fromStdString(a.lastArgument()), name);
}

void TestMegatronArguments::typedValues_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("kind");  // text, integer, flag, list
    QTest::addColumn<QString>("expected");  // "<none>" for nullopt, "<error>" for an InputError; lists joined with '|'

    QTest::newRow("None is absent") << "None"
                                    << "integer"
                                    << "<none>";
    QTest::newRow("integer") << "4096"
                             << "integer"
                             << "4096";
    QTest::newRow("integer, not a number") << "four"
                                           << "integer"
                                           << "<error>";
    QTest::newRow("integer, a float") << "0.5"
                                      << "integer"
                                      << "<error>";
    QTest::newRow("True") << "True"
                          << "flag"
                          << "true";
    QTest::newRow("False") << "False"
                           << "flag"
                           << "false";
    QTest::newRow("flag, not a bool") << "yes"
                                      << "flag"
                                      << "<error>";
    QTest::newRow("bare string") << "selective"
                                 << "text"
                                 << "selective";
    QTest::newRow("quoted string") << "'selective'"
                                   << "text"
                                   << "selective";
    QTest::newRow("torch dtype") << "torch.bfloat16"
                                 << "text"
                                 << "torch.bfloat16";
    QTest::newRow("list of reprs") << "['core_attn', 'mlp']"
                                   << "list"
                                   << "core_attn|mlp";
    QTest::newRow("list of ints") << "[1, 2]"
                                  << "list"
                                  << "1|2";
    QTest::newRow("empty list") << "[]"
                                << "list"
                                << "";
    QTest::newRow("scalar as a list") << "8"
                                      << "list"
                                      << "8";
    QTest::newRow("None list") << "None"
                               << "list"
                               << "<none>";
}

void TestMegatronArguments::typedValues()
{
    QFETCH(QString, value);
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    MegatronArguments a("d.log", 1);
    QVERIFY(a.addLine(("  x_arg ........................................... " + value).toStdString(), 12));
    QString got;
    try {
        if (kind == "integer") {
            const auto v = a.integer("x_arg");
            got = v ? QString::number(*v) : "<none>";
        } else if (kind == "flag") {
            const auto v = a.flag("x_arg");
            got = v ? (*v ? "true" : "false") : "<none>";
        } else if (kind == "text") {
            const auto v = a.text("x_arg");
            got = v ? QString::fromStdString(*v) : "<none>";
        } else {
            const auto v = a.list("x_arg");
            QStringList parts;
            for (const std::string& s : v.value_or(std::vector<std::string>{}))
                parts << QString::fromStdString(s);
            got = v ? parts.join('|') : "<none>";
        }
    } catch (const InputError& e) {
        QCOMPARE(e.field(), std::string("line 12, argument x_arg"));
        got = "<error>";
    }
    QCOMPARE(got, expected);
}

void TestMegatronArguments::toRun_data()
{
    QTest::addColumn<Args>("overrides");
    QTest::addColumn<QList<int>>("parallel");  // tp, pp, dp, vp
    QTest::addColumn<QList<int>>("batch");  // mbs, gbs, seq_len
    QTest::addColumn<QList<int>>("model");  // layers, hidden, ffn, heads, query groups, vocab
    QTest::addColumn<QList<int>>("stageLayers");
    QTest::addColumn<QList<int>>("recompute");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<bool>("distributedOptimizer");

    const QList<int> model7b{32, 4096, 11008, 32, 32, 50432};
    // world 8 / (TP 2 x PP 2 x CP 1) = DP 2; 32 layers / 2 stages = 16 each.
    QTest::newRow("base") << Args{} << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b
                          << QList<int>{16, 16} << QList<int>{None, None} << "bf16" << true;
    QTest::newRow("GQA: num_query_groups counts")
        << Args{{"group_query_attention", "True"}, {"num_query_groups", "8"}} << QList<int>{2, 2, 2, 1}
        << QList<int>{1, 64, 4096} << QList<int>{32, 4096, 11008, 32, 8, 50432} << QList<int>{16, 16}
        << QList<int>{None, None} << "bf16" << true;
    QTest::newRow("no GQA: num_query_groups ignored")
        << Args{{"num_query_groups", "8"}} << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b
        << QList<int>{16, 16} << QList<int>{None, None} << "bf16" << true;
    QTest::newRow("virtual_pipeline_model_parallel_size")
        << Args{{"virtual_pipeline_model_parallel_size", "2"}} << QList<int>{2, 2, 2, 2} << QList<int>{1, 64, 4096}
        << model7b << QList<int>{16, 16} << QList<int>{None, None} << "bf16" << true;
    // 32 layers / (PP 2 x 4 layers per chunk) = 4 virtual stages.
    QTest::newRow("num_layers_per_virtual_pipeline_stage")
        << Args{{"num_layers_per_virtual_pipeline_stage", "4"}} << QList<int>{2, 2, 2, 4} << QList<int>{1, 64, 4096}
        << model7b << QList<int>{16, 16} << QList<int>{None, None} << "bf16" << true;
    QTest::newRow("layout, uneven") << Args{{"pipeline_model_parallel_layout", "Et*20|t*12L"}} << QList<int>{2, 2, 2, 1}
                                    << QList<int>{1, 64, 4096} << model7b << QList<int>{20, 12}
                                    << QList<int>{None, None} << "bf16" << true;
    // 4 entries over PP 2: stage 0 = entries 0 and 2 = 8 + 10, stage 1 = 6 + 8.
    QTest::newRow("layout with VPP, quoted")
        << Args{{"pipeline_model_parallel_layout", "'Et*8|t*6|t*10|t*8L'"}} << QList<int>{2, 2, 2, 2}
        << QList<int>{1, 64, 4096} << model7b << QList<int>{18, 14} << QList<int>{None, None} << "bf16" << true;
    // "(t*4|)*6" expands to six entries of 4: 8 entries of 4 layers, PP 2 -> VPP 4.
    QTest::newRow("layout with a group") << Args{{"pipeline_model_parallel_layout", "Et*4|(t*4|)*6,t*4L"}}
                                         << QList<int>{2, 2, 2, 4} << QList<int>{1, 64, 4096} << model7b
                                         << QList<int>{16, 16} << QList<int>{None, None} << "bf16" << true;
    // PP 4 on 16 GPUs: DP 2; first 5, last 9, middle (32 - 14) / 2 = 9.
    QTest::newRow("first and last stage")
        << Args{{"pipeline_model_parallel_size", "4"},
                {"world_size", "16"},
                {"decoder_first_pipeline_num_layers", "5"},
                {"decoder_last_pipeline_num_layers", "9"}}
        << QList<int>{2, 4, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{5, 9, 9, 9}
        << QList<int>{None, None, None, None} << "bf16" << true;
    // first 11, the other three share 21: 7 each.
    QTest::newRow("first stage only") << Args{{"pipeline_model_parallel_size", "4"},
                                              {"world_size", "16"},
                                              {"decoder_first_pipeline_num_layers", "11"}}
                                      << QList<int>{2, 4, 2, 1} << QList<int>{1, 64, 4096} << model7b
                                      << QList<int>{11, 7, 7, 7} << QList<int>{None, None, None, None} << "bf16"
                                      << true;
    // 30 layers + embedding + loss = 32 units / 2 = 16; stage 0 gives one to the embedding, stage 1 to the loss.
    QTest::newRow("embedding and loss count")
        << Args{{"num_layers", "30"},
                {"account_for_embedding_in_pipeline_split", "True"},
                {"account_for_loss_in_pipeline_split", "True"}}
        << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << QList<int>{30, 4096, 11008, 32, 32, 50432}
        << QList<int>{15, 15} << QList<int>{None, None} << "bf16" << true;
    QTest::newRow("selective") << Args{{"recompute_granularity", "selective"}, {"recompute_modules", "['core_attn']"}}
                               << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16}
                               << QList<int>{Sel, Sel} << "bf16" << true;
    QTest::newRow("recompute_activations (2022)")
        << Args{{"recompute_activations", "True"}} << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b
        << QList<int>{16, 16} << QList<int>{Sel, Sel} << "bf16" << true;
    QTest::newRow("full uniform") << Args{{"recompute_granularity", "full"},
                                          {"recompute_method", "uniform"},
                                          {"recompute_num_layers", "1"}}
                                  << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16}
                                  << QList<int>{Full, Full} << "bf16" << true;
    // block 16 covers the 16 layers of each stage.
    QTest::newRow("full block covering the stage")
        << Args{{"recompute_granularity", "full"}, {"recompute_method", "block"}, {"recompute_num_layers", "16"}}
        << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{Full, Full}
        << "bf16" << true;
    // layout 20 | 12, block 12: stage 0 recomputes 12 of 20 (refused, see toRunRefuses); here block 20 covers both.
    QTest::newRow("full block, uneven stages") << Args{{"pipeline_model_parallel_layout", "Et*20|t*12L"},
                                                       {"recompute_granularity", "full"},
                                                       {"recompute_method", "block"},
                                                       {"recompute_num_layers", "20"}}
                                               << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b
                                               << QList<int>{20, 12} << QList<int>{Full, Full} << "bf16" << true;
    QTest::newRow("full block 0 recomputes nothing")
        << Args{{"recompute_granularity", "full"}, {"recompute_method", "block"}, {"recompute_num_layers", "0"}}
        << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{None, None}
        << "bf16" << true;
    QTest::newRow("fp16 from params_dtype")
        << Args{{"params_dtype", "torch.float16"}, {"bf16", "False"}, {"fp16", "True"}} << QList<int>{2, 2, 2, 1}
        << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{None, None} << "fp16" << true;
    QTest::newRow("precision from the flags")
        << Args{{"params_dtype", "<absent>"}, {"bf16", "False"}, {"fp16", "True"}} << QList<int>{2, 2, 2, 1}
        << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{None, None} << "fp16" << true;
    QTest::newRow("fp32") << Args{{"params_dtype", "torch.float32"}, {"bf16", "False"}} << QList<int>{2, 2, 2, 1}
                          << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{None, None}
                          << "fp32" << true;
    QTest::newRow("fp8 on top of bf16") << Args{{"fp8", "hybrid"}} << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096}
                                        << model7b << QList<int>{16, 16} << QList<int>{None, None} << "fp8" << true;
    // 2020: model_parallel_size is TP, no PP, batch_size is the micro batch,
    // no global batch (micro 4 x DP 4 = 16), checkpoint_activations is full
    // recomputation, no ffn_hidden_size (4 x 1024), no distributed optimizer.
    QTest::newRow("2020 names") << Args{{"tensor_model_parallel_size", "<absent>"},
                                        {"model_parallel_size", "2"},
                                        {"pipeline_model_parallel_size", "<absent>"},
                                        {"micro_batch_size", "<absent>"},
                                        {"batch_size", "4"},
                                        {"global_batch_size", "<absent>"},
                                        {"hidden_size", "1024"},
                                        {"ffn_hidden_size", "<absent>"},
                                        {"swiglu", "<absent>"},
                                        {"num_attention_heads", "16"},
                                        {"num_layers", "24"},
                                        {"seq_length", "1024"},
                                        {"checkpoint_activations", "True"},
                                        {"recompute_granularity", "<absent>"},
                                        {"context_parallel_size", "<absent>"},
                                        {"data_parallel_size", "<absent>"},
                                        {"use_distributed_optimizer", "<absent>"},
                                        {"padded_vocab_size", "<absent>"}}
                                << QList<int>{2, 1, 4, 1} << QList<int>{4, 16, 1024}
                                << QList<int>{24, 1024, 4096, 16, 16, 50257} << QList<int>{24} << QList<int>{Full}
                                << "bf16" << false;
    // Megatron-DeepSpeed: ZeRO stage 1 shards the optimizer state like the
    // distributed optimizer; num_experts [1] is a dense model.
    QTest::newRow("DeepSpeed ZeRO-1, num_experts [1]")
        << Args{{"use_distributed_optimizer", "False"}, {"zero_stage", "1"}, {"num_experts", "[1]"}}
        << QList<int>{2, 2, 2, 1} << QList<int>{1, 64, 4096} << model7b << QList<int>{16, 16} << QList<int>{None, None}
        << "bf16" << true;
    QTest::newRow("vocab_size when nothing is padded")
        << Args{{"padded_vocab_size", "None"}, {"vocab_size", "32000"}} << QList<int>{2, 2, 2, 1}
        << QList<int>{1, 64, 4096} << QList<int>{32, 4096, 11008, 32, 32, 32000} << QList<int>{16, 16}
        << QList<int>{None, None} << "bf16" << true;
}

void TestMegatronArguments::toRun()
{
    QFETCH(Args, overrides);
    QFETCH(QList<int>, parallel);
    QFETCH(QList<int>, batch);
    QFETCH(QList<int>, model);
    QFETCH(QList<int>, stageLayers);
    QFETCH(QList<int>, recompute);
    QFETCH(QString, precision);
    QFETCH(bool, distributedOptimizer);

    const DumpedRun r = readDump(with(baseArgs(), overrides)).toRun();
    const auto& c = r.config;
    QCOMPARE((QList<int>{c.tp, c.pp, c.dp, c.vp}), parallel);
    QCOMPARE((QList<int>{c.mbs, c.gbs, c.seqLen}), batch);
    QCOMPARE((QList<int>{c.numLayers, c.hidden, c.ffnHidden, c.heads, c.queryGroups, c.vocab}), model);
    QCOMPARE(c.numGpus, c.tp * c.pp * c.dp);
    QCOMPARE(toList(r.stageLayers), stageLayers);
    QCOMPARE(recomputeLevels(r), recompute);
    QCOMPARE(static_cast<int>(c.recompute), recompute.front());
    QCOMPARE(QString::fromStdString(r.precision), precision);
    QCOMPARE(QString(toString(c.precision)), precision);  // the measurement row carries it
    QCOMPARE(r.distributedOptimizer, distributedOptimizer);
}

// --overlap-grad-reduce and --overlap-param-gather become the run's overlap
// columns; a dump without them (older Megatron, or the flags left off) ran
// without overlap, Megatron's default.
void TestMegatronArguments::overlapFlags_data()
{
    QTest::addColumn<Args>("overrides");
    QTest::addColumn<bool>("gradReduce");
    QTest::addColumn<bool>("paramGather");
    QTest::newRow("absent") << Args{} << false << false;
    QTest::newRow("both off") << Args{{"overlap_grad_reduce", "False"}, {"overlap_param_gather", "False"}} << false
                              << false;
    QTest::newRow("gradient reduction") << Args{{"overlap_grad_reduce", "True"}, {"overlap_param_gather", "False"}}
                                        << true << false;
    QTest::newRow("both") << Args{{"overlap_grad_reduce", "True"}, {"overlap_param_gather", "True"}} << true << true;
}

void TestMegatronArguments::overlapFlags()
{
    QFETCH(Args, overrides);
    const DumpedRun r = readDump(with(baseArgs(), overrides)).toRun();
    QTEST(r.config.overlapGradReduce, "gradReduce");
    QTEST(r.config.overlapParamGather, "paramGather");
}

// position_embedding_type, normalization and add_bias_linear become the
// run's layer style; a dump without them ran Megatron's defaults, GPT's.
void TestMegatronArguments::layerStyle_data()
{
    QTest::addColumn<Args>("overrides");
    QTest::addColumn<QString>("position");
    QTest::addColumn<QString>("norm");
    QTest::addColumn<bool>("bias");
    QTest::newRow("absent: Megatron's defaults") << Args{} << "learned_absolute"
                                                 << "layernorm" << true;
    QTest::newRow("LLaMA") << Args{{"position_embedding_type", "rope"},
                                   {"normalization", "RMSNorm"},
                                   {"add_bias_linear", "False"}}
                           << "rope"
                           << "rmsnorm" << false;
    QTest::newRow("GPT, spelled out") << Args{{"position_embedding_type", "learned_absolute"},
                                              {"normalization", "LayerNorm"},
                                              {"add_bias_linear", "True"}}
                                      << "learned_absolute"
                                      << "layernorm" << true;
    QTest::newRow("Megatron-DeepSpeed's enum")
        << Args{{"position_embedding_type", "PositionEmbeddingType.rotary"}} << "rope"
        << "layernorm" << true;
    QTest::newRow("Megatron-DeepSpeed's older switch") << Args{{"use_rotary_position_embeddings", "True"}} << "rope"
                                                       << "layernorm" << true;
}

void TestMegatronArguments::layerStyle()
{
    QFETCH(Args, overrides);
    const DumpedRun r = readDump(with(baseArgs(), overrides)).toRun();
    QTEST(QString(toString(r.config.style.position)), "position");
    QTEST(QString(toString(r.config.style.norm)), "norm");
    QTEST(r.config.style.linearBias, "bias");
}

void TestMegatronArguments::toRunRefuses_data()
{
    QTest::addColumn<Args>("overrides");
    QTest::addColumn<QString>("argument");  // the argument the message names, with its line
    QTest::addColumn<QString>("reason");  // substring of the reason

    QTest::newRow("world size not a multiple") << Args{{"world_size", "10"}} << "world_size"
                                               << "10 GPUs is not a multiple of TP x PP x CP = 4";
    QTest::newRow("DP contradicts world size") << Args{{"data_parallel_size", "4"}} << "data_parallel_size"
                                               << "is 4 but world_size 8";
    QTest::newRow("context parallelism") << Args{{"context_parallel_size", "2"}, {"world_size", "16"}}
                                         << "context_parallel_size"
                                         << "context parallelism (CP 2)";
    QTest::newRow("MoE") << Args{{"num_moe_experts", "8"}} << "num_moe_experts"
                         << "mixture-of-experts model (8 experts)";
    QTest::newRow("ALiBi positions") << Args{{"position_embedding_type", "relative"}} << "position_embedding_type"
                                     << "models rope, learned_absolute and none";
    QTest::newRow("MoE, DeepSpeed list") << Args{{"num_experts", "[8]"}} << "num_experts"
                                         << "(8 experts)";
    QTest::newRow("batch ramp-up") << Args{{"rampup_batch_size", "['16', '8', '300000']"}} << "rampup_batch_size"
                                   << "ramp-up";
    QTest::newRow("gbs not a multiple") << Args{{"global_batch_size", "63"}} << "global_batch_size"
                                        << "multiple of micro batch x DP = 2";
    QTest::newRow("hidden None") << Args{{"hidden_size", "None"}} << "hidden_size"
                                 << "is None";
    QTest::newRow("not a number") << Args{{"tensor_model_parallel_size", "two"}} << "tensor_model_parallel_size"
                                  << "expected a whole number, got \"two\"";
    QTest::newRow("layout holds too few layers")
        << Args{{"pipeline_model_parallel_layout", "Et*10|t*8L"}} << "pipeline_model_parallel_layout"
        << "hold 18 layers, but num_layers is 32";
    QTest::newRow("layout symbol") << Args{{"pipeline_model_parallel_layout", "Et*16|x*16L"}}
                                   << "pipeline_model_parallel_layout"
                                   << "unknown layer symbol 'x'";
    // PP 4, first 6: 26 layers over 3 stages.
    QTest::newRow("first stage leaves an uneven rest")
        << Args{{"pipeline_model_parallel_size", "4"}, {"world_size", "16"}, {"decoder_first_pipeline_num_layers", "6"}}
        << "decoder_first_pipeline_num_layers"
        << "26 layers left do not split evenly over the 3 other stage(s)";
    QTest::newRow("uneven without flags") << Args{{"num_layers", "31"}} << "num_layers"
                                          << "31 layers do not split evenly over PP 2";
    QTest::newRow("partial block recomputation")
        << Args{{"recompute_granularity", "full"}, {"recompute_method", "block"}, {"recompute_num_layers", "4"}}
        << "recompute_num_layers"
        << "recomputes 4 of the 16 layers in each chunk of stage 0";
    QTest::newRow("selective beyond the attention core")
        << Args{{"recompute_granularity", "selective"}, {"recompute_modules", "['core_attn', 'mlp']"}}
        << "recompute_modules"
        << "\"mlp\" is not modelled";
    QTest::newRow("no vocabulary") << Args{{"padded_vocab_size", "None"}, {"vocab_size", "None"}} << "vocab_size"
                                   << "no vocabulary size";
    QTest::newRow("interleaving without pipeline") << Args{{"pipeline_model_parallel_size", "1"},
                                                           {"data_parallel_size", "4"},
                                                           {"virtual_pipeline_model_parallel_size", "2"}}
                                                   << "num_layers"
                                                   << "interleaving (2 virtual stages) needs PP >= 2";
}

void TestMegatronArguments::toRunRefuses()
{
    QFETCH(Args, overrides);
    QFETCH(QString, argument);
    QFETCH(QString, reason);
    const Args args = with(baseArgs(), overrides);
    try {
        readDump(args).toRun();
        QFAIL("expected an InputError");
    } catch (const InputError& e) {
        QCOMPARE(e.file(), std::string("dump.log"));
        const int line = lineOf(args, argument);
        QVERIFY(line > 0);
        QCOMPARE(QString::fromStdString(e.field()), QString("line %1, argument %2").arg(line).arg(argument));
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
}

void TestMegatronArguments::unmodelledSetup_data()
{
    QTest::addColumn<Args>("overrides");
    QTest::addColumn<QStringList>("arguments");  // the arguments named, in order

    QTest::newRow("modelled") << Args{} << QStringList{};
    // fp32 is modelled (docs/PRECISION.md): imported with a TF32 warning, not refused.
    QTest::newRow("fp32 is modelled") << Args{{"params_dtype", "torch.float32"}, {"bf16", "False"}} << QStringList{};
    // Sequence parallelism and the distributed optimizer are measurement
    // columns (sequence_parallel, distributed_optimizer): modelled either way.
    QTest::newRow("no sequence parallelism at TP 2 is modelled")
        << Args{{"sequence_parallel", "False"}} << QStringList{};
    QTest::newRow("no sequence parallelism at TP 1 is fine")
        << Args{{"sequence_parallel", "False"}, {"tensor_model_parallel_size", "1"}, {"data_parallel_size", "4"}}
        << QStringList{};
    QTest::newRow("unsharded optimizer at DP 2 is modelled")
        << Args{{"use_distributed_optimizer", "False"}} << QStringList{};
    QTest::newRow("unsharded optimizer at DP 1 is fine") << Args{{"use_distributed_optimizer", "False"},
                                                                 {"world_size", "4"},
                                                                 {"data_parallel_size", "1"},
                                                                 {"global_batch_size", "32"}}
                                                         << QStringList{};
    QTest::newRow("full recomputation in chunks of 2")
        << Args{{"recompute_granularity", "full"}, {"recompute_method", "uniform"}, {"recompute_num_layers", "2"}}
        << QStringList{"recompute_granularity"};
}

void TestMegatronArguments::unmodelledSetup()
{
    QFETCH(Args, overrides);
    QFETCH(QStringList, arguments);
    const Args args = with(baseArgs(), overrides);
    const std::vector<std::string> found = readDump(args).toRun().unmodelledSetup();
    QCOMPARE(int(found.size()), arguments.size());
    for (int i = 0; i < arguments.size(); ++i) {
        const QString expected
            = QString("dump.log: line %1, argument %2 = ").arg(lineOf(args, arguments[i])).arg(arguments[i]);
        QVERIFY2(QString::fromStdString(found[size_t(i)]).startsWith(expected), found[size_t(i)].c_str());
    }
}

void TestMegatronArguments::sourcesNameTheArgument()
{
    const Args args = baseArgs();
    const DumpedRun r = readDump(args).toRun();
    QCOMPARE(QString::fromStdString(r.where("tp")),
             QString("dump.log: line %1, argument tensor_model_parallel_size = 2")
                 .arg(lineOf(args, "tensor_model_parallel_size")));
    QCOMPARE(QString::fromStdString(r.where("dp")),
             QString("dump.log: line %1, argument world_size = 8").arg(lineOf(args, "world_size")));
    // The padded-vocabulary line of the log stands in when the dump has no padded size.
    const DumpedRun v = readDump(with(args, {{"padded_vocab_size", "None"}})).toRun(PaddedVocabLine{50257, 50432, 91});
    QCOMPARE(v.config.vocab, 50432);
    QCOMPARE(QString::fromStdString(v.where("vocab")),
             QString("dump.log: line 91, argument \" > padded vocab\" (new size) = 50432"));
    QCOMPARE(toList(v.vocabAliases), (QList<int>{50432, 50257, 50257}));
    // An argument the dump lacks.
    const DumpedRun w = readDump(with(args, {{"sequence_parallel", "<absent>"}})).toRun();
    QCOMPARE(QString::fromStdString(w.where("sequence_parallel")),
             QString("dump.log: argument sequence_parallel (absent from the dump)"));
}

void TestMegatronArguments::firstDifference()
{
    const MegatronArguments a = readDump(baseArgs());
    QCOMPARE(a.firstDifference(readDump(with(baseArgs(), {{"seed", "42"}}))), std::string());  // not read by toRun
    QCOMPARE(a.firstDifference(readDump(with(baseArgs(), {{"micro_batch_size", "2"}, {"world_size", "16"}}))),
             std::string("world_size"));  // the first in runArgumentNames() order
    QCOMPARE(a.firstDifference(readDump(with(baseArgs(), {{"log_interval", "<absent>"}}))),
             std::string("log_interval"));
}

void TestMegatronArguments::layoutEntries_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<int>("pp");
    QTest::addColumn<QList<int>>("entries");
    QTest::addColumn<QList<int>>("stages");
    QTest::addColumn<int>("virtualStages");

    // The examples of reference/EXPORT_AND_LOGS.md section 1.
    QTest::newRow("LLaMA-3-8B 10/8/8/6") << "Et*10|t*8|t*8|t*6L" << 4 << QList<int>{10, 8, 8, 6}
                                         << QList<int>{10, 8, 8, 6} << 1;
    QTest::newRow("PP4 VPP2") << "Et*4|(t*4|)*6,t*4L" << 4 << QList<int>{4, 4, 4, 4, 4, 4, 4, 4}
                              << QList<int>{8, 8, 8, 8} << 2;
    // "Et*3|" + 29 x "tt|" + "m|L": 32 entries = PP16 x VPP2; entry i goes to stage i % 16.
    QList<int> docEntries{3};
    for (int i = 0; i < 29; ++i)
        docEntries << 2;
    docEntries << 0 << 0;
    QList<int> docStages{3 + 2};  // entries 0 and 16
    for (int s = 1; s < 14; ++s)
        docStages << 2 + 2;  // entries s and s + 16
    docStages << 2 + 0 << 2 + 0;  // stage 14: entries 14 and 30 (m); stage 15: entries 15 and 31 (L)
    QTest::newRow("PP16 VPP2 with MTP") << "Et*3|(tt|)*29,m|L" << 16 << docEntries << docStages << 2;
    QTest::newRow("spelled out") << "Ettt|ttL" << 2 << QList<int>{3, 2} << QList<int>{3, 2} << 1;
    QTest::newRow("empty stage") << "E|t*4L" << 2 << QList<int>{0, 4} << QList<int>{0, 4} << 1;
}

void TestMegatronArguments::layoutEntries()
{
    QFETCH(QString, layout);
    QFETCH(int, pp);
    QFETCH(QList<int>, entries);
    QFETCH(QList<int>, stages);
    QFETCH(int, virtualStages);
    const std::vector<int> e = PipelineLayout::entries(layout.toStdString());
    QCOMPARE(toList(e), entries);
    int v = 0;
    QCOMPARE(toList(PipelineLayout::stageLayers(e, pp, v)), stages);
    QCOMPARE(v, virtualStages);
}

void TestMegatronArguments::layoutRefuses_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no loss") << "Et*10|t*8"
                             << "exactly one E and one L";
    QTest::newRow("two embeddings") << "Et*4|Et*4L"
                                    << "exactly one E and one L";
    QTest::newRow("unbalanced") << "E(t*2|L"
                                << "unbalanced";
    QTest::newRow("group without count") << "E(t*2|)L"
                                         << "without \"*n\"";
    QTest::newRow("star without count") << "Et*|L"
                                        << "without a count";
    QTest::newRow("star without symbol") << "E|*4L"
                                         << "without a symbol";
}

void TestMegatronArguments::layoutRefuses()
{
    QFETCH(QString, layout);
    QFETCH(QString, reason);
    try {
        PipelineLayout::entries(layout.toStdString());
        QFAIL("expected std::invalid_argument");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains(reason), e.what());
    }
}

MEMX_TEST_APPLESS_MAIN(TestMegatronArguments)
}  // namespace tst_megatron_arguments

#include "tst_megatron_arguments.moc"
