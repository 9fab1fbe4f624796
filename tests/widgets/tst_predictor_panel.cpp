// The predictor panel, offscreen: a learned predictor file shows what it was
// trained on, a broken file is refused with its name and leaves the choice as
// it was, and a file that does not cover the cluster's GPU types is a problem
// that refuses the learned choice (warnings do not).
#include "TestPredictors.h"
#include "PredictorPanel.h"
#include "TestRequests.h"

#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "profile/MeasurementCsv.h"
#include "profile/PlanRuns.h"
#include "profile/PredictorTrainer.h"
#include "profile/TrainingSet.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace memx;

namespace {

using memx::test::trainSmallPredictor;

nlohmann::json readJson(const QString& file)
{
    std::ifstream in(file.toStdString());
    return nlohmann::json::parse(in);
}

void writeText(const QString& file, const std::string& text)
{
    writeFileAtomically(file.toStdString(), text);
}

}  // namespace

class TestPredictorPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void startsAnalytic();
    void validFileShowsWhatItWasTrainedOn();
    void brokenFileIsRefusedWithItsName_data();
    void brokenFileIsRefusedWithItsName();
    void brokenFileKeepsTheLearnedChoice();
    void uncoveredGpuTypeRefusesTheLearnedChoice();
    void extrapolationIsAWarningNotARefusal();
    void comboSwitchesBackToAnalytic();

private:
    PredictorPanel* makePanel(QWidget* parent = nullptr);
    QTemporaryDir dir_;
    SearchRequest req_;
    QString model_;
    nlohmann::json modelJson_;
};

void TestPredictorPanel::initTestCase()
{
    QVERIFY(dir_.isValid());
    req_ = test::paperRequest();
    model_ = dir_.filePath(QStringLiteral("model.json"));
    trainSmallPredictor(req_, model_.toStdString());
    modelJson_ = readJson(model_);
    QCOMPARE(QString::fromStdString(modelJson_.at("format").get<std::string>()), QStringLiteral("memx-predictor/1"));
}

PredictorPanel* TestPredictorPanel::makePanel(QWidget* parent)
{
    auto* panel = new PredictorPanel(parent);
    panel->setContext(req_.problem);
    return panel;
}

void TestPredictorPanel::startsAnalytic()
{
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Analytic);
    QVERIFY(!panel->hasFile());
    QVERIFY(panel->predictor() == nullptr);
    QVERIFY(panel->refusal().isEmpty());
    QVERIFY(panel->trainedOnText().isEmpty());
    // Learned cannot be chosen without a file.
    panel->setChoice(PredictorPanel::Choice::Learned);
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Analytic);
}

void TestPredictorPanel::validFileShowsWhatItWasTrainedOn()
{
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QSignalSpy changed(panel.get(), &PredictorPanel::changed);
    QSignalSpy loaded(panel.get(), &PredictorPanel::fileLoaded);
    QVERIFY2(panel->loadFile(model_), qPrintable(panel->errorText()));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Learned);
    QVERIFY(panel->predictor() != nullptr);
    QCOMPARE(QString::fromStdString(panel->predictor()->name()), QStringLiteral("learned"));
    QCOMPARE(panel->filePath(), QFileInfo(model_).absoluteFilePath());
    QVERIFY(panel->errorText().isEmpty());

    const PredictorMetadata* m = panel->metadata();
    QVERIFY(m);
    QCOMPARE(m->gpuTypes, (std::vector<std::string>{"A100-80GB", "Vendor-B", "Vendor-C"}));
    const QString text = panel->trainedOnText();
    for (const auto& type : m->gpuTypes)
        QVERIFY2(text.contains(QString::fromStdString(type)), qPrintable(text));
    auto* gpuLabel = panel->findChild<QLabel*>(QStringLiteral("predictorGpuTypes"));
    QVERIFY(gpuLabel);
    QCOMPARE(gpuLabel->text(), QStringLiteral("A100-80GB, Vendor-B, Vendor-C"));
    QVERIFY2(text.contains(QStringLiteral("%1 runs").arg(m->runs)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("hash ") + QString::fromStdString(m->dataHash).left(8)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("hidden 4096, heads 32")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("(3 folds)")), qPrintable(text));
    // The most important feature by gain is listed first.
    std::string top;
    double best = -1;
    for (auto it = modelJson_["training"]["importance_gain"].begin(); it != modelJson_["training"]["importance_gain"].end();
         ++it)
        if (it->get<double>() > best) {
            best = it->get<double>();
            top = it.key();
        }
    QVERIFY2(text.contains(QStringLiteral("Top features: ") + QString::fromStdString(top)), qPrintable(text));
    // It was trained on this cluster and setup: it fits.
    QVERIFY2(panel->problems().isEmpty(), qPrintable(panel->problems().join(';')));
    QVERIFY(panel->refusal().isEmpty());
    auto* fit = panel->findChild<QLabel*>(QStringLiteral("predictorFit"));
    QVERIFY(fit && fit->text().contains(QStringLiteral("Fits this cluster")));
}

void TestPredictorPanel::brokenFileIsRefusedWithItsName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("content");  // empty: the file does not exist
    QTest::addColumn<QString>("expected");  // part of the message besides the file name

    nlohmann::json format = modelJson_;
    format["format"] = "memx-cluster/1";
    nlohmann::json names = modelJson_;
    names["feature_names"][0] = "edited";
    nlohmann::json booster = modelJson_;
    booster.erase("booster");
    nlohmann::json types = modelJson_;
    types["trained_on"]["gpu_types"] = 42;

    QTest::addRow("not JSON") << "garbage.json" << "{ this is not json" << "";
    QTest::addRow("another format") << "format.json" << QString::fromStdString(format.dump()) << "memx-predictor/1";
    QTest::addRow("feature names edited") << "names.json" << QString::fromStdString(names.dump()) << "feature_names";
    QTest::addRow("no booster") << "booster.json" << QString::fromStdString(booster.dump()) << "booster";
    QTest::addRow("gpu types not a list") << "types.json" << QString::fromStdString(types.dump()) << "";
    QTest::addRow("missing file") << "missing.json" << QString() << "";
}

