#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace memx {

// Reads a whole input file, refusing what is not one: a folder, a pipe, a
// device (/dev/zero would be read until memory ran out) or a file larger
// than `maxBytes`. `what` names the kind of file in messages ("the
// Megatron-LM log"). Throws InputError naming the file and the reason.
struct InputFile {
    static std::string read(const std::string& file, std::uintmax_t maxBytes, const std::string& what);
    // The same checks, then the file handed to `piece` a piece of at most
    // `pieceBytes` at a time: for readers that keep far less than the file
    // (logs), and for read() itself.
    using Piece = std::function<void(std::string_view)>;
    static void readInPieces(const std::string& file, std::uintmax_t maxBytes, const std::string& what,
                             const Piece& piece, std::size_t pieceBytes = std::size_t{1} << 20);
    // The documented limits (docs/FILE_FORMATS.md).
    static constexpr std::uintmax_t kMaxJsonBytes = 256ull << 20;
    static constexpr std::uintmax_t kMaxCsvBytes = 1ull << 30;
    static constexpr std::uintmax_t kMaxLogBytes = 4ull << 30;
};

}  // namespace memx
