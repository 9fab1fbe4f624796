#include "cli/Commands.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

#include <cstdio>
#include <iostream>

namespace memx::cli {

void addCatalogCommands(CLI::App& app, int& exitCode)
{
    auto* gpus = app.add_subcommand("gpus", "List the built-in GPU catalog");
    gpus->callback([&exitCode] {
        std::printf("%-14s %-10s %10s %8s %10s %6s  %s\n", "type", "vendor", "TFLOP/s", "GiB", "GB/s", "eff",
                    "source");
        for (const auto& [name, t] : GpuCatalog::builtin().types())
            std::printf("%-14s %-10s %10.1f %8.0f %10.0f %6.2f  %s\n", name.c_str(), t.vendor.c_str(),
                        t.peakTflopsBf16, t.memoryGiB, t.memoryBandwidthGBps, t.defaultEfficiency,
                        t.source.c_str());
        exitCode = Ok;
    });
    auto* models = app.add_subcommand("models", "List the built-in model presets");
    models->callback([&exitCode] {
        std::printf("%-12s %6s %7s %6s %7s %7s %7s %8s %6s %10s\n", "name", "layers", "hidden", "heads", "groups",
                    "ffn", "vocab", "seq", "", "params(B)");
        for (const auto& m : ModelSpec::presets())
            std::printf("%-12s %6d %7d %6d %7d %7d %7d %8d %6s %10.2f\n", m.name.c_str(), m.numLayers, m.hidden,
                        m.heads, m.queryGroups, m.ffnHidden, m.vocab, m.seqLen, "",
                        TransformerMath::totalParams(m) / 1e9);
        exitCode = Ok;
    });
    auto* validate = app.add_subcommand("validate", "Check a cluster file and summarise it");
    static std::string clusterFile;
    validate->add_option("cluster", clusterFile, "memx-cluster/1 JSON file")->required();
    validate->callback([&exitCode] {
        Cluster c = Cluster::fromFile(clusterFile);
        std::cout << c.name() << ": " << c.deviceCount() << " GPUs in " << c.nodes().size() << " nodes, "
                  << c.links().size() << " links\n";
        for (const auto& g : c.groups())
            std::cout << "  group " << g.name << ": " << g.devices.size() << " x " << c.types()[g.type].name << "\n";
        exitCode = Ok;
    });
}

}  // namespace memx::cli
