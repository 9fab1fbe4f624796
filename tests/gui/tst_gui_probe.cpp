// The state probe scripts/gui-walk drives: a request file answered with
// NAME.json (and NAME.png), the request removed last. A request caught half
// written (the shell truncates, then writes) is left for the next poll; the
// walk once lost a dump because such a read answered "unnamed" and removed
// the request the script had just finished writing.
#include "GuiProbe.h"
#include "MainWindow.h"
#include "TestWindow.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_gui_probe {

using namespace memx;
using namespace memx::test;

class TestGuiProbe : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void answersAWholeRequest();
    void leavesAHalfWrittenRequest();
};

namespace {
void write(const QString& file, const QByteArray& text)
{
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}
}  // namespace

void TestGuiProbe::answersAWholeRequest()
{
    QTemporaryDir dir;
    MainWindow w(quietOptions());
    GuiProbe probe(&w, dir.path());
    const QString request = QDir(dir.path()).filePath(QStringLiteral("request"));
    write(request, "state json\n");
    probe.answerRequest();
    QVERIFY(!QFile::exists(request));  // answered: the script's signal
    QFile answer(QDir(dir.path()).filePath(QStringLiteral("state.json")));
    QVERIFY(answer.open(QIODevice::ReadOnly));
    QVERIFY(answer.readAll().contains("\"title\""));
    QVERIFY(!QFile::exists(QDir(dir.path()).filePath(QStringLiteral("state.png"))));  // json only
}

void TestGuiProbe::leavesAHalfWrittenRequest()
{
    QTemporaryDir dir;
    MainWindow w(quietOptions());
    GuiProbe probe(&w, dir.path());
    const QString request = QDir(dir.path()).filePath(QStringLiteral("request"));
    write(request, "");  // truncated, not yet written
    probe.answerRequest();
    QVERIFY(QFile::exists(request));  // still the script's to finish
    QVERIFY(QDir(dir.path()).entryList({QStringLiteral("*.json")}, QDir::Files).isEmpty());
    write(request, "searched json\n");  // the whole request now
    probe.answerRequest();
    QVERIFY(!QFile::exists(request));
    QVERIFY(QFile::exists(QDir(dir.path()).filePath(QStringLiteral("searched.json"))));
}

MEMX_TEST_MAIN(TestGuiProbe)
}  // namespace tst_gui_probe

#include "tst_gui_probe.moc"
