#include "export/ExportFolder.h"

#include "export/LaunchFiles.h"
#include "io/InputError.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace memx {

namespace {

namespace fs = std::filesystem;

std::string errnoText() { return std::strerror(errno); }

// Holds an exclusive flock on a file beside the target; released on scope exit.
class FolderLock {
public:
    explicit FolderLock(const fs::path& lockFile) : path_(lockFile)
    {
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0)
            throw InputError(path_.parent_path().string(), "",
                             "cannot create the export's lock file " + path_.filename().string()
                                 + " in this folder: " + errnoText());
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            fd_ = -1;
            throw InputError(path_.parent_path().string(), "",
                             "another export into this folder is running (it holds " + path_.filename().string()
                                 + "); wait for it or choose another folder");
        }
    }
    ~FolderLock()
    {
        if (fd_ >= 0) {
            ::unlink(path_.c_str());
            ::close(fd_);
        }
    }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    fs::path path_;
    int fd_ = -1;
};

void writeOne(const fs::path& path, const ExportedFile& f)
{
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        throw InputError(path.parent_path().string(), "", "cannot create directory: " + ec.message());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, f.executable ? 0755 : 0644);
    if (fd < 0)
        throw InputError(path.string(), "", "cannot write: " + errnoText());
    const char* p = f.content.data();
    std::size_t left = f.content.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const std::string why = errnoText();
            ::close(fd);
            throw InputError(path.string(), "", "cannot write: " + why);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    // The mode asked for, whatever the umask: scripts must be executable.
    if (::fchmod(fd, f.executable ? 0755 : 0644) != 0 || ::fsync(fd) != 0) {
        const std::string why = errnoText();
        ::close(fd);
        throw InputError(path.string(), "", "cannot write: " + why);
    }
    if (::close(fd) != 0)
        throw InputError(path.string(), "", "cannot write: " + errnoText());
}

void syncDir(const fs::path& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Files (relative paths) under `dir`, the manifest left out.
std::set<std::string> filesIn(const fs::path& dir)
{
    std::set<std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_directory(ec))
            continue;
        const std::string rel = fs::relative(it->path(), dir, ec).string();
        if (rel != ExportFolder::kManifest)
            out.insert(rel);
    }
    return out;
}

std::set<std::string> manifestOf(const fs::path& dir)
{
    std::set<std::string> out;
    FILE* f = std::fopen((dir / ExportFolder::kManifest).c_str(), "r");
    if (!f)
        return out;
    char line[4096];
    while (std::fgets(line, sizeof line, f)) {
        std::string s(line);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
            s.pop_back();
        if (!s.empty() && s[0] != '#')
            out.insert(s);
    }
    std::fclose(f);
    return out;
}

// Swaps two paths in one step where the file system can (Linux >= 3.15).
bool exchange(const fs::path& a, const fs::path& b)
{
#ifdef SYS_renameat2
    constexpr unsigned kRenameExchange = 1u << 1;  // RENAME_EXCHANGE
    return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0;
#else
    (void)a;
    (void)b;
    errno = EINVAL;
    return false;
#endif
}

}  // namespace

