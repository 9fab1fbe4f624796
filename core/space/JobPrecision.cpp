#include "space/JobPrecision.h"

#include "hardware/Cluster.h"
#include "io/InputError.h"
#include "space/Problem.h"

namespace memx {

Precision jobPrecision(const Problem& problem) { return jobPrecision(problem.setup.precision, problem.cluster); }

Precision jobPrecision(const std::string& setting, const Cluster& cluster)
{
    auto everyTypeHas = [&](Precision p) {
        for (const GpuType& t : cluster.types())
            if (!t.hasPrecision(p))
                return false;
        return true;
    };
    const bool automatic = setting.empty() || setting == "auto";
    Precision p = Precision::Fp32;
    if (automatic) {
        p = autoPrecision(everyTypeHas);
        if (everyTypeHas(p))
            return p;
    } else if (!parsePrecision(setting, p)) {
        throw InputError("training setup", "precision",
                         "unknown precision \"" + setting + "\" (auto, " + precisionChoices() + ")");
    }
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
            + (listed ? std::string(" (the catalog gives no ") + toString(p) + " peak, peak_tflops." + toString(p) + ")"
                      : " (has " + (has.empty() ? std::string("none") : has) + ")");
    }
    if (!lacking.empty())
        throw InputError("training setup", "precision",
                         automatic ? "every GPU of a job trains in one precision, and no precision is available on "
                                     "every GPU type: fp32 is missing on "
                                 + lacking
                                   : "every GPU of a job trains in one precision, and " + setting
                                 + " is not available on " + lacking + "; choose another precision or auto");
    return p;
}

}  // namespace memx
