#include "io/AtomicFile.h"

#include "io/InputError.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memx {

namespace {
std::atomic<int> g_writes{0};
std::atomic<void (*)()> g_doneHook{nullptr};
std::atomic<void (*)(std::size_t)> g_renameHook{nullptr};

constexpr const char* kTempMark = ".memx-tmp-";
constexpr const char* kJournalName = ".memx-set";  // ".memx-set.memx-tmp-<pid>-XXXXXX"

// A journal: NUL-separated pairs "temporary\0target\0", then "\0" and the
// paths of every copy of the journal, NUL-terminated.
struct Journal {
    std::vector<std::pair<std::string, std::string>> renames;
    std::vector<std::string> copies;
};

bool readJournal(const std::string& file, Journal& out)
{
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (!f)
        return false;
    std::string data;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0 && data.size() < (1u << 20);)
        data.append(buf, n);
    std::fclose(f);
    std::vector<std::string> parts;
    std::size_t at = 0;
    for (std::size_t end; (end = data.find('\0', at)) != std::string::npos; at = end + 1)
        parts.push_back(data.substr(at, end - at));
    std::size_t i = 0;
    for (; i + 1 < parts.size() && !parts[i].empty(); i += 2)
        out.renames.emplace_back(parts[i], parts[i + 1]);
    if (i >= parts.size() || !parts[i].empty())
        return false;  // cut short: written before the renames began, so none of them ran
    out.copies.assign(parts.begin() + static_cast<std::ptrdiff_t>(i) + 1, parts.end());
    return true;
}

// A killed writer's journal: finish its renames whose temporaries are still
// there (they were whole and flushed before the journal was written), then
// remove every copy of the journal.
void rollForward(const std::string& journal)
{
    Journal j;
    if (readJournal(journal, j)) {
        for (const auto& [temp, target] : j.renames)
            if (::access(temp.c_str(), F_OK) == 0)
                (void)std::rename(temp.c_str(), target.c_str());
        for (const std::string& copy : j.copies)
            ::unlink(copy.c_str());
    }
    ::unlink(journal.c_str());
}

// ".<name>.memx-tmp-<pid>-XXXXXX" -> pid; 0 when `name` is not one of ours.
long tempOwner(const std::string& name)
{
    const std::size_t at = name.rfind(kTempMark);
    if (name.empty() || name[0] != '.' || at == std::string::npos)
        return 0;
    std::size_t i = at + std::strlen(kTempMark);
    long pid = 0;
    const std::size_t digits = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && pid < 1'000'000'000)
        pid = pid * 10 + (name[i++] - '0');
    if (i == digits || i + 7 != name.size() || name[i] != '-')
        return 0;
    return pid;
}

// Temporary files a killed writer left in `dir` (its process is gone) are
// removed by the next write there; a live writer's are left alone.
void removeAbandonedTemps(const std::filesystem::path& dir)
{
    std::error_code ec;
    std::vector<std::filesystem::path> journals, temps;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const long pid = tempOwner(name);
        if (pid <= 0 || pid == static_cast<long>(::getpid()))
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            (name.rfind(kJournalName, 0) == 0 ? journals : temps).push_back(it->path());
    }
    // A set cut between its renames is finished first, so that its
    // temporaries become the outputs they were written to be.
    for (const auto& j : journals)
        rollForward(j.string());
    for (const auto& t : temps)
        ::unlink(t.c_str());
}

// The rename is durable once the directory itself is flushed.
void syncDirectory(const std::filesystem::path& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
}

struct WriteInProgress {
    WriteInProgress() { g_writes.fetch_add(1); }
    ~WriteInProgress()
    {
        if (g_writes.fetch_sub(1) == 1)
            if (void (*hook)() = g_doneHook.load())
                hook();
    }
};
}  // namespace

void AtomicWrites::clearAbandoned(const std::string& path)
{
    const std::filesystem::path target(path);
    std::error_code ec;
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    if (std::filesystem::is_directory(dir, ec))
        removeAbandonedTemps(dir);
}

bool AtomicWrites::inProgress() { return g_writes.load() > 0; }

void AtomicWrites::setDoneHook(void (*hook)()) { g_doneHook.store(hook); }

