#include "megatron/PipelineLayout.h"

#include "io/LogText.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace memx {

namespace {

using T = LogText;

// The digits after "*" at s[pos]; throws when there are none.
int repeatCount(const std::string& s, size_t pos, size_t& end)
{
    long long n = 0;
    const size_t d = pos < s.size() ? T::takeDigits(std::string_view(s).substr(pos), n) : 0;
    if (d == 0)
        throw std::invalid_argument("\"*\" without a count at position " + std::to_string(pos));
    end = pos + d;
    return static_cast<int>(n);
}

std::string repeat(const std::string& piece, int n)
{
    std::string out;
    for (int i = 0; i < n; ++i)
        out += piece;
    return out;
}

// "(...)*n" first, innermost first.
std::string expandGroups(std::string s)
{
    for (size_t close; (close = s.find(')')) != std::string::npos;) {
        const size_t open = s.rfind('(', close);
        if (open == std::string::npos || close + 1 >= s.size() || s[close + 1] != '*')
            throw std::invalid_argument("unbalanced \"(...)\" or a group without \"*n\"");
        size_t end = 0;
        const int n = repeatCount(s, close + 2, end);
        s = s.substr(0, open) + repeat(s.substr(open + 1, close - open - 1), n) + s.substr(end);
    }
    if (s.find('(') != std::string::npos)
        throw std::invalid_argument("unbalanced \"(\"");
    return s;
}

// Then "x*n".
std::string expandSymbols(const std::string& s)
{
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '*') {
            out += s[i];
            continue;
        }
        if (out.empty() || out.back() == '|')
            throw std::invalid_argument("\"*\" without a symbol before it");
        size_t end = 0;
        const int n = repeatCount(s, i + 1, end);
        const char symbol = out.back();
        out.pop_back();
        out += std::string(static_cast<size_t>(n), symbol);
        i = end - 1;
    }
    return out;
}

}  // namespace

std::vector<int> PipelineLayout::entries(std::string_view layout)
{
    std::string s;
    for (const char c : layout)
        if (c != ',' && !T::isSpace(c))
            s += c;
    s = expandSymbols(expandGroups(s));
    std::vector<int> out(1, 0);
    int embeddings = 0, losses = 0;
    for (const char c : s) {
        switch (c) {
        case '|': out.push_back(0); break;
        case 't': ++out.back(); break;
        case 'E': ++embeddings; break;
        case 'L': ++losses; break;
        case 'm': break;
        default: throw std::invalid_argument(std::string("unknown layer symbol '") + c + "' (E, t, m, L)");
        }
    }
    if (embeddings != 1 || losses != 1)
        throw std::invalid_argument("needs exactly one E and one L");
    return out;
}

std::vector<int> PipelineLayout::stageLayers(const std::vector<int>& entries, int pp, int& virtualStages)
{
    const int n = static_cast<int>(entries.size());
    if (pp < 1 || n % pp != 0)
        throw std::invalid_argument(std::to_string(n) + " stages in the layout is not a multiple of PP "
                                    + std::to_string(pp));
    virtualStages = n / pp;
    std::vector<int> layers(static_cast<size_t>(pp), 0);
    for (int i = 0; i < n; ++i)
        layers[static_cast<size_t>(i % pp)] += entries[static_cast<size_t>(i)];
    return layers;
}

std::vector<int> PipelineLayout::firstLast(int layers, int pp, std::optional<int> first, std::optional<int> last)
{
    const int given = (first ? 1 : 0) + (last ? 1 : 0);
    const int rest = layers - first.value_or(0) - last.value_or(0);
    const int middle = pp - given;
    if (middle < 0 || rest < 0 || (middle == 0 && rest != 0) || (middle > 0 && rest % middle != 0))
        throw std::invalid_argument(std::to_string(rest) + " layers left do not split evenly over the "
                                    + std::to_string(std::max(middle, 0)) + " other stage(s)");
    std::vector<int> out(static_cast<size_t>(pp), middle > 0 ? rest / middle : 0);
    if (first)
        out.front() = *first;
    if (last)
        out.back() = *last;
    return out;
}

std::vector<int> PipelineLayout::even(int layers, int pp, bool embeddingCounts, bool lossCounts)
{
    const int units = layers + (embeddingCounts ? 1 : 0) + (lossCounts ? 1 : 0);
    if (pp < 1 || units % pp != 0)
        throw std::invalid_argument(std::to_string(units) + " layers"
                                    + (units != layers ? " (with embedding/loss)" : "")
                                    + " do not split evenly over PP " + std::to_string(pp));
    std::vector<int> out(static_cast<size_t>(pp), units / pp);
    if (embeddingCounts)
        --out.front();
    if (lossCounts)
        --out.back();
    return out;
}

}  // namespace memx
