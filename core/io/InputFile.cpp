#include "io/InputFile.h"

#include "io/InputError.h"

#include <filesystem>
#include <fstream>
#include <new>

namespace memx {

void InputFile::readInPieces(const std::string& file, std::uintmax_t maxBytes, const std::string& what,
                             const Piece& piece, std::size_t pieceBytes)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (ec || !fs::exists(status))
        throw InputError(file, "", "cannot open file: no such file (expected " + what + ")");
    if (fs::is_directory(status))
        throw InputError(file, "", "is a folder, not " + what);
    if (!fs::is_regular_file(status))
        throw InputError(file, "", "is not a regular file (a pipe, a device or a socket); give " + what);
    const std::uintmax_t size = fs::file_size(file, ec);
    if (!ec && size > maxBytes)
        throw InputError(file, "",
                         "is " + std::to_string(size >> 20) + " MiB; " + what + " may be at most "
                             + std::to_string(maxBytes >> 20) + " MiB");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw InputError(file, "", "cannot open file (" + what + "): permission denied or unreadable");
    std::string chunk(pieceBytes, '\0');
    std::uintmax_t total = 0;
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
        const auto n = static_cast<std::size_t>(in.gcount());
        total += n;
        if (total > maxBytes)
            throw InputError(file, "",
                             "grew past " + std::to_string(maxBytes >> 20) + " MiB while it was read; " + what
                                 + " may be at most that");
        piece(std::string_view(chunk.data(), n));
    }
    if (in.bad())
        throw InputError(file, "", "cannot read " + what);
}

std::string InputFile::read(const std::string& file, std::uintmax_t maxBytes, const std::string& what)
{
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    try {
        // Straight into the string, sized once: a stream buffer would hold
        // the text twice (and more while it grows) before handing it over.
        std::string text;
        if (!ec && size <= maxBytes)
            text.reserve(static_cast<std::size_t>(size));
        readInPieces(
            file, maxBytes, what, [&](std::string_view piece) { text.append(piece); }, std::size_t{1} << 16);
        return text;
    } catch (const std::bad_alloc&) {
        throw InputError(file, "", "not enough memory to read " + what + " (" + std::to_string(size >> 20) + " MiB)");
    }
}

}  // namespace memx
