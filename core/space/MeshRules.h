#pragma once

#include <string>

namespace memx {

// FlagScale's rules for heterogeneous process meshes (--hetero-process-meshes;
// ../shared/reference/EXPORT_AND_LOGS.md section 3, from FlagScale's
// arguments.py), in one place for the search's enumerator, the plan reader
// and the FlagScale export, so that what the search offers the reader takes
// and the export writes.
struct MeshRules {
    // A mesh's micro-batch: global DP is mesh 0's, so mesh i runs
    // dp0 x mbs / dp_i samples per micro-batch; 0 when that is not whole.
    static int meshMicroBatch(int dp0, int mbs, int dp);
    // With tied embeddings the first and last meshes hold the shared
    // embedding: their TPs must be equal, and with the distributed optimizer
    // DPs that differ must divide one another. Empty when the rules hold,
    // else the rule broken, with the values.
    static std::string tiedEmbeddings(int firstTp, int lastTp, int firstDp, int lastDp, bool distributedOptimizer);
};

}  // namespace memx
