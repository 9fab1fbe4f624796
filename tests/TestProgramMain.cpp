// The main of a program holding several tests (TestMain.h): runs the test named
// by the name the program was started as (a link named tst_x), or by its first
// argument; the other arguments are Qt Test's.

#include "TestMain.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace {

std::map<std::string, memx::test::TestEntry>& tests()
{
    static std::map<std::string, memx::test::TestEntry> registered;
    return registered;
}

// Two sources of one name in one program: a build mistake, reported by main.
bool& twoOfOneName()
{
    static bool seen = false;
    return seen;
}

std::string stem(const char* path)
{
    std::string name(path);
    if (const auto slash = name.find_last_of('/'); slash != std::string::npos)
        name.erase(0, slash + 1);
    if (const auto dot = name.find('.'); dot != std::string::npos)
        name.erase(dot);
    return name;
}

int usage(const char* program, int status)
{
    std::FILE* out = status == 0 ? stdout : stderr;
    std::fprintf(out, "usage: %s TEST [Qt Test options]  (or start it through a link named TEST)\ntests:\n", program);
    for (const auto& [name, entry] : tests())
        std::fprintf(out, "  %s\n", name.c_str());
    return status;
}

}  // namespace

bool memx::test::registerTest(const char* sourceFile, TestEntry entry)
{
    const auto [it, added] = tests().emplace(stem(sourceFile), entry);
    if (!added) {
        std::fprintf(stderr, "two tests named %s in one program\n", it->first.c_str());
        twoOfOneName() = true;
    }
    return added;
}

int main(int argc, char** argv)
{
    if (argc < 1 || twoOfOneName())
        return 2;
    if (const auto it = tests().find(stem(argv[0])); it != tests().end())
        return it->second(argc, argv);
    if (argc < 2)
        return usage(argv[0], 2);
    if (std::strcmp(argv[1], "--list") == 0 || std::strcmp(argv[1], "--help") == 0)
        return usage(argv[0], 0);
    if (const auto it = tests().find(argv[1]); it != tests().end())
        return it->second(argc - 1, argv + 1);
    std::fprintf(stderr, "no test named %s in this program\n", argv[1]);
    return usage(argv[0], 2);
}