void AtomicWrites::setRenameHook(void (*hook)(std::size_t)) { g_renameHook.store(hook); }

void writeFileAtomically(const std::string& path, const std::string& content)
{
    writeFilesAtomically({{path, content}});
}

namespace {

namespace fs = std::filesystem;

// One output written to its temporary file beside the target.
struct Staged {
    const OutputFile* file;
    fs::path dir;
    std::string temp;
};

void discard(const std::vector<Staged>& staged)
{
    for (const Staged& s : staged)
        ::unlink(s.temp.c_str());
}

// `f` into a new temporary file in its folder, synced; on failure every
// temporary file staged so far is removed.
void stage(const OutputFile& f, std::vector<Staged>& staged)
{
    fs::path target(f.path);
    fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    removeAbandonedTemps(dir);
    std::string tmpl
        = (dir / ("." + target.filename().string() + kTempMark + std::to_string(::getpid()) + "-XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) {
        const int err = errno;
        discard(staged);
        throw InputError(f.path, "", std::string("cannot create temporary file: ") + std::strerror(err));
    }
    staged.push_back({&f, dir, tmpl});
    const char* data = f.content.data();
    std::size_t left = f.content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            discard(staged);
            throw InputError(f.path, "", std::string("write failed: ") + std::strerror(err));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int err = errno;
        discard(staged);
        throw InputError(f.path, "", std::string("flush failed: ") + std::strerror(err));
    }
}

// Several files: the renames are journalled in each folder of the set,
// so that a kill between two of them is finished by the next command.
// Returns the journals written (none when one could not be).
std::vector<std::string> journalRenames(const std::vector<Staged>& staged)
{
    std::vector<std::string> journals;
    std::vector<fs::path> dirs;
    for (const Staged& s : staged)
        if (std::find(dirs.begin(), dirs.end(), s.dir) == dirs.end())
            dirs.push_back(s.dir);
    for (const fs::path& dir : dirs) {
        std::string tmpl
            = (dir / (std::string(kJournalName) + kTempMark + std::to_string(::getpid()) + "-XXXXXX")).string();
        const int fd = ::mkstemp(tmpl.data());
        if (fd < 0)
            break;  // no journal: the renames still run, as before journals existed
        ::close(fd);
        journals.push_back(tmpl);
    }
    std::string text;
    for (const Staged& s : staged)
        text += fs::absolute(s.temp).string() + '\0' + fs::absolute(s.file->path).string() + '\0';
    text += '\0';
    for (const std::string& j : journals)
        text += fs::absolute(j).string() + '\0';
    for (const std::string& j : journals) {
        const int fd = ::open(j.c_str(), O_WRONLY | O_TRUNC);
        bool whole = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
        whole = fd >= 0 && ::fsync(fd) == 0 && whole;
        if (fd >= 0)
            ::close(fd);
        if (!whole) {  // a journal that could not be written is no journal
            for (const std::string& k : journals)
                ::unlink(k.c_str());
            journals.clear();
            break;
        }
    }
    for (const fs::path& dir : dirs)
        syncDirectory(dir);
    return journals;
}

}  // namespace

void writeFilesAtomically(const std::vector<OutputFile>& files)
{
    const WriteInProgress guard;
    std::vector<Staged> staged;
    for (const OutputFile& f : files)
        stage(f, staged);
    const std::vector<std::string> journals = staged.size() > 1 ? journalRenames(staged) : std::vector<std::string>{};
    for (std::size_t i = 0; i < staged.size(); ++i) {
        if (std::rename(staged[i].temp.c_str(), staged[i].file->path.c_str()) != 0) {
            const int err = errno;
            for (std::size_t j = i; j < staged.size(); ++j)
                ::unlink(staged[j].temp.c_str());
            for (const std::string& j : journals)
                ::unlink(j.c_str());
            throw InputError(staged[i].file->path, "", std::string("rename failed: ") + std::strerror(err));
        }
        if (void (*hook)(std::size_t) = g_renameHook.load())
            hook(i + 1);
    }
    for (const Staged& s : staged)
        syncDirectory(s.dir);
    for (const std::string& j : journals)
        ::unlink(j.c_str());
}

}  // namespace memx
