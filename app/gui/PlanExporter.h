#pragma once

#include "export/PlanExport.h"

#include <QString>
#include <QStringList>

#include <string>

namespace memx {

struct Plan;
struct SearchRequest;
struct SearchResult;

// Writes a plan of a finished search as `memx-cli export --plan` does:
// through its memx-plan/2 document and back, so both front ends write the
// same files (Megatron-LM and FlagScale into a folder, the plan JSON into a
// file). No widget: the window asks for the destination and shows the outcome.
struct PlanExporter {
    struct Outcome {
        bool ok = false;
        QString message;  // what was written, or why nothing was
        QStringList files;  // absolute paths written
    };
    // Where the plan comes from, as its document records it.
    struct Source {
        const SearchRequest& request;
        const SearchResult& result;
        const Plan& plan;
        std::string projectFile;  // the project's file, or a name for an unsaved one
        std::string predictor;  // the predictor's label
        std::string origin;  // which search produced the result
    };
    static Outcome write(const Source& source, ExportTarget target, const QString& destination);
};

}  // namespace memx
