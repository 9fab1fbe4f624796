#pragma once
// The main window as GUI tests drive it: no saved layout, recovery or
// autosave; a search run to the end of showing its result; actions by menu
// text; the status message; a dark palette.

#include "MainWindow.h"

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

inline QPalette darkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x31, 0x36, 0x3b));
    dark.setColor(QPalette::WindowText, QColor(0xef, 0xf0, 0xf1));
    dark.setColor(QPalette::Base, QColor(0x23, 0x26, 0x29));
    dark.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2e, 0x32));
    dark.setColor(QPalette::Text, QColor(0xef, 0xf0, 0xf1));
    dark.setColor(QPalette::Button, QColor(0x31, 0x36, 0x3b));
    dark.setColor(QPalette::ButtonText, QColor(0xef, 0xf0, 0xf1));
    return dark;
}

}  // namespace memx::test
