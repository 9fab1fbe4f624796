#pragma once

// Shared by every fuzz target (tests/fuzz/fuzz_*.cpp). A target feeds the
// input to one reader; success and memx::InputError (the documented refusal,
// which names file, field and reason) are the expected outcomes. Any other
// exception is left to escape so that libFuzzer (or the replay driver, via
// std::terminate) reports it: a raw nlohmann or std exception reaching the
// user is a bug.

#include "io/InputError.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace memx::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `parse`; InputError is the reader saying no, which is fine.
template <class Parse> int acceptOrRefuse(Parse&& parse)
{
    try {
        parse();
    } catch (const InputError& e) {
        // A refusal must say where and why.
        if (e.file().empty() || e.reason().empty()) {
            std::fprintf(stderr, "InputError without file or reason: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}

// An invariant of accepted input that does not hold: abort with the reason.
[[noreturn]] inline void broken(const std::string& what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

}  // namespace memx::fuzz
