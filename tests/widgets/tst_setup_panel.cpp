#include "SetupPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "TestMain.h"

#include <fstream>

namespace tst_setup_panel {

using namespace memx;

}  // namespace tst_setup_panel
Q_DECLARE_METATYPE(memx::TrainingSetup)
namespace tst_setup_panel {

namespace {
QString sameSetup(const TrainingSetup& a, const TrainingSetup& b)
{
#define MEMX_CHECK(field)                                                                                              \
    if (!(a.field == b.field))                                                                                         \
        return QStringLiteral(#field " differs");
    MEMX_CHECK(globalBatch)
    MEMX_CHECK(microBatchSizes)
    MEMX_CHECK(seqLens)
    MEMX_CHECK(queryGroups)
    MEMX_CHECK(tensorParallel)
    MEMX_CHECK(maxPipelineStages)
    MEMX_CHECK(virtualStages)
    MEMX_CHECK(distributedOptimizer)
    MEMX_CHECK(overlapGradReduce)
    MEMX_CHECK(overlapParamGather)
    MEMX_CHECK(flashAttention)
    MEMX_CHECK(attentionDropout)
    MEMX_CHECK(hiddenDropout)
    MEMX_CHECK(sequenceParallel)
    MEMX_CHECK(precision)
    MEMX_CHECK(optimizer)
    MEMX_CHECK(schedule)
    MEMX_CHECK(recompute)
    MEMX_CHECK(placement)
    MEMX_CHECK(meshes)
    MEMX_CHECK(allowIdleGpus)
    MEMX_CHECK(selectiveCollapseFraction)
#undef MEMX_CHECK
    return {};
}

bool sameModel(const ModelSpec& a, const ModelSpec& b)
{
    return a.name == b.name && a.numLayers == b.numLayers && a.hidden == b.hidden && a.heads == b.heads
        && a.headDim == b.headDim && a.queryGroups == b.queryGroups && a.ffnHidden == b.ffnHidden && a.mlp == b.mlp
        && a.vocab == b.vocab && a.seqLen == b.seqLen && a.tiedEmbeddings == b.tiedEmbeddings;
}

void typeInto(QLineEdit* edit, const QString& text)
{
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}
}  // namespace

class TestSetupPanel : public QObject {
    Q_OBJECT
private slots:
    void setupRoundTrip_data()
    {
        QTest::addColumn<TrainingSetup>("setup");
        QTest::newRow("defaults") << TrainingSetup{};
        TrainingSetup a;
        a.globalBatch = 512;
        a.microBatchSizes = {1, 2, 4, 8, 16};
        a.seqLens = {2048, 4096};
        a.queryGroups = {8, 32};
        a.maxPipelineStages = 16;
        a.schedule = ScheduleMode::Both;
        a.recompute = RecomputeMode::Enumerate;
        QTest::newRow("lists and modes") << a;
        TrainingSetup b;
        b.distributedOptimizer = false;
        b.sequenceParallel = false;
        b.flashAttention = false;
        b.schedule = ScheduleMode::Interleaved;
        b.recompute = RecomputeMode::UniformFull;
        b.microBatchSizes = {3};
        b.precision = "fp16";
        QTest::newRow("switches off") << b;
        TrainingSetup d;
        d.flashAttention = false;
        d.attentionDropout = 0.1;  // Megatron's defaults
        d.hiddenDropout = 0.125;
        QTest::newRow("dropout") << d;
        TrainingSetup e;
        e.attentionDropout = 0.0004;  // below what the box shows: kept until edited
        e.hiddenDropout = 0.9995;  // above the box's maximum: kept until edited
        QTest::newRow("rates the boxes cannot show") << e;
        TrainingSetup o;
        o.overlapGradReduce = true;
        o.overlapParamGather = true;
        QTest::newRow("both overlaps") << o;
        TrainingSetup g;
        g.overlapGradReduce = true;
        QTest::newRow("gradient overlap only") << g;
        TrainingSetup m;
        m.meshes = MeshMode::PerType;
        m.schedule = ScheduleMode::OneF1B;
        QTest::newRow("per-type meshes") << m;
        TrainingSetup c;
        c.tensorParallel = {1, 2};
        c.virtualStages = {2, 4};
        c.allowIdleGpus = false;
        c.schedule = ScheduleMode::OneF1B;
        c.recompute = RecomputeMode::UniformSelective;
        QTest::newRow("fields the panel does not show") << c;
    }
    void setupRoundTrip()
    {
        QFETCH(TrainingSetup, setup);
        SetupPanel panel;
        panel.setSetup(setup);
        const QString diff = sameSetup(panel.setup(), setup);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(panel.isValid());
    }

