#pragma once

#include <initializer_list>
#include <string>

namespace memx {

// The value among `values` whose toString() is `s`: the one way an enum is
// read back from the name it is written with (setup modes, profiles, rules).
template <typename Enum> bool parseByName(const std::string& s, Enum& out, std::initializer_list<Enum> values)
{
    for (Enum v : values)
        if (s == toString(v)) {
            out = v;
            return true;
        }
    return false;
}

}  // namespace memx
