#include "cli/PredictorOption.h"

#include <iostream>

namespace memx::cli {

LoadedPredictor loadPredictor(const std::string& nameOrFile)
{
    LoadedPredictor out;
    if (nameOrFile.empty() || nameOrFile == "analytic") {
        out.label = "analytic";
        return out;
    }
    PredictorFile::Loaded loaded = PredictorFile::load(nameOrFile);
    out.learned = loaded.predictor.get();
    out.predictor = std::move(loaded.predictor);
    out.metadata = std::move(loaded.metadata);
    out.label = "learned (" + nameOrFile + ")";
    out.file = nameOrFile;
    return out;
}

std::string warnTopology(const LoadedPredictor& p, const Cluster* cluster, const std::vector<std::string>& gpuTypes)
{
    if (!p.learned)
        return {};
    const std::string w = p.metadata.topology.mismatch(cluster, p.file, gpuTypes);
    if (!w.empty())
        std::cerr << "warning: " << w << "\n";
    return w;
}

void printWarnings(const std::vector<std::string>& warnings)
{
    for (const std::string& w : warnings)
        std::cerr << "warning: " << w << "\n";
}

}  // namespace memx::cli
