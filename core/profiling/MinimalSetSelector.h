#pragma once

#include <string>
#include <vector>

namespace memx {

struct MeasuredRun;

// The evaluation protocol of the accuracy report: the profiler's choice of a
// minimal set among the configurations a dataset already contains (MemX
// section 3.2.1 applied to a finite set). Per GPU type, every parameter that
// varies (micro-batch, sequence length, TP, PP, DP, layers, virtual stages,
// recomputation, global batch, query groups) contributes its three points
// (min, the value nearest the midpoint, max) and every model structure
// contributes itself; a greedy set cover then picks runs until each of these
// (type, parameter, value) pairs is held by a chosen run, taking at each step
// the run that covers most pairs still open (the first in input order on a tie).
struct MinimalSetSelector {
    // Indices into `runs`, ascending.
    static std::vector<int> select(const std::vector<MeasuredRun>& runs);
    // The complement of `chosen` in 0..n-1.
    static std::vector<int> rest(int n, const std::vector<int>& chosen);
};

}  // namespace memx
