#include "export/PlanExport.h"

#include "export/FlagScaleExport.h"
#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "space/Problem.h"

namespace memx {

const char* toString(ExportTarget t)
{
    switch (t) {
    case ExportTarget::Megatron: return "megatron";
    case ExportTarget::FlagScale: return "flagscale";
    case ExportTarget::Json: return "json";
    }
    return "?";
}

bool parseExportTarget(const std::string& s, ExportTarget& out)
{
    for (ExportTarget t : {ExportTarget::Megatron, ExportTarget::FlagScale, ExportTarget::Json})
        if (s == toString(t)) {
            out = t;
            return true;
        }
    return false;
}

std::vector<ExportedFile> PlanExport::files(const PlanDocument& doc, ExportTarget target,
                                            const std::string& destination)
{
    if (target == ExportTarget::Megatron)
        return MegatronExport::files(doc);
    if (target == ExportTarget::FlagScale)
        return FlagScaleExport::files(doc, destination);
    nlohmann::json j = PlanJson::planDocument(doc.problem, doc.predictor, doc.plan);
    nlohmann::json lines = nlohmann::json::array();
    const std::string h = LaunchFiles::header(doc, "json", "");
    for (std::size_t a = 0, b; a < h.size(); a = b + 1) {
        b = h.find('\n', a);
        if (b == std::string::npos)
            b = h.size();
        lines.push_back(h.substr(a, b - a));
    }
    j["comment"] = lines;
    return {{"plan.json", j.dump(2) + "\n", false}};
}

}  // namespace memx
