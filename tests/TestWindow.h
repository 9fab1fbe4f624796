#pragma once
// The main window as GUI tests drive it: no saved layout, recovery or
// autosave; a search run to the end of showing its result; actions by menu
// text; the status message; a dark palette.

#include "DarkPalette.h"
#include "MainWindow.h"
#include "SetupPanel.h"

#include <QAction>
#include <QColor>
#include <QLabel>
#include <QPalette>
#include <QSignalSpy>
#include <QStatusBar>

namespace memx::test {

inline MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.restoreState = false;
    o.offerRecovery = false;
    o.autosave = false;
    return o;
}

// Runs a search and waits until its result is fully shown (or 60 s pass).
inline bool runAndWait(MainWindow& w)
{
    QSignalSpy done(&w, &MainWindow::resultShown);
    w.runSearch();
    return done.wait(60000);
}

// The window's action with this menu text ("&Export Cluster..."), or null.
inline QAction* action(MainWindow& w, const QString& text)
{
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text)
            return a;
    return nullptr;
}

// The status bar's message (its first label).
inline QString status(MainWindow& w)
{
    const auto labels = w.statusBar()->findChildren<QLabel*>();
    return labels.isEmpty() ? QString() : labels.front()->text();
}

using memx::darkPalette;

// The setup's Meshes box set to uniform, as a user whose plans must run on
// Megatron-LM sets it (a new project plans per GPU type).
inline void useUniformMeshes(MainWindow& w)
{
    auto* setup = w.findChild<SetupPanel*>();
    QVERIFY(setup);
    TrainingSetup s = setup->setup();
    s.meshes = MeshMode::Uniform;
    setup->setSetup(s);
}

}  // namespace memx::test
