// Replays fuzz inputs without libFuzzer (the GCC build, CTest's
// fuzz_replay_<parser> tests): every regular file of each directory given
// (not recursive, names starting with '.' skipped) is fed once to the
// target's LLVMFuzzerTestOneInput. A directory that does not exist is an
// error, and so is finding no input at all, so that a moved corpus cannot
// turn the test into a no-op. A crash, sanitizer report or escaping
// exception ends the process; the file being replayed is printed first.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    std::size_t replayed = 0;
    for (int i = 1; i < argc; ++i) {
        const fs::path dir = argv[i];
        if (!fs::is_directory(dir)) {
            std::fprintf(stderr, "%s: not a directory\n", argv[i]);
            return 2;
        }
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.is_regular_file() && entry.path().filename().string().rfind('.', 0) != 0)
                files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& f : files) {
            std::fprintf(stderr, "replaying %s\n", f.string().c_str());
            std::ifstream in(f, std::ios::binary);
            const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            ++replayed;
        }
    }
    if (replayed == 0) {
        std::fprintf(stderr, "no input replayed\n");
        return 2;
    }
    std::printf("%zu inputs replayed\n", replayed);
    return 0;
}
