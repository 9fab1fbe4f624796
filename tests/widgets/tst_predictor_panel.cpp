// The predictor panel, offscreen: a learned predictor file shows what it was
// trained on, a broken file is refused with its name and leaves the choice as
// it was, and a file that does not cover the cluster's GPU types is a problem
// that refuses the learned choice (warnings do not). A calibrated file shows
// each GPU type's fitted parameters (catalog values muted) and whether the
// trees correct time and memory; an older file says it has no calibration.
#include "TestPredictors.h"
#include "PredictorPanel.h"
#include "TestRequests.h"

#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "measure/MeasurementCsv.h"
#include "measure/PlanRuns.h"
#include "learn/PredictorTrainer.h"
#include "learn/TrainingSet.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "TestMain.h"

#include <fstream>

namespace tst_predictor_panel {

using namespace memx;

namespace {

using memx::test::trainSmallPredictor;

nlohmann::json readJson(const QString& file)
{
    std::ifstream in(file.toStdString());
    return nlohmann::json::parse(in);
}

void writeText(const QString& file, const std::string& text) { writeFileAtomically(file.toStdString(), text); }

// Written by memx-cli train (see tests/data/predictors/README.md): two GPU
// types, some parameters fitted, the time correction off, memory's on.
QString calibratedModel() { return QStringLiteral(MEMX_TEST_DATA_DIR "/predictors/megatron_ci_small_mixed.json"); }

// How the panel is expected to print a parameter of the file: multipliers
// with two decimals, microseconds with one below 100 and none above,
// milliseconds and percentages with one.
QString expectedNumber(const std::string& key, double v)
{
    if (key == "efficiency_multiplier" || key == "bandwidth_multiplier")
        return QString::number(v, 'f', 2);
    if (key == "launch_overhead_us" || key == "comm_overhead_us")
        return QString::number(v, 'f', v < 100 ? 1 : 0);
    return QString::number(v, 'f', 1);
}

const char* const kParameterKeys[] = {"efficiency_multiplier", "bandwidth_multiplier", "launch_overhead_us",
                                      "comm_overhead_us", "iteration_overhead_ms"};

QLabel* calibrationCell(const QWidget* panel, const std::string& type, const char* key)
{
    return panel->findChild<QLabel*>(
        QStringLiteral("calibration:%1:%2").arg(QString::fromStdString(type), QLatin1String(key)));
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
    void calibratedFileShowsEachTypesParameters();
    void correctionsSayWhetherTheTreesAreUsed();
    void screenshotWithRunLevelCorrection();
    void fileWithoutCalibrationSaysSo();
    void fitsANarrowDock();

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
    for (auto it = modelJson_["training"]["importance_gain"].begin();
         it != modelJson_["training"]["importance_gain"].end(); ++it)
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

    QTest::addRow("not JSON") << "garbage.json"
                              << "{ this is not json"
                              << "";
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
    QVERIFY2(panel->problems().front().contains(QStringLiteral("Vendor-B, Vendor-C")),
             qPrintable(panel->problems().front()));
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
    problem.setup.microBatchSizes = {1, 2, 8};
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

void TestPredictorPanel::calibratedFileShowsEachTypesParameters()
{
    const nlohmann::json file = readJson(calibratedModel());
    const nlohmann::json& fits = file.at("calibration");
    QCOMPARE(fits.size(), std::size_t(2));
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY2(panel->loadFile(calibratedModel()), qPrintable(panel->errorText()));
    auto* title = panel->findChild<QLabel*>(QStringLiteral("predictorCalibrationTitle"));
    QVERIFY(title && title->isVisibleTo(panel.get()));
    QCOMPARE(title->text(), QStringLiteral("Calibrated GPU parameters"));
    QVERIFY(!panel->findChild<QLabel*>(QStringLiteral("predictorNoCalibration")));

    int muted = 0;
    for (const nlohmann::json& fit : fits) {
        const std::string type = fit.at("gpu_type").get<std::string>();
        QLabel* name = calibrationCell(panel.get(), type, "gpu_type");
        QVERIFY2(name, type.c_str());
        QCOMPARE(name->text(), QString::fromStdString(type));
        QCOMPARE(calibrationCell(panel.get(), type, "runs")->text(), QString::number(fit.at("runs").get<int>()));
        const auto& fitted = fit.at("fitted");
        for (const char* key : kParameterKeys) {
            QLabel* cell = calibrationCell(panel.get(), type, key);
            QVERIFY2(cell, key);
            QCOMPARE(cell->text(), expectedNumber(key, fit.at(key).get<double>()));
            const bool isFitted = std::find(fitted.begin(), fitted.end(), key) != fitted.end();
            QCOMPARE(cell->property("fitted").toBool(), isFitted);
            if (isFitted) {
                QVERIFY2(!cell->toolTip().contains(QStringLiteral("catalog value")), qPrintable(cell->toolTip()));
                QVERIFY(cell->styleSheet().isEmpty());
            } else {
                ++muted;
                QCOMPARE(cell->toolTip(),
                         QStringLiteral("catalog value (not fitted: %1)")
                             .arg(QString::fromStdString(fit.at("note").get<std::string>())));
                QVERIFY(cell->styleSheet().contains(QStringLiteral("color")));
            }
        }
        // The fixture predates the schedule-step host time: it was fitted and
        // trained without one, and the panel says so (0 us per step).
        QLabel* step = calibrationCell(panel.get(), type, "step_overhead_us");
        QVERIFY(step);
        QVERIFY(!fit.contains("step_overhead_us"));
        QCOMPARE(step->text(), QStringLiteral("0.0"));
        QCOMPARE(calibrationCell(panel.get(), type, "time_mape")->text(),
                 QStringLiteral("%1 → %2 %")
                     .arg(expectedNumber("", fit.at("time_mape_catalog").get<double>()),
                          expectedNumber("", fit.at("time_mape_fitted").get<double>())));
        QLabel* note = calibrationCell(panel.get(), type, "note");
        QVERIFY(note);
        // Shown with break opportunities after '_' and '/'; the exact text in its tooltip.
        QCOMPARE(note->text(), PredictorPanel::breakable(QString::fromStdString(fit.at("note").get<std::string>())));
        QCOMPARE(note->toolTip(), QString::fromStdString(fit.at("note").get<std::string>()));
        QVERIFY2(panel->calibrationText().contains(QString::fromStdString(type) + QStringLiteral(": ")),
                 qPrintable(panel->calibrationText()));
        // The committed file fits memory on both types: fitted, not muted.
        QLabel* memory = calibrationCell(panel.get(), type, "memory");
        QVERIFY(memory);
        QVERIFY(memory->property("fitted").toBool());
        QVERIFY(memory->styleSheet().isEmpty());
    }
    QCOMPARE(muted, 5);  // A100: bandwidth and collective overhead; H100 also the operator overhead

    // Spot checks against the committed file as a person reads it.
    QCOMPARE(calibrationCell(panel.get(), "A100-80GB", "efficiency_multiplier")->text(), QStringLiteral("0.75"));
    QCOMPARE(calibrationCell(panel.get(), "A100-80GB", "launch_overhead_us")->text(), QStringLiteral("163"));
    QCOMPARE(calibrationCell(panel.get(), "H100-SXM", "iteration_overhead_ms")->text(), QStringLiteral("74.2"));
    QCOMPARE(calibrationCell(panel.get(), "H100-SXM", "time_mape")->text(), QStringLiteral("50.8 → 6.0 %"));
    QCOMPARE(calibrationCell(panel.get(), "A100-80GB", "memory")->text(),
             QStringLiteral("memory: ×0.95 on the model's tensors, 357 MiB framework buffers; MAPE 13.3 → 8.8 % over 4 "
                            "measured peaks"));
    QCOMPARE(calibrationCell(panel.get(), "H100-SXM", "memory")->text(),
             QStringLiteral("memory: ×0.82 on the model's tensors, 890 MiB framework buffers; MAPE 24.2 → 13.6 % over "
                            "3 measured peaks"));
    QVERIFY(!calibrationCell(panel.get(), "H100-SXM", "launch_overhead_us")->property("fitted").toBool());
    QVERIFY(calibrationCell(panel.get(), "H100-SXM", "efficiency_multiplier")->property("fitted").toBool());
    const QString text = panel->calibrationText();
    QVERIFY2(text.contains(QStringLiteral("H100-SXM: 3 runs")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("bw × 1.00 (catalog)")), qPrintable(text));

    // A file whose runs measured no peak (no memory fields): multiplier 1, no
    // buffers, said as catalog values, muted.
    nlohmann::json noMemory = file;
    for (nlohmann::json& fit : noMemory["calibration"]) {
        for (const char* key : {"memory_multiplier", "framework_mib", "memory_mape_catalog", "memory_mape_fitted",
                                "memory_stages", "memory_note"})
            fit.erase(key);
        nlohmann::json kept = nlohmann::json::array();
        for (const auto& f : fit["fitted"])
            if (f != "memory_multiplier" && f != "framework_mib")
                kept.push_back(f);
        fit["fitted"] = kept;
    }
    const QString noMemoryFile = dir_.filePath(QStringLiteral("no-memory-fit.json"));
    writeText(noMemoryFile, noMemory.dump());
    QVERIFY2(panel->loadFile(noMemoryFile), qPrintable(panel->errorText()));
    for (const char* type : {"A100-80GB", "H100-SXM"}) {
        QLabel* memory = calibrationCell(panel.get(), type, "memory");
        QVERIFY(memory);
        QCOMPARE(memory->text(),
                 QStringLiteral("memory: ×1.00 on the model's tensors, 0 MiB framework buffers (catalog values: no "
                                "measured peak)"));
        QVERIFY(!memory->property("fitted").toBool());
        QVERIFY(memory->styleSheet().contains(QStringLiteral("color")));
    }
}

void TestPredictorPanel::correctionsSayWhetherTheTreesAreUsed()
{
    const nlohmann::json file = readJson(calibratedModel());
    const nlohmann::json& cv = file.at("training").at("cross_validation");
    // The committed file: cross-validation turned the time correction off and kept memory's.
    QCOMPARE(file.at("corrections").at("time").get<bool>(), false);
    QCOMPARE(file.at("corrections").at("memory").get<bool>(), true);
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY(panel->loadFile(calibratedModel()));
    auto pct = [&](const char* key) { return QStringLiteral("%1 %").arg(cv.at(key).get<double>(), 0, 'f', 1); };
    const QString time = QStringLiteral("time: calibrated model alone — trees did not beat it in cross-validation "
                                        "(%1 with trees vs %2 alone)")
                             .arg(pct("time_mape_pct"), pct("prior_time_mape_pct"));
    const QString memory
        = QStringLiteral("memory: trees on top of the calibrated model (cross-validated %1 vs %2 without)")
              .arg(pct("memory_mape_pct"), pct("prior_memory_mape_pct"));
    // The committed file predates the run-level correction: its terms are as composed.
    QVERIFY(!file.contains("iteration_terms"));
    QCOMPARE(panel->correctionsText(),
             time + QLatin1Char('\n') + memory + QLatin1Char('\n')
                 + QStringLiteral("iteration: terms as composed (no run-level correction "
                                  "in this file)"));
    QVERIFY2(time.contains(QStringLiteral("(12.7 % with trees vs 7.4 % alone)")), qPrintable(time));
    auto* label = panel->findChild<QLabel*>(QStringLiteral("predictorCorrections"));
    QVERIFY(label && label->isVisibleTo(panel.get()));
    QCOMPARE(label->text(), panel->correctionsText());

    // The same file with both corrections on.
    nlohmann::json both = file;
    both["corrections"] = {{"time", true}, {"memory", true}};
    const QString bothFile = dir_.filePath(QStringLiteral("both-corrections.json"));
    writeText(bothFile, both.dump());
    QVERIFY2(panel->loadFile(bothFile), qPrintable(panel->errorText()));
    QVERIFY2(panel->correctionsText().startsWith(
                 QStringLiteral("time: trees on top of the calibrated model (cross-validated %1 vs %2 without)")
                     .arg(pct("time_mape_pct"), pct("prior_time_mape_pct"))),
             qPrintable(panel->correctionsText()));

    // With a run-level correction: its scales and what leave-one-out found.
    nlohmann::json scaled = file;
    scaled["iteration_terms"] = {{"pipeline_scale", 1.5},
                                 {"data_parallel_scale", 1.0},
                                 {"fixed_scale", 0.8},
                                 {"fitted", {"pipeline", "fixed"}},
                                 {"runs", 11},
                                 {"loo_mape_unscaled", 11.5},
                                 {"loo_mape_scaled", 6.7},
                                 {"note", ""}};
    const QString scaledFile = dir_.filePath(QStringLiteral("run-level.json"));
    writeText(scaledFile, scaled.dump());
    QVERIFY2(panel->loadFile(scaledFile), qPrintable(panel->errorText()));
    QVERIFY2(panel->correctionsText().endsWith(
                 QStringLiteral("iteration: pipeline ×1.50, data-parallel ×1.00, fixed ×0.80 (leave one configuration "
                                "out 6.7 % vs 11.5 % without)")),
             qPrintable(panel->correctionsText()));
    // Fitted but refused by the gate: the note says why.
    scaled["iteration_terms"] = {{"runs", 20},
                                 {"note",
                                  "leave one run out, scaled terms give 14.1 % iteration "
                                  "time MAPE against 12.6 % without: not applied"}};
    writeText(scaledFile, scaled.dump());
    QVERIFY2(panel->loadFile(scaledFile), qPrintable(panel->errorText()));
    QVERIFY2(panel->correctionsText().endsWith(QStringLiteral("iteration: terms as composed — leave one run out, "
                                                              "scaled terms give 14.1 % iteration time MAPE against "
                                                              "12.6 % without: not applied")),
             qPrintable(panel->correctionsText()));
}

void TestPredictorPanel::screenshotWithRunLevelCorrection()
{
    const QString dir = qEnvironmentVariable("MEMX_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set MEMX_SCREENSHOT_DIR to save a screenshot");
    nlohmann::json scaled = readJson(calibratedModel());
    scaled["iteration_terms"] = {{"pipeline_scale", 1.79},
                                 {"data_parallel_scale", 1.0},
                                 {"fixed_scale", 1.0},
                                 {"fitted", {"pipeline"}},
                                 {"runs", 58},
                                 {"loo_mape_unscaled", 8.6},
                                 {"loo_mape_scaled", 5.5},
                                 {"note", ""}};
    const QString file = dir_.filePath(QStringLiteral("run-level-shot.json"));
    writeText(file, scaled.dump());
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY2(panel->loadFile(file), qPrintable(panel->errorText()));
    panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel.get()));
    panel->resize(460, panel->sizeHint().height());
    QCoreApplication::processEvents();
    QVERIFY(panel->grab().save(dir + QStringLiteral("/panels-predictor-run-level.png")));
}

void TestPredictorPanel::fileWithoutCalibrationSaysSo()
{
    // A file from before calibration and the correction gate: neither
    // `calibration` nor `corrections`, no prior MAPE in the report.
    nlohmann::json old = modelJson_;
    old.erase("calibration");
    old.erase("corrections");
    old.erase("iteration_terms");
    old["training"]["cross_validation"].erase("prior_time_mape_pct");
    old["training"]["cross_validation"].erase("prior_memory_mape_pct");
    const QString oldFile = dir_.filePath(QStringLiteral("before-calibration.json"));
    writeText(oldFile, old.dump());

    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY(panel->loadFile(calibratedModel()));
    QVERIFY(calibrationCell(panel.get(), "A100-80GB", "gpu_type"));
    QVERIFY2(panel->loadFile(oldFile), qPrintable(panel->errorText()));
    const QString none = QStringLiteral("no calibration (trained before calibration, or with --no-calibrate)");
    auto* label = panel->findChild<QLabel*>(QStringLiteral("predictorNoCalibration"));
    QVERIFY(label && label->isVisibleTo(panel.get()));
    QCOMPARE(label->text(), none);
    QCOMPARE(panel->calibrationText(), none);
    // The previous file's rows are gone.
    QVERIFY(!calibrationCell(panel.get(), "A100-80GB", "gpu_type"));
    QCOMPARE(panel->correctionsText(),
             QStringLiteral("time: trees on top of the analytic model\n"
                            "memory: trees on top of the analytic model\n"
                            "iteration: terms as composed (no run-level correction "
                            "in this file)"));

    // A file trained with --no-calibrate (an empty list) says the same.
    QVERIFY(modelJson_.at("calibration").empty());
    QVERIFY(panel->loadFile(model_));
    QCOMPARE(panel->calibrationText(), none);
}

// The Predictor dock is narrow (it shares the right-hand side with the
// objective). A calibrated file with six GPU types and a note naming a run
// id as long as Megatron-LM CI's must still lay out within 340 pixels: the
// parameters stack per type and long ids break at their underscores. (The
// earlier table, a column per parameter, needed about 600.)
void TestPredictorPanel::fitsANarrowDock()
{
    nlohmann::json file = readJson(calibratedModel());
    nlohmann::json fits = nlohmann::json::array();
    int n = 0;
    for (const char* type : {"A100-80GB", "H100-SXM", "V100-32GB", "RTX-3090", "Titan-RTX", "RTX-2080"}) {
        nlohmann::json fit = file.at("calibration").at(n++ % 2);
        fit["gpu_type"] = type;
        fit["note"] = "run gpt3_mcore_te_tp1_pp4_vp1_resume_torch_dist_tunable_overlap__dev__dgx_a100 left out of "
                      "the time fit (2.39x its prediction)";
        fits.push_back(fit);
    }
    file["calibration"] = fits;
    const QString wide = dir_.filePath(QStringLiteral("six-types.json"));
    writeText(wide, file.dump());
    std::unique_ptr<PredictorPanel> panel(makePanel());
    QVERIFY2(panel->loadFile(wide), qPrintable(panel->errorText()));
    QVERIFY(calibrationCell(panel.get(), "RTX-2080", "time_mape"));
    const int width = panel->minimumSizeHint().width();
    QVERIFY2(width <= 340, qPrintable(QString::number(width)));
}

MEMX_TEST_MAIN(TestPredictorPanel)
}  // namespace tst_predictor_panel

#include "tst_predictor_panel.moc"
