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
    const WriteInProgress guard;
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    removeAbandonedTemps(dir);
    std::string tmpl = (dir / ("." + target.filename().string() + kTempMark + std::to_string(::getpid()) + "-XXXXXX")).string();
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        throw InputError(path, "", std::string("cannot create temporary file: ") + std::strerror(errno));
    const char* data = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        ssize_t n = ::write(fd, data, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmpl.c_str());
            throw InputError(path, "", std::string("write failed: ") + std::strerror(err));
        }
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        throw InputError(path, "", std::string("flush failed: ") + std::strerror(err));
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        throw InputError(path, "", std::string("rename failed: ") + std::strerror(err));
    }
    syncDirectory(dir);
}

}  // namespace memx
