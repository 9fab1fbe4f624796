#pragma once

#include <QObject>
#include <QString>

namespace memx {

class MainWindow;

// Answers a scripted walk of the real binary (scripts/gui-walk). When the
// environment variable MEMX_GUI_PROBE names a folder, the workbench looks for
// <folder>/request every 100 ms, also while a modal dialog is open. A request
// holding NAME is answered with NAME.json, the state of every window (titles,
// the current tab, status line, staleness, the search, the document, and the
// screen rectangles of the controls a script clicks), and NAME.png, the whole
// screen as the X server shows it; then the request is removed. Both files
// appear whole (written aside, then renamed). Without the variable nothing
// is polled.
class GuiProbe : public QObject {
    Q_OBJECT
public:
    // Starts answering when MEMX_GUI_PROBE is set; otherwise does nothing.
    static void attachIfRequested(MainWindow* window);

    GuiProbe(MainWindow* window, const QString& folder);

    // The state dump, as NAME.json holds it (UTF-8 JSON).
    QByteArray state() const;
    // Answers the request in the folder, if there is a whole one (the timer
    // calls it every 100 ms; public for tests).
    void answerRequest();

private:
    void done(const QByteArray& asked);

    MainWindow* window_;
    QString folder_;
    bool answering_ = false;  // inside answerRequest(): a nested call leaves the request to it
};

}  // namespace memx
