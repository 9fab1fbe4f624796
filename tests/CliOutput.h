#pragma once
// Reading memx-cli's output in the CLI tests: sample cluster paths, the JSON
// it writes, and the plan table it prints.

#include "TestPaths.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

namespace memx::test {

inline QString sample(const QString& name)
{
    return QString::fromStdString(memx::test::sampleCluster(name.toStdString()));
}

inline bool readJson(const QString& path, QJsonObject& obj, QString& why)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        why = QStringLiteral("cannot open ") + path;
        return false;
    }
    QJsonParseError pe;
    QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        why = QStringLiteral("%1: %2 at offset %3").arg(path, pe.errorString()).arg(pe.offset);
        return false;
    }
    if (!doc.isObject()) {
        why = path + QStringLiteral(": top level is not an object");
        return false;
    }
    obj = doc.object();
    return true;
}

// The plan table: the header line starting with '#' and the numbered rows below it
// (up to the first blank line).
struct PlanTable {
    QString header;
    QList<QStringList> rows;  // whitespace-split rows
};

inline PlanTable parseTable(const QString& out)
{
    PlanTable t;
    const QStringList lines = out.split(QLatin1Char('\n'));
    int i = 0;
    for (; i < lines.size(); ++i)
        if (lines[i].startsWith(QLatin1Char('#')) && lines[i].contains(QStringLiteral("TP"))) {
            t.header = lines[i];
            break;
        }
    // A per-mesh plan's TP, DP and mbs are one value per mesh: "2|1|2".
    static const QRegularExpression rowRe(QStringLiteral("^\\d+\\s+[\\d|]+\\s+\\d+\\s+[\\d|]+\\s"));
    for (++i; i < lines.size(); ++i) {
        if (lines[i].trimmed().isEmpty())
            break;
        if (rowRe.match(lines[i]).hasMatch())
            t.rows.push_back(lines[i].split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts));
    }
    return t;
}

namespace columns {
// Column positions in a whitespace-split plan row (stage order contains no spaces).
enum Col { cRank = 0, cTP, cPP, cDP, cMbs, cSeq, cSched, cOrder, cLayers, cRecomp, cT, cTokens, cM, cV, cPhi, cRankT };
}  // namespace columns

}  // namespace memx::test
