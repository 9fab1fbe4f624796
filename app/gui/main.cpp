// memx: the MemX Workbench GUI. Also renders screenshots headlessly:
//   memx --screenshot out.png [--project P.memx] [--size WxH] [--view window|cluster|pareto|memory|pipeline|compare|weights|baselines|whatif|nodeloss|nodechoice|predictor|guide]
#include "DarkPalette.h"
#include "BandwidthWhatIfPanel.h"
#include "NodeChoicePanel.h"
#include "NodeLossPanel.h"
#include "GuiProbe.h"
#include "MainWindow.h"
#include "ProjectSession.h"
#include "SearchController.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QIcon>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPalette>
#include <QSize>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

namespace {

bool wantsOffscreen(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        if (QByteArray(argv[i]) == "--screenshot")
            return true;
    return false;
}

int takeScreenshot(memx::MainWindow& w, const QString& file, memx::MainWindow::View view, QSize size)
{
    QEventLoop loop;
    bool ok = false;
    QObject::connect(&w, &memx::MainWindow::resultShown, &loop, [&] {
        ok = true;
        loop.quit();
    });
    QObject::connect(w.controller(), &memx::SearchController::failed, &loop, [&](const QString& reason) {
        std::fprintf(stderr, "memx: no feasible plan: %s\n", qPrintable(reason));
        loop.quit();
    });
    bool refused = false;
    QObject::connect(&w, &memx::MainWindow::searchRefused, &loop, [&](const QString& reason) {
        std::fprintf(stderr, "memx: search refused: %s\n", qPrintable(reason));
        refused = true;
    });
    if (size.isValid())
        w.resize(size);  // the window as a user sized it; a view is shown at the size it gets there
    else if (view != memx::MainWindow::View::Window)
        w.resize(2000, 1250);  // a single view gets the room it would have maximised
    w.show();
    w.runSearch();
    if (!refused)  // a refusal is reported before runSearch() returns; nothing to wait for
        loop.exec();
    w.showView(view);
    // Let posted layout requests settle (a raised dock lays out over a few rounds).
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < 150)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    if ((view == memx::MainWindow::View::WhatIf || view == memx::MainWindow::View::NodeLoss) && ok) {
        // Show it at work: the slowest kind of link of the sample at 40%, re-ranked.
        memx::BandwidthWhatIfPanel* panel = w.whatIfPanel();
        const QStringList kinds = panel->kinds();
        memx::LinkKind kind = memx::LinkKind::InfiniBand;
        if (!kinds.contains(QStringLiteral("InfiniBand")) && !kinds.isEmpty())
            memx::parseLinkKind(kinds.back().toStdString(), kind);
        panel->setPercent(kind, 40);
        QElapsedTimer wait;
        wait.start();
        while (panel->rankedRows() == 0 && wait.elapsed() < 30000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        // And the cluster re-planned without each node, ranked by worst case.
        memx::NodeLossPanel* loss = w.nodeLossPanel();
        loss->findChild<QCheckBox*>()->setChecked(true);
        loss->request();
        wait.restart();
        while (loss->scenarioRows() == 0 && wait.elapsed() < 120000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    if (view == memx::MainWindow::View::NodeChoice && ok) {
        // Node choices compared, ranked by cost per token where prices are known.
        memx::NodeChoicePanel* choice = w.nodeChoicePanel();
        if (auto* rank = choice->findChild<QComboBox*>())
            rank->setCurrentIndex(1);
        choice->request();
        QElapsedTimer wait;
        wait.start();
        while (choice->rows() == 0 && choice->summaryText().endsWith(QChar(0x2026)) && wait.elapsed() < 120000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    QWidget* target = w.viewWidget(view);
    QPixmap pixmap = target->grab();
    if (pixmap.isNull() || !pixmap.save(file)) {
        std::fprintf(stderr, "memx: cannot write screenshot %s\n", qPrintable(file));
        return 2;
    }
    return ok ? 0 : 1;
}

void describeApplication()
{
    QApplication::setApplicationName(QStringLiteral("memx"));
    QApplication::setOrganizationName(QStringLiteral("MemX"));
    QApplication::setOrganizationDomain(QStringLiteral("memx.example.org"));
    QApplication::setApplicationVersion(QStringLiteral(MEMX_VERSION));
    // Lets Wayland match windows to the installed desktop file and its icon.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.memx_workbench.MemX"));
    QIcon icon;
    icon.addFile(QStringLiteral(":/memx/icon-48.png"));
    icon.addFile(QStringLiteral(":/memx/icon-256.png"));
    QApplication::setWindowIcon(icon);
    QApplication::setApplicationDisplayName(QStringLiteral("MemX Workbench"));
    // MEMX_DARK=1 forces a dark Fusion palette: how the views look on a dark
    // desktop, reproducible offscreen (the screenshots in docs/ use it to check).
    if (qEnvironmentVariableIntValue("MEMX_DARK") == 1) {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(memx::darkPalette());
    }
}

// The command line, parsed (--help and --version exit here).
struct Arguments {
    QString screenshot, project, view;
    bool shot = false, sizeSet = false;
    QString size;
};

Arguments parseArguments(const QApplication& app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("MemX Workbench: plan LLM training on heterogeneous GPU clusters"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Load, search, select the best plan, render to FILE.png and exit."),
                                  QStringLiteral("FILE"));
    QCommandLineOption project(QStringLiteral("project"), QStringLiteral("Project file to open."), QStringLiteral("P"));
    QCommandLineOption view(
        QStringLiteral("view"),
        QStringLiteral(
            "With --screenshot: window, cluster, pareto, memory, pipeline, compare, weights, baselines, whatif, nodeloss, nodechoice, predictor or guide (the user guide)."),
        QStringLiteral("VIEW"), QStringLiteral("window"));
    QCommandLineOption size(QStringLiteral("size"),
                            QStringLiteral(
                                "With --screenshot: the window's size, WIDTHxHEIGHT (e.g. 1600x1000); a view is "
                                "rendered at the size it gets in that window."),
                            QStringLiteral("WxH"));
    parser.addOptions({screenshot, project, view, size});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project file to open."),
                                 QStringLiteral("[project]"));
    parser.process(app);
    Arguments args;
    args.shot = parser.isSet(screenshot);
    args.screenshot = parser.value(screenshot);
    args.project = parser.value(project);
    if (args.project.isEmpty() && !parser.positionalArguments().isEmpty())
        args.project = parser.positionalArguments().front();
    args.view = parser.value(view);
    args.sizeSet = parser.isSet(size);
    args.size = parser.value(size);
    return args;
}

// --screenshot: the view and window size checked, then rendered.
int screenshotMode(memx::MainWindow& window, const Arguments& args)
{
    memx::MainWindow::View v;
    if (!memx::MainWindow::parseView(args.view, v)) {
        std::fprintf(stderr, "memx: unknown view %s\n", qPrintable(args.view));
        return 2;
    }
    QSize windowSize;
    if (args.sizeSet) {
        const QStringList wh = args.size.split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            windowSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || windowSize.width() < 640 || windowSize.height() < 480 || windowSize.width() > 8000
            || windowSize.height() > 8000) {
            std::fprintf(stderr, "memx: --size %s: give WIDTHxHEIGHT in pixels, from 640x480 to 8000x8000\n",
                         qPrintable(args.size));
            return 2;
        }
    }
    return takeScreenshot(window, args.screenshot, v, windowSize);
}

// Crash recovery: an autosave whose instance is gone (its lock is free)
// was left by a crash; a running instance's is not offered. The newest one
// is offered; the others stay for a later launch. True when it was recovered.
bool offerRecovery(memx::MainWindow& window)
{
    std::vector<memx::AutosaveSlot::Orphan> orphans = memx::AutosaveSlot::orphans(memx::ProjectSession::autosaveDir());
    if (orphans.empty())
        return false;
    const memx::AutosaveSlot::Orphan& o = orphans.front();
    const QString what
        = o.projectFile.isEmpty() ? QObject::tr("an untitled project") : QFileInfo(o.projectFile).fileName();
    auto answer
        = QMessageBox::question(&window, QObject::tr("Recover unsaved work?"),
                                QObject::tr(
                                    "A MemX Workbench window closed without saving %1 (last autosaved %2). Recover it? "
                                    "Discard deletes the autosave; Cancel keeps it for the next launch.")
                                    .arg(what, o.saved.toString()),
                                QMessageBox::Yes | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Yes);
    bool recovered = false;
    if (answer == QMessageBox::Yes) {
        QString error;
        recovered = window.recoverProject(o, &error);
        if (!recovered)
            QMessageBox::warning(&window, QObject::tr("Cannot recover"), error);
    } else if (answer == QMessageBox::Discard) {
        memx::AutosaveSlot::remove(o);
    }
    return recovered;
}

}  // namespace

int main(int argc, char** argv)
{
    if (wantsOffscreen(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    describeApplication();
    const Arguments args = parseArguments(app);

    memx::MainWindow::Options options;
    options.restoreState = !args.shot;
    options.offerRecovery = !args.shot;
    options.autosave = !args.shot;
    memx::MainWindow window(options);
    memx::GuiProbe::attachIfRequested(&window);  // MEMX_GUI_PROBE: scripts/gui-walk

    QString projectFile = args.project;
    const bool named = !projectFile.isEmpty();
    // Without a project on the command line: the one opened last, else the sample.
    if (!named && !args.shot)
        projectFile = memx::ProjectSession::lastProject();
    bool sample = false;
    if (!projectFile.isEmpty()) {
        QString error;
        if (!window.openProject(projectFile, &error)) {
            std::fprintf(stderr, "memx: %s\n", qPrintable(error));
            if (named)
                return 2;
            window.openSampleProject();  // the last project went bad: start anyway
            sample = true;
        }
    } else {
        window.openSampleProject();
        sample = true;
    }
    if (args.shot)
        return screenshotMode(window, args);

    const bool recovered = options.offerRecovery && offerRecovery(window);
    window.show();
    // The bundled sample is planned at once to show what the tool does; a
    // user's project (reopened or recovered) waits for Run.
    if (sample && !recovered)
        QTimer::singleShot(0, &window, [&window] { window.runSearch(); });
    return app.exec();
}
