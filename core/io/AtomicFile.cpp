#include "io/AtomicFile.h"

#include "io/InputError.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memx {

namespace {
std::atomic<int> g_writes{0};
std::atomic<void (*)()> g_doneHook{nullptr};

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
    std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
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
}

}  // namespace memx
