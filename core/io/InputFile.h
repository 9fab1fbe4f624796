#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace memx {

// Reads a whole input file, refusing what is not one: a folder, a pipe, a
// device (/dev/zero would be read until memory ran out) or a file larger
// than `maxBytes`. `what` names the kind of file in messages ("the
// Megatron-LM log"). Throws InputError naming the file and the reason.
struct InputFile {
    static std::string read(const std::string& file, std::uintmax_t maxBytes, const std::string& what);
    // The same checks, then the open stream, for readers that take the file
    // a piece at a time (logs far larger than what is kept of them).
    static std::ifstream open(const std::string& file, std::uintmax_t maxBytes, const std::string& what);
    // The documented limits (docs/FILE_FORMATS.md).
    static constexpr std::uintmax_t kMaxJsonBytes = 256ull << 20;
    static constexpr std::uintmax_t kMaxCsvBytes = 1ull << 30;
    static constexpr std::uintmax_t kMaxLogBytes = 4ull << 30;
};

}  // namespace memx
