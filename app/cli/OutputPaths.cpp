#include "cli/OutputPaths.h"

#include "io/InputError.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace memx::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 7> kOutputs{"--json", "--csv", "--report", "--out", "--runs-out", "--scripts",
                                              "--logs"};

bool isOutput(const CLI::Option& o)
{
    return std::find(kOutputs.begin(), kOutputs.end(), o.get_name()) != kOutputs.end();
}

struct Given {
    std::string option;  // "--json", or the argument's name
    std::string path;
};

// Whether two paths name one file: the same place after resolving ".", ".."
// and symbolic links, or (both existing) the same file through a hard link.
bool sameFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec)
        return true;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return !ca.empty() && ca == cb;
}

}  // namespace

void checkOutputPaths(const CLI::App& command)
{
    std::vector<Given> outputs, inputs;
    for (const CLI::Option* o : command.get_options()) {
        if (o->count() == 0 || o->get_type_size() == 0)
            continue;  // not given, or a flag
        const std::string name = o->get_name().empty() ? o->get_single_name() : o->get_name();
        for (const std::string& value : o->results()) {
            if (isOutput(*o)) {
                if (value.empty())
                    throw InputError(name, "\"\"", "an empty path; give the file or folder to write");
                if (value == "-")
                    throw InputError(name, "-", "this command does not write to standard output; give a file path");
                outputs.push_back({name, value});
            } else {
                std::error_code ec;
                if (!value.empty() && fs::exists(value, ec))
                    inputs.push_back({name, value});
            }
        }
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (const Given& in : inputs)
            if (sameFile(outputs[i].path, in.path))
                throw InputError(outputs[i].option, outputs[i].path,
                                 "is also the input " + in.option + " (" + in.path
                                     + "); writing it would replace that input: choose another path");
        for (std::size_t k = 0; k < i; ++k)
            if (sameFile(outputs[i].path, outputs[k].path))
                throw InputError(outputs[i].option, outputs[i].path,
                                 "is also the output " + outputs[k].option + "; each output needs its own path");
    }
}

void guardOutputPaths(CLI::App& app)
{
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        CLI::App* command = sub;
        command->parse_complete_callback([command] { checkOutputPaths(*command); });
    }
}

}  // namespace memx::cli
