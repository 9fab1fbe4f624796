#pragma once

#include <string>
#include <vector>

namespace memx {

struct ExportedFile;

// Writes an export's files into `dir` as one set (docs/EXPORT.md, "One
// export, one set"):
// - the files are written into a temporary folder beside `dir`
//   (.<dir>.memx-export-XXXXXX), flushed, and the folder is swapped with
//   `dir` in one rename (renameat2 RENAME_EXCHANGE; two renames where the
//   file system lacks it), so `dir` holds the old set or the new one, never
//   a mix, and a failed export leaves it as it was;
// - files of an earlier export that the new set lacks go with the old
//   folder: the tool records what it wrote in `dir`/.memx-export, and a
//   folder holding files it did not write is refused, naming them;
// - a lock (.<dir>.memx-export-lock beside it, flock) refuses a second
//   export into the same folder while one runs; leftovers of a killed
//   export are removed under that lock.
// Throws InputError naming the folder or file and the reason.
struct ExportFolder {
    static void write(const std::string& dir, const std::vector<ExportedFile>& files);
    // The manifest's name inside an export folder.
    static constexpr const char* kManifest = ".memx-export";
};

}  // namespace memx
