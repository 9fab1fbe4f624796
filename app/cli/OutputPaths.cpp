#include "cli/OutputPaths.h"

#include "io/AtomicFile.h"
#include "io/InputError.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/statvfs.h>
#include <unistd.h>

namespace memx::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 7> kOutputs{"--json",     "--csv",     "--report", "--out",
                                              "--runs-out", "--scripts", "--logs"};

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

// Outputs that are always one file (--out is a file or, for export, a
// folder) and those that are always a folder.
bool fileOnly(const std::string& option)
{
    return option == "--json" || option == "--csv" || option == "--report" || option == "--runs-out";
}
bool folderOnly(const std::string& option) { return option == "--scripts" || option == "--logs"; }

// Less than this free is a full disk (one block of most file systems).
constexpr unsigned long long kMinFreeBytes = 4096;

// A file system with not one block or not one file entry left, found now
// rather than after a search of minutes that then cannot write. A disk with
// a little room is found when the write fails, and nothing is half-written
// then either (writeFilesAtomically).
std::string fullDiskProblem(const fs::path& folder)
{
    struct statvfs st { };
    if (::statvfs(folder.c_str(), &st) != 0)
        return {};
    // root may use the blocks ext4 reserves for it; others may not.
    const unsigned long long blocks = ::geteuid() == 0 ? st.f_bfree : st.f_bavail;
    const unsigned long long freeBytes = blocks * st.f_frsize;
    if (freeBytes < kMinFreeBytes)
        return "the file system of " + folder.string() + " is full (" + std::to_string(freeBytes)
            + " bytes free): free space there, or give another place";
    if (st.f_files > 0 && st.f_favail == 0)  // f_files 0: a file system without a count of them
        return "the file system of " + folder.string()
            + " has no free file entry (inode) left: free some, or give another place";
    return {};
}

// Why `path` cannot be written, found before any work (a search can take
// minutes before it writes): a folder that is a file, a file that is a
// folder, a parent that is a file, a place the user cannot write (a
// read-only disk), or a full disk. Empty when nothing stands in the way.
std::string placeProblem(const std::string& option, const std::string& path)
{
    std::error_code ec;
    const fs::path target = fs::absolute(path, ec);
    if (ec)
        return "not a usable path: " + ec.message();
    if (fs::exists(target, ec)) {
        if (folderOnly(option) && !fs::is_directory(target, ec))
            return "is a file; give a folder to write into";
        if (fileOnly(option) && fs::is_directory(target, ec))
            return "is a folder; give the path of a file to write";
    }
    // The folder the output goes in (the output itself for a folder option),
    // or the nearest part of it that exists: it must be a folder one can write in.
    fs::path existing = folderOnly(option) ? target : target.parent_path();
    while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path())
        existing = existing.parent_path();
    if (existing.empty() || !fs::exists(existing, ec))
        return {};
    if (!fs::is_directory(existing, ec))
        return existing.string() + " is a file, so no folder can be made there";
    if (::access(existing.c_str(), W_OK | X_OK) != 0)
        return "cannot write in " + existing.string() + ": " + std::strerror(errno);
    return fullDiskProblem(existing);
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
        if (const std::string why = placeProblem(outputs[i].option, outputs[i].path); !why.empty())
            throw InputError(outputs[i].option, outputs[i].path, why);
    }
    // Temporary files a killed run of a writer left beside these outputs go
    // now, not only when the next write into that folder completes.
    for (const Given& out : outputs)
        if (!folderOnly(out.option))
            AtomicWrites::clearAbandoned(out.path);
}

void guardOutputPaths(CLI::App& app)
{
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        CLI::App* command = sub;
        command->parse_complete_callback([command] { checkOutputPaths(*command); });
    }
}

}  // namespace memx::cli
