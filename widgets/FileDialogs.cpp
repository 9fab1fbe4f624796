#include "FileDialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>

namespace memx::FileDialogs {

namespace {

QString settingsKey(const QString& kind) { return QStringLiteral("dialogs/") + kind; }

QString lastFolder(const QString& kind)
{
    const QString dir = QSettings().value(settingsKey(kind)).toString();
    return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QDir::currentPath();
}

QString run(QFileDialog& dialog, const QString& kind, bool isFolder)
{
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty())
        return {};
    const QString chosen = dialog.selectedFiles().constFirst();
    QSettings().setValue(settingsKey(kind), isFolder ? chosen : QFileInfo(chosen).absolutePath());
    return chosen;
}

}  // namespace

QString openFile(QWidget* parent, const QString& title, const QString& filter, const QString& kind)
{
    QFileDialog dialog(parent, title, lastFolder(kind), filter);
    dialog.setObjectName(QStringLiteral("open-") + kind);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setFileMode(QFileDialog::ExistingFile);
    return run(dialog, kind, false);
}

QString saveFile(QWidget* parent, const QString& title, const QString& filter, const QString& kind,
                 const QString& suggestedName, const QString& suffix)
{
    QFileDialog dialog(parent, title, lastFolder(kind), filter);
    dialog.setObjectName(QStringLiteral("save-") + kind);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setFileMode(QFileDialog::AnyFile);
    dialog.setDefaultSuffix(suffix);
    // The suffix follows the chosen filter ("PDF (*.pdf)" -> pdf).
    QObject::connect(&dialog, &QFileDialog::filterSelected, &dialog, [&dialog](const QString& filter) {
        const auto m = QRegularExpression(QStringLiteral("\\*\\.(\\w+)")).match(filter);
        if (m.hasMatch())
            dialog.setDefaultSuffix(m.captured(1));
    });
    if (!suggestedName.isEmpty())
        dialog.selectFile(safeFileName(suggestedName));
    QString file = run(dialog, kind, false);
    // Native dialogs may not apply the default suffix.
    if (!file.isEmpty() && !dialog.defaultSuffix().isEmpty() && QFileInfo(file).suffix().isEmpty())
        file += QLatin1Char('.') + dialog.defaultSuffix();
    return file;
}

QString folder(QWidget* parent, const QString& title, const QString& kind)
{
    QFileDialog dialog(parent, title, lastFolder(kind));
    dialog.setObjectName(QStringLiteral("folder-") + kind);
    dialog.setFileMode(QFileDialog::Directory);
    dialog.setOption(QFileDialog::ShowDirsOnly);
    return run(dialog, kind, true);
}

QString safeFileName(const QString& name)
{
    QString s = name.trimmed();
    s.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    while (s.startsWith(QLatin1Char('.')) || s.startsWith(QLatin1Char('-')))
        s.remove(0, 1);
    return s.isEmpty() ? QStringLiteral("untitled") : s;
}

}  // namespace memx::FileDialogs
