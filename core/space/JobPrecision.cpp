#include "space/JobPrecision.h"

#include "hardware/Cluster.h"
#include "io/InputError.h"
#include "space/Problem.h"

namespace memx {

Precision jobPrecision(const Problem& problem)
{
    return jobPrecision(problem.setup.precision, problem.cluster);
}

Precision jobPrecision(const std::string& setting, const Cluster& cluster)
{
    auto everyTypeHas = [&](Precision p) {
        for (const GpuType& t : cluster.types())
            if (!t.hasPrecision(p))
                return false;
        return true;
    };
    if (setting.empty() || setting == "auto")
        return autoPrecision(everyTypeHas);
    Precision p;
    if (!parsePrecision(setting, p))
        throw InputError("training setup", "precision",
                         "unknown precision \"" + setting + "\" (auto, " + precisionChoices() + ")");
    std::string lacking;
    for (const GpuType& t : cluster.types()) {
        if (t.hasPrecision(p))
            continue;
        std::string has;
        for (int i = 0; i < kPrecisions; ++i)
            if (t.hasPrecision(Precision(i)))
                has += std::string(has.empty() ? "" : ", ") + toString(Precision(i));
        const bool listed = t.hasPrecision(std::string(toString(p)));
        lacking += std::string(lacking.empty() ? "" : "; ") + t.name
            + (listed ? " (the catalog gives no " + setting + " peak, peak_tflops." + setting + ")"
                      : " (has " + (has.empty() ? std::string("none") : has) + ")");
    }
    if (!lacking.empty())
        throw InputError("training setup", "precision",
                         "every GPU of a job trains in one precision, and " + setting + " is not available on "
                             + lacking + "; choose another precision or auto");
    return p;
}

}  // namespace memx
