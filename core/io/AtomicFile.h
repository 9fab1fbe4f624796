#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace memx {

// Writes the whole content to a temporary file in the target's directory
// (.<name>.memx-tmp-<pid>-XXXXXX), flushes it and renames it over the target,
// then flushes the directory, so a reader never sees a half-written file and
// a crash leaves the previous version intact. Temporary files of writers
// that were killed (their process is gone) are removed by the next write in
// the same directory. Throws InputError naming the file when anything fails.
void writeFileAtomically(const std::string& path, const std::string& content);

// The outputs of one command as one set: every file's temporary is written
// and flushed before any is renamed, so a full disk or a failed write leaves
// every target as it was (no new JSON beside the previous run's CSV). Before
// the renames, a journal of them (.memx-set.memx-tmp-<pid>-XXXXXX, one copy
// in each folder of the set) is flushed; a kill between two renames leaves it
// behind, and the next write or clearAbandoned() in any of those folders
// finishes the renames (the new set, whole) before it removes leftovers.
// Throws InputError naming the file.
struct OutputFile {
    std::string path;
    std::string content;
};
void writeFilesAtomically(const std::vector<OutputFile>& files);

// Process-wide bookkeeping of the writes in progress, for a program that
// stops on a signal: it must not exit between a write's temporary file and
// its rename (app/cli/Interrupt waits for the hook instead). Async-signal-safe.
struct AtomicWrites {
    // Removes the temporary files that killed writers left beside `path`
    // (their process is gone): a command calls it for each of its outputs as
    // it starts, so that leftovers go even when it then fails before writing.
    static void clearAbandoned(const std::string& path);
    static bool inProgress();
    // Called on the writing thread each time the last write in progress ends
    // (renamed, or failed and cleaned up).
    static void setDoneHook(void (*hook)());
    // For tests: called after each rename of a set with the count renamed so
    // far (a test process stops there to stand for a kill).
    static void setRenameHook(void (*hook)(std::size_t renamed));
};

}  // namespace memx
