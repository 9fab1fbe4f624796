#include "space/MeshRules.h"

namespace memx {

int MeshRules::meshMicroBatch(int dp0, int mbs, int dp)
{
    if (dp0 < 1 || mbs < 1 || dp < 1)
        return 0;
    const long long samples = static_cast<long long>(dp0) * mbs;
    return samples % dp == 0 ? static_cast<int>(samples / dp) : 0;
}

std::string MeshRules::tiedEmbeddings(int firstTp, int lastTp, int firstDp, int lastDp, bool distributedOptimizer)
{
    if (firstTp != lastTp)
        return "with tied embeddings the first and the last mesh need the same TP (" + std::to_string(firstTp) + " vs "
            + std::to_string(lastTp) + ")";
    if (distributedOptimizer && firstDp != lastDp && firstDp % lastDp != 0 && lastDp % firstDp != 0)
        return "with tied embeddings and the distributed optimizer the first and last meshes' DP must divide one "
               "another ("
            + std::to_string(firstDp) + " and " + std::to_string(lastDp) + ")";
    return {};
}

}  // namespace memx
