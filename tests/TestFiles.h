#pragma once
// Small file helpers for tests that look at what an export wrote.

#include <QDir>
#include <QDirIterator>
#include <QString>
#include <QStringList>

namespace memx::test {

// Every file below `dir`, relative to it, sorted.
inline QStringList filesUnder(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

}  // namespace memx::test
