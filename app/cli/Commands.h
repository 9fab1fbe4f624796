#pragma once

#include <CLI/CLI.hpp>

namespace memx::cli {

// Exit codes shared by every subcommand.
enum ExitCode { Ok = 0, NoFeasiblePlan = 1, BadInput = 2 };

// Each registers a subcommand; the callback sets `exitCode`.
void addSearchCommand(CLI::App& app, int& exitCode);
void addCatalogCommands(CLI::App& app, int& exitCode);

}  // namespace memx::cli
