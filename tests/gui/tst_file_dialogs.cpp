// File > Import Cluster and Export Cluster as a user goes through them: the
// real actions and the real (Qt) file dialogs, filled in while they are open.
// Export suggests the cluster's name and adds ".json" to a bare name; the
// folder is remembered for the next dialog; import is one undo step; a
// cancelled dialog changes nothing; the plot's suffix follows the chosen
// filter.
#include "ClusterDocument.h"
#include "FileDialogs.h"
#include "MainWindow.h"
#include "SetupPanel.h"
#include "TestPaths.h"
#include "TestWindow.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"

#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QSettings>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include "TestMain.h"

#include <functional>

namespace tst_file_dialogs {

using namespace memx;
using memx::test::action;
using memx::test::quietOptions;
using memx::test::status;

namespace {

// Calls `fill` on the next file dialog that opens (polling for it), while
// the action that opens it runs its modal loop.
class DialogFiller {
public:
    explicit DialogFiller(std::function<void(QFileDialog&)> fill) : fill_(std::move(fill))
    {
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
            if (filled_) {
                // Still open 2 s after it was filled in: close it, so that a
                // failing test fails instead of hanging in the dialog.
                if (d == filled_ && ++ticksSinceFill_ > 100)
                    d->reject();
                return;
            }
            if (!d || !d->isVisible())
                return;
            filled_ = d;
            seen_ = d->objectName();
            directory_ = d->directory().absolutePath();
            const auto edits = d->findChildren<QLineEdit*>(QStringLiteral("fileNameEdit"));
            suggested_ = edits.isEmpty() ? QString() : edits.front()->text();
            fill_(*d);
        });
        timer_.start(20);
    }
    QString seen() const { return seen_; }  // objectName of the dialog that opened
    QString directory() const { return directory_; }  // the folder it opened in
    QString suggested() const { return suggested_; }  // the file name it suggested

private:
    std::function<void(QFileDialog&)> fill_;
    QTimer timer_;
    QFileDialog* filled_ = nullptr;
    int ticksSinceFill_ = 0;
    QString seen_, directory_, suggested_;
};

// Types `file` into the dialog's name field, as a user would, and presses
// Save/Open.
void choose(QFileDialog& d, const QString& file)
{
    const auto edits = d.findChildren<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (edits.isEmpty()) {
        d.reject();  // and the test finds no file
        return;
    }
    edits.front()->setText(file);
    static_cast<QDialog&>(d).accept();  // protected in QFileDialog
}

}  // namespace

class TestFileDialogs : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void exportSuggestsTheNameAndAddsTheSuffix();
    void importIsOneUndoStepFromTheRememberedFolder();
    void cancelChangesNothing();
    void plotSuffixFollowsTheFilter();
    void staleExportRefusedBeforeTheFolderDialog();
    void safeFileNames_data();
    void safeFileNames();

private:
    QTemporaryDir dir_;
};

void TestFileDialogs::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
}

void TestFileDialogs::exportSuggestsTheNameAndAddsTheSuffix()
{
    MainWindow w(quietOptions());
    QVERIFY(w.document()->setClusterInfo(QStringLiteral("name"), QStringLiteral("a100/h20 mix")));
    DialogFiller filler([&](QFileDialog& d) { choose(d, dir_.filePath(QStringLiteral("mine"))); });
    QAction* exportAct = action(w, QStringLiteral("&Export Cluster..."));
    QVERIFY(exportAct);
    exportAct->trigger();
    QCOMPARE(filler.seen(), QStringLiteral("save-cluster"));
    QCOMPARE(filler.suggested(), QStringLiteral("a100-h20-mix.json"));
    const QString written = dir_.filePath(QStringLiteral("mine.json"));
    QVERIFY2(QFileInfo::exists(written), qPrintable(status(w)));
    QVERIFY2(status(w).contains(written), qPrintable(status(w)));
    const Cluster back = Cluster::fromFile(written.toStdString());
    QCOMPARE(back.name(), std::string("a100/h20 mix"));
    QCOMPARE(back.deviceCount(), w.document()->cluster().deviceCount());
    QCOMPARE(QSettings().value(QStringLiteral("dialogs/cluster")).toString(), QFileInfo(written).absolutePath());
}

