#pragma once

#include <CLI/CLI.hpp>

namespace memx::cli {

// Exit codes shared by every subcommand. PartlyImported: import-logs wrote
// the logs it could read and skipped others (each named on stderr).
enum ExitCode { Ok = 0, NoFeasiblePlan = 1, BadInput = 2, PartlyImported = 3 };

// Each registers a subcommand; the callback sets `exitCode`.
void addSearchCommand(CLI::App& app, int& exitCode);
void addCatalogCommands(CLI::App& app, int& exitCode);
void addProfileCommands(CLI::App& app, int& exitCode);  // profile-plan, simulate, import-logs
void addPredictorCommands(CLI::App& app, int& exitCode);  // train, predict, evaluate
void addExportCommand(CLI::App& app, int& exitCode);

}  // namespace memx::cli
