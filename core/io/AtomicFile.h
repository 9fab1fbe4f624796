#pragma once

#include <string>

namespace memx {

// Writes the whole content to a temporary file in the target's directory,
// flushes it and renames it over the target, so a reader never sees a
// half-written file and a crash leaves the previous version intact.
// Throws InputError naming the file when anything fails.
void writeFileAtomically(const std::string& path, const std::string& content);

// Process-wide bookkeeping of the writes in progress, for a program that
// stops on a signal: it must not exit between a write's temporary file and
// its rename (app/cli/Interrupt waits for the hook instead). Async-signal-safe.
struct AtomicWrites {
    static bool inProgress();
    // Called on the writing thread each time the last write in progress ends
    // (renamed, or failed and cleaned up).
    static void setDoneHook(void (*hook)());
};

}  // namespace memx
