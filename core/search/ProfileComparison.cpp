#include "search/ProfileComparison.h"

#include "space/Plan.h"

#include <cmath>
#include <cstdio>

namespace memx {

namespace {
std::string relative(double base, double other, const char* what)
{
    char buf[96];
    if (base == 0 && other == 0)
        std::snprintf(buf, sizeof buf, "same %s", what);
    else if (base == 0)
        std::snprintf(buf, sizeof buf, "%s from 0", what);
    else {
        double pct = 100.0 * (other - base) / std::abs(base);
        if (std::abs(pct) < 0.05)
            std::snprintf(buf, sizeof buf, "same %s", what);
        else
            std::snprintf(buf, sizeof buf, "%+.*f%% %s", std::abs(pct) < 10 ? 1 : 0, pct, what);
    }
    return buf;
}
}  // namespace

std::string ProfileComparison::differences(const Plan& base, const Plan& other)
{
    if (base.key == other.key)
        return "the same plan";
    char head[96];
    std::snprintf(head, sizeof head, "lowest headroom %.0f%% -> %.0f%%", 100 * base.minHeadroom(),
                  100 * other.minHeadroom());
    return relative(base.iterationMs, other.iterationMs, "time") + ", "
        + relative(base.varMem, other.varMem, "memory variance") + ", "
        + relative(base.maxMemMiB, other.maxMemMiB, "peak memory") + ", " + head;
}

}  // namespace memx
