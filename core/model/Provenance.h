#pragma once

namespace memx {

// Where a predicted number came from (DESIGN.md's honesty rules).
enum class Provenance { Analytic, Learned, Cached, Extrapolated };
const char* toString(Provenance p);

}  // namespace memx