void TestFileDialogs::importIsOneUndoStepFromTheRememberedFolder()
{
    // The folder of the last cluster file (the export above) is where the
    // import dialog opens.
    QSettings().setValue(QStringLiteral("dialogs/cluster"), dir_.path());
    const QString other = dir_.filePath(QStringLiteral("other.json"));
    QVERIFY(QFile::copy(test::sampleCluster("mixed-128gpu-4types.json").c_str(), other));
    MainWindow w(quietOptions());
    const int before = w.document()->cluster().deviceCount();
    QVERIFY(before != 128);
    DialogFiller filler([&](QFileDialog& d) { choose(d, other); });
    action(w, QStringLiteral("&Import Cluster..."))->trigger();
    QCOMPARE(filler.seen(), QStringLiteral("open-cluster"));
    QCOMPARE(filler.directory(), QDir(dir_.path()).absolutePath());
    QCOMPARE(w.document()->cluster().deviceCount(), 128);
    QVERIFY2(status(w).contains(QStringLiteral("other.json")), qPrintable(status(w)));
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->cluster().deviceCount(), before);
}

void TestFileDialogs::cancelChangesNothing()
{
    MainWindow w(quietOptions());
    const int before = w.document()->cluster().deviceCount();
    const int undoSteps = w.document()->undoStack()->count();
    const QString statusBefore = status(w);
    {
        DialogFiller filler([](QFileDialog& d) { d.reject(); });
        action(w, QStringLiteral("&Import Cluster..."))->trigger();
        QCOMPARE(filler.seen(), QStringLiteral("open-cluster"));
    }
    const QStringList filesBefore = QDir(dir_.path()).entryList(QDir::Files);
    {
        DialogFiller filler([](QFileDialog& d) { d.reject(); });
        action(w, QStringLiteral("&Export Cluster..."))->trigger();
        QCOMPARE(filler.seen(), QStringLiteral("save-cluster"));
    }
    QCOMPARE(w.document()->cluster().deviceCount(), before);
    QCOMPARE(w.document()->undoStack()->count(), undoSteps);
    QCOMPARE(QDir(dir_.path()).entryList(QDir::Files), filesBefore);
    QCOMPARE(status(w), statusBefore);
}

void TestFileDialogs::plotSuffixFollowsTheFilter()
{
    MainWindow w(quietOptions());
    DialogFiller filler([&](QFileDialog& d) {
        d.selectNameFilter(QStringLiteral("PDF (*.pdf)"));
        emit d.filterSelected(QStringLiteral("PDF (*.pdf)"));  // as a user's pick does
        choose(d, dir_.filePath(QStringLiteral("front")));
    });
    QAction* plot = action(w, QStringLiteral("&Plot (PNG, PDF)..."));  // File > Export
    QVERIFY(plot);
    plot->trigger();
    QCOMPARE(filler.seen(), QStringLiteral("save-plot"));
    QCOMPARE(filler.suggested(), QStringLiteral("pareto.png"));
    QFile pdf(dir_.filePath(QStringLiteral("front.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
}

// Issue #35 item 6: a stale plan was refused only after the user had chosen a
// folder. Now the refusal comes first and no folder dialog opens.
void TestFileDialogs::staleExportRefusedBeforeTheFolderDialog()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(test::runAndWait(w));
    w.findChild<SetupPanel*>()->setModel(ModelSpec::resolve("llama2-13b"));
    QVERIFY(!w.staleChanges().empty());
    QStringList seen;  // the modal windows that opened, in order
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* box = qobject_cast<QMessageBox*>(modal)) {
            seen << QStringLiteral("message: ") + box->text();
            box->reject();
        } else if (auto* d = qobject_cast<QFileDialog*>(modal)) {
            seen << QStringLiteral("file dialog");
            d->reject();
        }
    });
    poll.start(20);
    for (const QString& text :
         {QStringLiteral("&Megatron-LM launch scripts..."), QStringLiteral("&FlagScale config...")}) {
        QAction* a = action(w, text);
        QVERIFY2(a, qPrintable(text));
        seen.clear();
        a->trigger();
        QCOMPARE(seen.size(), 1);
        QVERIFY2(seen.front().startsWith(
                     QStringLiteral("message: Not exported: the results were computed before the model "
                                    "changed")),
                 qPrintable(seen.front()));
        QVERIFY2(status(w).startsWith(QStringLiteral("Not exported")), qPrintable(status(w)));
    }
}

void TestFileDialogs::safeFileNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("file");
    QTest::newRow("plain") << "gen16.json"
                           << "gen16.json";
    QTest::newRow("slash and spaces") << "a100/h20 mix"
                                      << "a100-h20-mix";
    QTest::newRow("leading dot") << ".hidden"
                                 << "hidden";
    QTest::newRow("unicode") << QStringLiteral("集群 A") << "A";
    QTest::newRow("nothing left") << "///"
                                  << "untitled";
}

void TestFileDialogs::safeFileNames()
{
    QFETCH(QString, name);
    QFETCH(QString, file);
    QCOMPARE(FileDialogs::safeFileName(name), file);
}

MEMX_TEST_MAIN(TestFileDialogs)
}  // namespace tst_file_dialogs

#include "tst_file_dialogs.moc"
