#include "cli/Commands.h"

#include "export/FlagScaleExport.h"
#include "export/LaunchFiles.h"
#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "io/InputError.h"
#include "search/SearchResult.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace memx::cli {

namespace {

struct ExportArgs {
    std::string plan;
    std::string target;
    std::string out;
    int rank = 0;
    bool quiet = false;
};

}  // namespace

void addExportCommand(CLI::App& app, int& exitCode)
{
    auto args = std::make_shared<ExportArgs>();
    auto* cmd = app.add_subcommand("export", "Write launch files for a plan: Megatron-LM scripts, a FlagScale "
                                             "heterogeneous config, or the plan as memx-plan/1 JSON");
    cmd->add_option("--plan", args->plan, "Plan file (memx-plan/1) or search result (memx-search/1, from search --json)")
        ->required();
    cmd->add_option("--target", args->target, "megatron, flagscale or json")->required();
    cmd->add_option("--out", args->out, "Output directory (created if missing)")->required();
    cmd->add_option("--rank", args->rank,
                    "With a search file: the plan ranked N under the search's objective (default: the best)");
    cmd->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
    cmd->callback([args, &exitCode] {
        if (args->target != "megatron" && args->target != "flagscale" && args->target != "json")
            throw InputError("--target", args->target, "expected megatron, flagscale or json");
        if (args->rank < 0)
            throw InputError("--rank", std::to_string(args->rank), "must be at least 1");
        const PlanDocument doc = PlanJsonReader::read(args->plan, args->rank);
        std::vector<ExportedFile> files;
        if (args->target == "megatron") {
            files = MegatronExport::files(doc);
        } else if (args->target == "flagscale") {
            files = FlagScaleExport::files(doc);
        } else {
            SearchRequest req;
            req.cluster = doc.cluster;
            req.model = doc.model;
            req.setup = doc.setup;
            nlohmann::json j = PlanJson::planDocument(req, doc.predictor, doc.plan);
            // JSON has no comments: the header travels as a list of lines.
            nlohmann::json lines = nlohmann::json::array();
            const std::string h = LaunchFiles::header(doc, "json", "");
            for (std::size_t a = 0, b; a < h.size(); a = b + 1) {
                b = h.find('\n', a);
                if (b == std::string::npos)
                    b = h.size();
                lines.push_back(h.substr(a, b - a));
            }
            j["comment"] = lines;
            files.push_back({"plan.json", j.dump(2) + "\n", false});
        }
        LaunchFiles::writeAll(args->out, files);
        if (!args->quiet) {
            std::cout << "exported plan (rank " << doc.rank << ", " << doc.plan.iterationMs << " ms per iteration) for "
                      << args->target << " to " << args->out << ":\n";
            for (const auto& f : files)
                std::cout << "  " << f.name << "\n";
        }
        exitCode = Ok;
    });
}

}  // namespace memx::cli
