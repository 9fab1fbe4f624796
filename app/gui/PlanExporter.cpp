#include "PlanExporter.h"

#include "StdText.h"
#include "export/ExportFolder.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "search/SearchEngine.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace memx {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("memx::PlanExporter", text); }

}  // namespace

PlanExporter::Outcome PlanExporter::write(const Source& s, ExportTarget target, const QString& destination)
{
    Outcome out;
    if (destination.isEmpty()) {
        out.message = tr("No destination given.");
        return out;
    }
    try {
        PlanDocument doc
            = PlanJsonReader::fromJson(PlanJson::planDocument(s.request.problem, s.predictor, s.plan), s.projectFile);
        doc.origin = s.origin;
        doc.incomplete = s.result.incomplete;
        const std::vector<ExportedFile> files = PlanExport::files(doc, target, destination.toStdString());
        if (target == ExportTarget::Json) {
            writeFileAtomically(destination.toStdString(), files.front().content);  // the user named the file
            out.files << QFileInfo(destination).absoluteFilePath();
        } else {
            ExportFolder::write(destination.toStdString(), files);
            const QDir dir(destination);
            for (const ExportedFile& f : files)
                out.files << dir.absoluteFilePath(qs(f.name));
        }
    } catch (const InputError& e) {
        const QString what = target == ExportTarget::FlagScale ? tr("FlagScale cannot run this plan")
            : target == ExportTarget::Megatron                 ? tr("Megatron-LM cannot run this plan")
                                                               : tr("Cannot export the plan");
        out.message = QStringLiteral("%1: %2").arg(what, qs(e.reason()));
        return out;
    } catch (const std::exception& e) {
        out.message = tr("Cannot export the plan: %1").arg(QString::fromUtf8(e.what()));
        return out;
    }
    out.ok = true;
    QStringList names;
    for (const QString& f : out.files)
        names << QFileInfo(f).fileName();
    out.message
        = tr("Exported the plan (%1 ms per iteration, %2 predictor) to %3: %4")
              .arg(s.plan.iterationMs, 0, 'f', 1)
              .arg(qs(s.predictor),
                   QDir::toNativeSeparators(target == ExportTarget::Json ? QFileInfo(destination).absolutePath()
                                                                         : QFileInfo(destination).absoluteFilePath()),
                   names.join(QStringLiteral(", ")));
    return out;
}

}  // namespace memx
