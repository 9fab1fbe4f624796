#include "io/InputFile.h"

#include "io/InputError.h"

#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

namespace memx {

std::string InputFile::read(const std::string& file, std::uintmax_t maxBytes, const std::string& what)
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
    try {
        std::ostringstream buf;
        buf << in.rdbuf();
        if (in.bad())
            throw InputError(file, "", "cannot read " + what);
        return std::move(buf).str();
    } catch (const std::bad_alloc&) {
        throw InputError(file, "", "not enough memory to read " + what + " (" + std::to_string(size >> 20) + " MiB)");
    }
}

}  // namespace memx
