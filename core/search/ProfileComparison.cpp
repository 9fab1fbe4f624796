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

std::string absolute(double base, double other, VarianceMode mode)
{
    const bool mib = mode == VarianceMode::AbsoluteMiB;
    const double scale = mib ? 1.0 / (1024.0 * 1024.0) : 1.0;  // MiB^2 -> GiB^2
    const double a = base * scale, b = other * scale;
    char buf[128];
    // Three significant digits tell 0.13 from 0.0013; equal at that precision is "same".
    char sa[32], sb[32];
    std::snprintf(sa, sizeof sa, "%.3g", a);
    std::snprintf(sb, sizeof sb, "%.3g", b);
    if (std::string(sa) == sb)
        std::snprintf(buf, sizeof buf, "same memory variance");
    else
        std::snprintf(buf, sizeof buf, "memory variance %s -> %s %s", sa, sb, mib ? "GiB^2" : "(utilisation^2)");
    return buf;
}
}  // namespace

std::string ProfileComparison::differences(const Plan& base, const Plan& other, VarianceMode mode)
{
    if (base.key == other.key)
        return "the same plan";
    char head[96];
    std::snprintf(head, sizeof head, "lowest headroom %.0f%% -> %.0f%%", 100 * base.minHeadroom(),
                  100 * other.minHeadroom());
    // rankMs: the time the search ranked by (per token under --compare-tasks per-token).
    const char* time = base.rankScale == 1 && other.rankScale == 1 ? "time" : "time per token";
    return relative(base.rankMs(), other.rankMs(), time) + ", " + absolute(base.varMem, other.varMem, mode) + ", "
        + relative(base.maxMemMiB, other.maxMemMiB, "peak memory") + ", " + head;
}

}  // namespace memx
