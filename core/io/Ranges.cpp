#include "io/Ranges.h"

#include <cmath>
#include <cstdio>

namespace memx {

namespace {
// Integers up to 10^15 in full (10000000, not 1e+07); others in %g style.
std::string formatNumber(double v)
{
    char buf[64];
    if (std::fabs(v) < 1e15 && v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string withUnit(double v, const char* unit)
{
    return formatNumber(v) + (*unit ? std::string(" ") + unit : std::string());
}
}  // namespace

std::string Range::describe() const { return formatNumber(min) + "-" + withUnit(max, unit); }

std::string Range::whyOutside(double v, bool allowOutside, bool overridable, const char* overrideAt) const
{
    if (!std::isfinite(v))
        return "must be a finite number";
    if (zeroAllowed ? v < 0 : v <= 0)
        return std::string(zeroAllowed ? "must not be negative" : "must be greater than 0") + " (got "
            + withUnit(v, unit) + ")";
    if ((v < min || v > max) && !(allowOutside && overridable))
        return std::string(what) + " " + withUnit(v, unit) + " is outside the plausible range " + describe()
            + (overridable ? std::string("; if it is real, set \"allow_outside_range\": true on ") + overrideAt : "");
    if (v > hardMax)
        return std::string(what) + " " + withUnit(v, unit) + " is too large (at most " + withUnit(hardMax, unit) + ")";
    return {};
}

}  // namespace memx
