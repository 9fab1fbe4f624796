#pragma once

#include <QString>

class QWidget;

namespace memx {

// The workbench's file dialogs. Each kind of file (project, cluster, plot,
// plan, ...) remembers the folder it was last read from or written to
// (QSettings "dialogs/<kind>"); a save dialog suggests a file name, and a
// name typed without a suffix gets the kind's suffix. The dialog is Qt's own
// where the platform has no native one (as under the offscreen platform,
// which lets tests fill it in).
namespace FileDialogs {

QString openFile(QWidget* parent, const QString& title, const QString& filter, const QString& kind);
QString saveFile(QWidget* parent, const QString& title, const QString& filter, const QString& kind,
                 const QString& suggestedName, const QString& suffix);
QString folder(QWidget* parent, const QString& title, const QString& kind);

// `name` as a file name: characters other than letters, digits, '.', '_'
// and '-' become '-' ("a100/h20 mix" -> "a100-h20-mix").
QString safeFileName(const QString& name);

}  // namespace FileDialogs

}  // namespace memx
