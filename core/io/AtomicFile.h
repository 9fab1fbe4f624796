#pragma once

#include <string>

namespace memx {

// Writes the whole content to a temporary file in the target's directory,
// flushes it and renames it over the target, so a reader never sees a
// half-written file and a crash leaves the previous version intact.
// Throws InputError naming the file when anything fails.
void writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace memx
