#pragma once

#include <limits>

namespace memx {

// Numbers the sources share (one definition each: the core folders compile
// as unity batches, MEMX_UNITY, where two would clash).

// "No bound yet" and "never".
inline constexpr double kInf = std::numeric_limits<double>::infinity();
// "Not measured" / "no value" in metrics.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Search bounds are lowered by this relative margin, so that summing in
// another order than the leaf does can never make a bound exceed the value
// it bounds (SplitBounds, SplitSearch).
inline constexpr double kBoundSlack = 1e-9;

}  // namespace memx
