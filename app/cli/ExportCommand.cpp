#include "cli/Commands.h"

#include "export/ExportFolder.h"
#include "export/PlanExport.h"
#include "export/PlanJsonReader.h"
#include "io/InputError.h"

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
    auto* cmd = app.add_subcommand("export",
                                   "Write launch files for a plan: Megatron-LM scripts, a FlagScale "
                                   "heterogeneous config, or the plan as memx-plan/2 JSON");
    cmd->add_option("--plan", args->plan,
                    "Plan file (memx-plan/2, or /1) or search result (memx-search/2, or /1, from search --json)")
        ->required();
    cmd->add_option("--target", args->target, "megatron, flagscale or json")->required();
    cmd->add_option("--out", args->out, "Output directory (created if missing)")->required();
    cmd->add_option("--rank", args->rank,
                    "With a search file: the plan ranked N under the search's objective (default: the best)");
    cmd->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
    cmd->callback([args, &exitCode] {
        ExportTarget target;
        if (!parseExportTarget(args->target, target))
            throw InputError("--target", args->target, "expected megatron, flagscale or json");
        if (args->rank < 0)
            throw InputError("--rank", std::to_string(args->rank), "must be at least 1");
        const PlanDocument doc = PlanJsonReader::read(args->plan, args->rank);
        const std::vector<ExportedFile> files = PlanExport::files(doc, target, args->out);
        ExportFolder::write(args->out, files);
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
