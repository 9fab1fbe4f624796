// memx-cli: plan LLM training on heterogeneous GPU clusters from the shell.
#include "cli/Commands.h"
#include "cli/Interrupt.h"
#include "cli/OutputPaths.h"

#include "io/InputError.h"

#include <filesystem>
#include <iostream>
#include <new>

namespace {

// "search (--cluster c.json, --model m.json)": the command and the files it
// was given, for a message about the whole run.
std::string commandAndInputs(const CLI::App& app)
{
    std::string out = "memx-cli";
    for (const CLI::App* sub : app.get_subcommands()) {
        out += " " + sub->get_name();
        std::string files;
        for (const CLI::Option* o : sub->get_options()) {
            if (o->count() == 0 || o->get_type_size() == 0)
                continue;
            std::error_code ec;
            for (const std::string& v : o->results())
                if (std::filesystem::is_regular_file(v, ec))
                    files += (files.empty() ? "" : ", ") + o->get_name() + " " + v;
        }
        if (!files.empty())
            out += " (" + files + ")";
    }
    return out;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"MemX Workbench command line: memory-aware parallelism planning for heterogeneous GPU clusters",
                 "memx-cli"};
    app.set_version_flag("--version", std::string("memx-cli ") + MEMX_VERSION);
    app.require_subcommand(1);
    int exitCode = memx::cli::Ok;
    memx::cli::installInterruptHandlers();
    memx::cli::addSearchCommand(app, exitCode);
    memx::cli::addCatalogCommands(app, exitCode);
    memx::cli::addProfileCommands(app, exitCode);
    memx::cli::addPredictorCommands(app, exitCode);
    memx::cli::addExportCommand(app, exitCode);
    memx::cli::guardOutputPaths(app);  // before any command runs
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::RequiredError& e) {
        // "A subcommand is required" also covers a misspelt one: name it.
        if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
            std::string names;
            for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
                names += (names.empty() ? "" : ", ") + sub->get_name();
            std::cerr << "error: unknown command \"" << argv[1] << "\"; expected one of: " << names
                      << " (see --help)\n";
            return memx::cli::BadInput;
        }
        app.exit(e);
        return memx::cli::BadInput;
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return memx::cli::BadInput;
    } catch (const memx::InputError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return memx::cli::BadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: not enough memory for " << commandAndInputs(app)
                  << ": the inputs are larger than this machine can hold for this command\n";
        return memx::cli::BadInput;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return memx::cli::BadInput;
    }
    return exitCode;
}
