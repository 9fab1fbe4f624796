#pragma once

namespace CLI {
class App;
}

namespace memx::cli {

// No command overwrites its own input or writes two outputs to one file.
// Called once a subcommand's options are parsed and before it runs: every
// output option given (--json, --csv, --report, --out, --runs-out,
// --scripts, --logs) must be a non-empty path other than "-" (no command
// writes to standard output through these), must not be the same file as
// any other option's or argument's existing path (an input), and must
// differ from every other output, and its place must be writable before any
// work starts: a file option is not a folder, a folder option (--scripts,
// --logs) is not a file, no part of the path is a file, and the nearest
// existing folder accepts writes. Throws InputError naming the options.
// Then removes the temporary files killed writers left beside each output.
void checkOutputPaths(const CLI::App& command);

// Installs checkOutputPaths on every subcommand of `app` (its
// parse-complete callback, which runs before the command's own).
void guardOutputPaths(CLI::App& app);

}  // namespace memx::cli
