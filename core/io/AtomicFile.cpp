#include "io/AtomicFile.h"

#include "io/InputError.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memx {

namespace {
std::atomic<int> g_writes{0};
std::atomic<void (*)()> g_doneHook{nullptr};

constexpr const char* kTempMark = ".memx-tmp-";

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
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const long pid = tempOwner(name);
        if (pid <= 0 || pid == static_cast<long>(::getpid()))
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            ::unlink(it->path().c_str());
    }
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

bool AtomicWrites::inProgress()
{
    return g_writes.load() > 0;
}

void AtomicWrites::setDoneHook(void (*hook)())
{
    g_doneHook.store(hook);
}

void writeFileAtomically(const std::string& path, const std::string& content)
{
    writeFilesAtomically({{path, content}});
}

void writeFilesAtomically(const std::vector<OutputFile>& files)
{
    const WriteInProgress guard;
    namespace fs = std::filesystem;
    struct Staged {
        const OutputFile* file;
        fs::path dir;
        std::string temp;
    };
    std::vector<Staged> staged;
    const auto discard = [&] {
        for (const Staged& s : staged)
            ::unlink(s.temp.c_str());
    };
    for (const OutputFile& f : files) {
        fs::path target(f.path);
        fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
        std::error_code ec;
        fs::create_directories(dir, ec);
        removeAbandonedTemps(dir);
        std::string tmpl =
            (dir / ("." + target.filename().string() + kTempMark + std::to_string(::getpid()) + "-XXXXXX")).string();
        const int fd = ::mkstemp(tmpl.data());
        if (fd < 0) {
            const int err = errno;
            discard();
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
                discard();
                throw InputError(f.path, "", std::string("write failed: ") + std::strerror(err));
            }
            data += n;
            left -= static_cast<std::size_t>(n);
        }
        ::fchmod(fd, 0644);
        if (::fsync(fd) != 0 || ::close(fd) != 0) {
            const int err = errno;
            discard();
            throw InputError(f.path, "", std::string("flush failed: ") + std::strerror(err));
        }
    }
    for (std::size_t i = 0; i < staged.size(); ++i) {
        if (std::rename(staged[i].temp.c_str(), staged[i].file->path.c_str()) != 0) {
            const int err = errno;
            for (std::size_t j = i; j < staged.size(); ++j)
                ::unlink(staged[j].temp.c_str());
            throw InputError(staged[i].file->path, "", std::string("rename failed: ") + std::strerror(err));
        }
    }
    for (const Staged& s : staged)
        syncDirectory(s.dir);
}

}  // namespace memx