    void presetRoundTrip_data()
    {
        QTest::addColumn<QString>("name");
        for (const auto& m : ModelSpec::presets())
            QTest::newRow(m.name.c_str()) << QString::fromStdString(m.name);
    }
    void presetRoundTrip()
    {
        QFETCH(QString, name);
        SetupPanel panel;
        const ModelSpec m = ModelSpec::resolve(name.toStdString());
        panel.setModel(m);
        QVERIFY(sameModel(panel.model(), m));
        auto* combo = panel.findChild<QComboBox*>("model");
        QCOMPARE(combo->currentText(), name);
    }

    void customModelRoundTrip()
    {
        SetupPanel panel;
        ModelSpec m = ModelSpec::resolve("llama2-7b");
        m.numLayers = 12;
        QSignalSpy spy(&panel, &SetupPanel::changed);
        panel.setModel(m);
        QVERIFY(sameModel(panel.model(), m));
        QVERIFY(spy.count() >= 1);
        QVERIFY(panel.findChild<QComboBox*>("model")->currentText().contains("custom"));
        // Choosing a preset again from the combo replaces it.
        panel.setModel(ModelSpec::presets().front());
        QVERIFY(sameModel(panel.model(), ModelSpec::presets().front()));
    }

    void loadModelFile()
    {
        QTemporaryDir dir;
        const QString good = dir.filePath("tiny.json");
        std::ofstream(good.toStdString()) << R"({"format": "memx-model/1", "name": "tiny", "num_layers": 4,
            "hidden": 512, "heads": 8, "vocab": 32000})";
        const QString bad = dir.filePath("bad.json");
        std::ofstream(bad.toStdString()) << R"({"format": "memx-model/1", "name": "bad", "num_layers": 0,
            "hidden": 512, "heads": 8, "vocab": 32000})";

        SetupPanel panel;
        QVERIFY(panel.loadModelFile(good));
        QCOMPARE(panel.model().name, std::string("tiny"));
        QCOMPARE(panel.model().numLayers, 4);
        QVERIFY(panel.isValid());

        QVERIFY(!panel.loadModelFile(bad));
        QCOMPARE(panel.model().name, std::string("tiny"));  // unchanged
        QVERIFY2(panel.errorText().contains("num_layers"), qPrintable(panel.errorText()));
        QVERIFY(!panel.loadModelFile(dir.filePath("missing.json")));
        QVERIFY(!panel.errorText().isEmpty());

        panel.setModel(ModelSpec::presets().front());  // a good choice clears the error
        QVERIFY(panel.isValid());
    }

    void invalidListRefused_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::newRow("letter in micro-batches") << "microBatches"
                                                 << "1,x";
        QTest::newRow("zero micro-batch") << "microBatches"
                                          << "0,2";
        QTest::newRow("empty micro-batches") << "microBatches"
                                             << "";
        QTest::newRow("sequence below 16") << "seqLens"
                                           << "8";
        QTest::newRow("fraction in query groups") << "queryGroups"
                                                  << "1.5";
    }
    void invalidListRefused()
    {
        QFETCH(QString, field);
        QFETCH(QString, text);
        SetupPanel panel;
        auto* edit = panel.findChild<QLineEdit*>(field);
        QVERIFY(edit);
        // Everything but the last keystroke may still be valid ("1," before "1,x").
        if (!text.isEmpty())
            typeInto(edit, text.chopped(1));
        const TrainingSetup before = panel.setup();
        QSignalSpy spy(&panel, &SetupPanel::changed);
        if (text.isEmpty())
            typeInto(edit, text);
        else
            QTest::keyClicks(edit, text.right(1));
        QVERIFY(!panel.isValid());
        QVERIFY(edit->property("invalid").toBool());
        QCOMPARE(edit->text(), text);  // refused in place, not replaced
        QVERIFY(!panel.errorText().isEmpty());
        QVERIFY(sameSetup(panel.setup(), before).isEmpty());  // the last valid value stays
        QCOMPARE(spy.count(), 0);

        typeInto(edit, field == "seqLens" ? "2048" : "2");
        QVERIFY(panel.isValid());
        QVERIFY(!edit->property("invalid").toBool());
        QVERIFY(spy.count() >= 1);
    }

    // Issue #35 item 2: a global batch of 0 silently went back to the last
    // value. Out-of-range text is refused in place with the range in words
    // (and refuses the search while it stands); leaving the field puts the
    // last value back and says so.
    void refusedNumberSaysTheRange_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("afterwards");
        QTest::newRow("global batch 0") << "globalBatch"
                                        << "0"
                                        << "Global batch: 1 to 1,000,000 sequences"
                                        << "0 was not applied (1 to 1,000,000 sequences); it stays 128";
        QTest::newRow("no pipeline stages") << "maxPipelineStages"
                                            << "0"
                                            << "Max pipeline stages: 1 to 128"
                                            << "0 was not applied (1 to 128); it stays 8";
        QTest::newRow("global batch emptied")
            << "globalBatch"
            << ""
            << "Global batch: 1 to 1,000,000 sequences"
            << "An empty field was not applied (1 to 1,000,000 sequences); it stays 128";
    }

    void refusedNumberSaysTheRange()
    {
        QFETCH(QString, field);
        QFETCH(QString, typed);
        QFETCH(QString, error);
        QFETCH(QString, afterwards);
        SetupPanel panel;
        TrainingSetup s;
        s.globalBatch = 128;
        s.maxPipelineStages = 8;
        panel.setSetup(s);
        auto* spin = panel.findChild<QSpinBox*>(field);
        QVERIFY(spin);
        auto* reason = panel.findChild<QLabel*>(field + QStringLiteral("Reason"));
        QVERIFY(reason);
        const TrainingSetup before = panel.setup();
        spin->selectAll();
        if (typed.isEmpty())
            QTest::keyClick(spin, Qt::Key_Delete);
        else
            QTest::keyClicks(spin, typed);
        QVERIFY(!panel.isValid());
        QCOMPARE(panel.errorText(), error);
        QVERIFY(reason->isVisibleTo(&panel));
        QVERIFY(panel.focusFirstInvalid());  // F5 refuses the search and focuses the field
        QVERIFY(sameSetup(panel.setup(), before).isEmpty());
        QTest::keyClick(spin, Qt::Key_Enter);  // finished: Qt puts the last value back
        QVERIFY(panel.isValid());
        QVERIFY(sameSetup(panel.setup(), before).isEmpty());
        QVERIFY(reason->isVisibleTo(&panel));
        QCOMPARE(reason->text(), afterwards);
    }

    void validListApplied()
    {
        SetupPanel panel;
        typeInto(panel.findChild<QLineEdit*>("microBatches"), "1, 2 4,8");
        QCOMPARE(panel.setup().microBatchSizes, (std::vector<int>{1, 2, 4, 8}));
        typeInto(panel.findChild<QLineEdit*>("seqLens"), "default");
        QVERIFY(panel.setup().seqLens.empty());
        typeInto(panel.findChild<QLineEdit*>("queryGroups"), "8,32");
        QCOMPARE(panel.setup().queryGroups, (std::vector<int>{8, 32}));
        QSignalSpy spy(&panel, &SetupPanel::changed);
        panel.findChild<QCheckBox*>("flashAttention")->click();
        QCOMPARE(spy.count(), 1);
        QVERIFY(!panel.setup().flashAttention);
        // A dropout rate typed in reaches the setup, with one change signal.
        auto* hidden = panel.findChild<QDoubleSpinBox*>("hiddenDropout");
        QVERIFY(hidden);
        hidden->setFocus();
        hidden->selectAll();
        QTest::keyClicks(hidden, "0.1");
        QTest::keyClick(hidden, Qt::Key_Enter);
        QCOMPARE(panel.setup().hiddenDropout, 0.1);
        QCOMPARE(panel.setup().attentionDropout, 0.0);
        QVERIFY(spy.count() >= 2);
    }

    void parseList_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("minimum");
        QTest::addColumn<bool>("allowDefault");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QList<int>>("values");
        QTest::newRow("commas") << "1,2,4" << 1 << false << true << QList<int>{1, 2, 4};
        QTest::newRow("spaces and duplicates") << " 4 2, 2 " << 1 << false << true << QList<int>{4, 2};
        QTest::newRow("default") << "default" << 16 << true << true << QList<int>{};
        QTest::newRow("empty as default") << "" << 16 << true << true << QList<int>{};
        QTest::newRow("empty not allowed") << "" << 1 << false << false << QList<int>{};
        QTest::newRow("letter") << "1,x" << 1 << false << false << QList<int>{};
        QTest::newRow("negative") << "-2" << 1 << false << false << QList<int>{};
        QTest::newRow("below minimum") << "8,4096" << 16 << true << false << QList<int>{};
    }
    void parseList()
    {
        QFETCH(QString, text);
        QFETCH(int, minimum);
        QFETCH(bool, allowDefault);
        QFETCH(bool, ok);
        QFETCH(QList<int>, values);
        QString reason;
        const auto parsed = SetupPanel::parseList(text, minimum, allowDefault, &reason);
        QCOMPARE(parsed.has_value(), ok);
        if (ok)
            QCOMPARE(QList<int>(parsed->begin(), parsed->end()), values);
        else
            QVERIFY(!reason.isEmpty());
    }
};

MEMX_TEST_MAIN(TestSetupPanel)
}  // namespace tst_setup_panel

#include "tst_setup_panel.moc"