void TestPredictorPanel::brokenFileIsRefusedWithItsName()
{
    QFETCH(QString, name);
    QFETCH(QString, content);
    QFETCH(QString, expected);
    const QString file = dir_.filePath(name);
    if (!content.isEmpty())
        writeText(file, content.toStdString());
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QSignalSpy changed(panel.get(), &PredictorPanel::changed);
    QSignalSpy failed(panel.get(), &PredictorPanel::loadFailed);
    QVERIFY(!panel->loadFile(file));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Analytic);
    QVERIFY(panel->predictor() == nullptr);
    QVERIFY(!panel->hasFile());
    const QString error = panel->errorText();
    QVERIFY2(error.contains(name), qPrintable(error));
    QVERIFY2(expected.isEmpty() || error.contains(expected), qPrintable(error));
    QCOMPARE(failed.first().first().toString(), error);
    auto* label = panel->findChild<QLabel*>(QStringLiteral("predictorError"));
    QVERIFY(label && label->text() == error);
}

void TestPredictorPanel::brokenFileKeepsTheLearnedChoice()
{
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY(panel->loadFile(model_));
    const QString broken = dir_.filePath(QStringLiteral("broken.json"));
    writeText(broken, "[]");
    QVERIFY(!panel->loadFile(broken));
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Learned);
    QCOMPARE(panel->filePath(), QFileInfo(model_).absoluteFilePath());
    QVERIFY(panel->predictor() != nullptr);
    QVERIFY(panel->errorText().contains(QStringLiteral("broken.json")));
    // A good file clears the message.
    QVERIFY(panel->loadFile(model_));
    QVERIFY(panel->errorText().isEmpty());
}

void TestPredictorPanel::uncoveredGpuTypeRefusesTheLearnedChoice()
{
    nlohmann::json onlyA100 = modelJson_;
    onlyA100["trained_on"]["gpu_types"] = {"A100-80GB"};
    const QString file = dir_.filePath(QStringLiteral("a100-only.json"));
    writeText(file, onlyA100.dump());
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY2(panel->loadFile(file), qPrintable(panel->errorText()));
    QCOMPARE(panel->problems().size(), 1);
    QVERIFY2(panel->problems().front().contains(QStringLiteral("Vendor-B, Vendor-C")), qPrintable(panel->problems().front()));
    const QString refusal = panel->refusal();
    QVERIFY2(refusal.contains(QStringLiteral("a100-only.json")) && refusal.contains(QStringLiteral("Vendor-B")),
             qPrintable(refusal));
    auto* fit = panel->findChild<QLabel*>(QStringLiteral("predictorFit"));
    QVERIFY(fit && fit->text().contains(QStringLiteral("Vendor-B")) && fit->text().contains(QStringLiteral("refused")));
    // Analytic is always allowed; the problem stays visible for the loaded file.
    panel->setChoice(PredictorPanel::Choice::Analytic);
    QVERIFY(panel->refusal().isEmpty());
    QVERIFY(panel->predictor() == nullptr);
    QCOMPARE(panel->problems().size(), 1);
    // A cluster of A100s only is covered.
    SearchRequest a100 = req_;
    a100.problem.cluster = Cluster::fromFile(test::sampleCluster("homogeneous-8xa100.json"));
    panel->setChoice(PredictorPanel::Choice::Learned);
    panel->setContext(a100.problem);
    QVERIFY2(panel->problems().isEmpty(), qPrintable(panel->problems().join(';')));
    QVERIFY(panel->refusal().isEmpty());
}

void TestPredictorPanel::extrapolationIsAWarningNotARefusal()
{
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY(panel->loadFile(model_));
    Problem problem = req_.problem;
    problem.setup.globalBatch = 64;
    problem.setup.microBatches = {1, 2, 8};
    panel->setContext(problem);
    QVERIFY(panel->problems().isEmpty());
    QCOMPARE(panel->warnings().size(), 2);
    QVERIFY(panel->warnings().join(';').contains(QStringLiteral("global batch 64")));
    QVERIFY(panel->refusal().isEmpty());
    auto* fit = panel->findChild<QLabel*>(QStringLiteral("predictorFit"));
    QVERIFY(fit && fit->text().contains(QStringLiteral("micro-batch 8")));
}

void TestPredictorPanel::comboSwitchesBackToAnalytic()
{
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY(panel->loadFile(model_));
    auto* combo = panel->findChild<QComboBox*>(QStringLiteral("predictorChoice"));
    QVERIFY(combo);
    QCOMPARE(combo->currentIndex(), 1);
    QVERIFY(combo->currentText().contains(QStringLiteral("model.json")));
    QSignalSpy changed(panel.get(), &PredictorPanel::changed);
    combo->setCurrentIndex(0);
    emit combo->activated(0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Analytic);
    QVERIFY(panel->predictor() == nullptr);
    QCOMPARE(panel->summaryLine(), QStringLiteral("analytic"));
    // The file stays loaded: choosing Learned again needs no dialog.
    emit combo->activated(1);
    QCOMPARE(panel->choice(), PredictorPanel::Choice::Learned);
    QVERIFY(panel->summaryLine().startsWith(QStringLiteral("learned (model.json)")));
}

QTEST_MAIN(TestPredictorPanel)
#include "tst_predictor_panel.moc"
