#pragma once
// The main window as GUI tests drive it: no saved layout, recovery or
// autosave; a search run to the end of showing its result; a dark palette.

#include "MainWindow.h"

#include <QColor>
#include <QPalette>
#include <QSignalSpy>

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
