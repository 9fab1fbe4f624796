#include "measure/Measurement.h"

namespace memx {

const char* toString(MeasurementSource s)
{
    switch (s) {
    case MeasurementSource::Measured: return "measured";
    case MeasurementSource::Simulated: return "simulated";
    case MeasurementSource::Interpolated: return "interpolated";
    }
    return "?";
}

bool parseMeasurementSource(const std::string& s, MeasurementSource& out)
{
    if (s == "measured")
        out = MeasurementSource::Measured;
    else if (s == "simulated")
        out = MeasurementSource::Simulated;
    else if (s == "interpolated")
        out = MeasurementSource::Interpolated;
    else
        return false;
    return true;
}

}  // namespace memx