namespace {

// The export's folder as an absolute path ("out/" -> "out"), its parent
// created; refused when it is a file or a file name is not one an export may write.
fs::path targetFolder(const std::string& dirText, const std::vector<ExportedFile>& files)
{
    if (dirText.empty())
        throw InputError("--out", "\"\"", "an empty path; give the folder to write");
    std::error_code ec;
    fs::path dir = fs::absolute(dirText, ec).lexically_normal();
    if (dir.filename().empty())
        dir = dir.parent_path();  // "out/" -> "out"
    const fs::path parent = dir.parent_path();
    fs::create_directories(parent, ec);
    if (ec || !fs::is_directory(parent))
        throw InputError(parent.string(), "",
                         "cannot create the folder that holds the export: "
                             + (ec ? ec.message() : std::string("not a folder")));
    if (fs::exists(dir) && !fs::is_directory(dir))
        throw InputError(dir.string(), "", "is a file, not a folder; choose a folder for the export");
    for (const auto& f : files) {
        const fs::path rel(f.name);
        if (f.name.empty() || rel.is_absolute() || f.name.find("..") != std::string::npos
            || f.name == ExportFolder::kManifest)
            throw InputError(dir.string(), f.name, "not a file name an export may write");
    }
    return dir;
}

// What is there must be ours: files the last export wrote, nothing else.
void refuseForeignFiles(const fs::path& dir)
{
    if (!fs::is_directory(dir))
        return;
    const std::set<std::string> present = filesIn(dir);
    const std::set<std::string> ours = manifestOf(dir);
    std::vector<std::string> foreign;
    for (const auto& f : present)
        if (!ours.count(f))
            foreign.push_back(f);
    if (!foreign.empty()) {
        std::string list;
        for (std::size_t i = 0; i < foreign.size() && i < 8; ++i)
            list += (i ? ", " : "") + foreign[i];
        if (foreign.size() > 8)
            list += " and " + std::to_string(foreign.size() - 8) + " more";
        throw InputError(dir.string(), "",
                         "holds files an export of this tool did not write (" + list
                             + "); the export replaces the whole folder, so choose an empty or new folder");
    }
}

// The new set (with its manifest) in the temporary folder `tmp`, synced.
void writeSet(const fs::path& tmp, const std::vector<ExportedFile>& files)
{
    std::string manifest = "# Files written by one MemX export; the next export into this folder replaces them.\n";
    for (const auto& f : files) {
        writeOne(tmp / f.name, f);
        manifest += f.name + "\n";
    }
    writeOne(tmp / ExportFolder::kManifest, ExportedFile{ExportFolder::kManifest, manifest, false});
    for (const auto& e : fs::recursive_directory_iterator(tmp))
        if (e.is_directory())
            syncDir(e.path());
    syncDir(tmp);
}

// `tmp` moved into place at `dir`, replacing an earlier set.
void moveIntoPlace(const fs::path& tmp, const fs::path& dir, const std::string& tempPrefix)
{
    std::error_code ec;
    const fs::path parent = dir.parent_path();
    if (!fs::exists(dir)) {
        if (::rename(tmp.c_str(), dir.c_str()) != 0)
            throw InputError(dir.string(), "", "cannot move the export into place: " + errnoText());
    } else if (exchange(tmp, dir)) {
        fs::remove_all(tmp, ec);  // the old set, now at the temporary name
    } else {
        // No atomic exchange here: move the old set aside, the new one in.
        const fs::path old = parent / (tempPrefix + "old");
        fs::remove_all(old, ec);
        if (::rename(dir.c_str(), old.c_str()) != 0)
            throw InputError(dir.string(), "", "cannot replace the earlier export: " + errnoText());
        if (::rename(tmp.c_str(), dir.c_str()) != 0) {
            const std::string why = errnoText();
            ::rename(old.c_str(), dir.c_str());
            throw InputError(dir.string(), "", "cannot move the export into place: " + why);
        }
        fs::remove_all(old, ec);
    }
    syncDir(parent);
}

}  // namespace

void ExportFolder::write(const std::string& dirText, const std::vector<ExportedFile>& files)
{
    const fs::path dir = targetFolder(dirText, files);
    const fs::path parent = dir.parent_path();
    const std::string name = dir.filename().string();
    std::error_code ec;
    const FolderLock lock(parent / ("." + name + ".memx-export-lock"));
    // Leftovers of an export that was killed (under the lock, no writer is alive).
    const std::string tempPrefix = "." + name + ".memx-export-";
    for (const auto& e : fs::directory_iterator(parent, ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind(tempPrefix, 0) == 0 && n != "." + name + ".memx-export-lock")
            fs::remove_all(e.path(), ec);
    }

    refuseForeignFiles(dir);

    // Write the new set beside the target.
    std::string tmpl = (parent / (tempPrefix + "XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
        throw InputError(parent.string(), "", "cannot create a temporary folder for the export: " + errnoText());
    const fs::path tmp(tmpl);
    try {
        writeSet(tmp, files);
        ::chmod(tmp.c_str(), 0755);  // mkdtemp makes it 0700
        moveIntoPlace(tmp, dir, tempPrefix);
    } catch (const InputError& e) {
        fs::remove_all(tmp, ec);
        // Name the file where the user will look for it, in the export
        // folder, not in the temporary folder just removed.
        const std::string t = tmp.string();
        if (e.file().compare(0, t.size(), t) != 0)
            throw;
        throw InputError((dir / fs::path(e.file().substr(t.size())).relative_path()).string(), e.field(), e.reason());
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
}

}  // namespace memx
