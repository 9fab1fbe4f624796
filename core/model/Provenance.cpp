#include "model/Provenance.h"

namespace memx {

const char* toString(Provenance p)
{
    switch (p) {
    case Provenance::Analytic: return "analytic";
    case Provenance::Learned: return "learned";
    case Provenance::Cached: return "cached";
    case Provenance::Extrapolated: return "extrapolated";
    }
    return "?";
}

}  // namespace memx
