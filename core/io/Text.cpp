#include "io/Text.h"

#include <cstdio>

namespace memx {

std::string Text::fmt(const char* format, double value)
{
    char buf[128];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string Text::joinInts(const std::vector<int>& values, const char* separator)
{
    std::string out;
    for (int v : values) out += (out.empty() ? "" : separator) + std::to_string(v);
    return out;
}

std::string Text::join(const std::vector<std::string>& values, const char* separator)
{
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + values[i];
    return out;
}

}  // namespace memx
