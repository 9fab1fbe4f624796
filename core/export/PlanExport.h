#pragma once

#include "export/LaunchFiles.h"

#include <string>
#include <vector>

namespace memx {

struct PlanDocument;

enum class ExportTarget { Megatron, FlagScale, Json };
const char* toString(ExportTarget t);  // "megatron", "flagscale", "json"
bool parseExportTarget(const std::string& s, ExportTarget& out);

// The files one export writes, for every front end (memx-cli export, the
// workbench's File > Export): Megatron-LM launch scripts, the FlagScale
// config, or the plan as memx-plan/2 JSON ("plan.json", whose header lines
// travel in a "comment" list since JSON has no comments). Throws InputError
// with the reason when the engine cannot run the plan.
struct PlanExport {
    // `destination`: the folder the files will be written to (FlagScale's
    // launcher names the hostfile by its absolute path); may be empty.
    static std::vector<ExportedFile> files(const PlanDocument& doc, ExportTarget target,
                                           const std::string& destination = {});
};

}  // namespace memx
