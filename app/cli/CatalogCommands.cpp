#include "cli/Commands.h"

#include "hardware/Cluster.h"
#include "hardware/ClusterGenerator.h"
#include "io/AtomicFile.h"
#include "hardware/GpuCatalog.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

#include <cstdio>
#include <string>
#include <iostream>

namespace memx::cli {

void addCatalogCommands(CLI::App& app, int& exitCode)
{
    auto* gpus = app.add_subcommand("gpus", "List the built-in GPU catalog");
    gpus->callback([&exitCode] {
        std::printf("%-14s %-10s %10s %8s %10s %6s %5s %8s %8s  %s\n", "type", "vendor", "TFLOP/s", "GiB", "GB/s",
                    "eff", "SMs", "us/kern", "ms/iter", "source");
        for (const auto& [name, t] : GpuCatalog::builtin().types())
            std::printf("%-14s %-10s %10.1f %8.0f %10.0f %6.2f %5s %8.0f %8.0f  %s\n", name.c_str(), t.vendor.c_str(),
                        t.peakTflopsBf16, t.memoryGiB, t.memoryBandwidthGBps, t.defaultEfficiency,
                        t.smCount > 0 ? std::to_string(t.smCount).c_str() : "-", t.launchOverheadUs,
                        t.iterationOverheadMs, t.source.c_str());
        exitCode = Ok;
    });
    auto* models = app.add_subcommand("models", "List the built-in model presets");
    models->callback([&exitCode] {
        std::printf("%-12s %6s %7s %6s %7s %7s %7s %8s %6s %10s\n", "name", "layers", "hidden", "heads", "groups",
                    "ffn", "vocab", "seq", "mlp", "params(B)");
        for (const auto& m : ModelSpec::presets())
            std::printf("%-12s %6d %7d %6d %7d %7d %7d %8d %6s %10.2f\n", m.name.c_str(), m.numLayers, m.hidden,
                        m.heads, m.queryGroups, m.ffnHidden, m.vocab, m.seqLen, toString(m.mlp),
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

    auto* generate = app.add_subcommand(
        "generate-cluster", "Write a cluster of N nodes (GPU types in turn, vendor fabric inside, InfiniBand between)");
    static ClusterGenerator::Spec spec;
    static std::string types = "A100-80GB", out;
    generate->add_option("--nodes", spec.nodes, "Number of nodes")->check(CLI::Range(1, 4096))->capture_default_str();
    generate->add_option("--gpus-per-node", spec.gpusPerNode, "GPUs in each node")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    generate->add_option("--types", types, "GPU types, comma separated; node n gets type n mod count")
        ->capture_default_str();
    generate->add_option("--inter-node-gbps", spec.interNodeGBps, "Inter-node bandwidth per GPU and direction, GB/s")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    generate->add_option("--name", spec.name, "Cluster name")->capture_default_str();
    generate->add_option("--out", out, "Output file (memx-cluster/1 JSON)")->required();
    generate->callback([&exitCode] {
        spec.types.clear();
        std::size_t start = 0;
        while (start <= types.size()) {
            const std::size_t comma = types.find(',', start);
            spec.types.push_back(types.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        const nlohmann::json doc = ClusterGenerator::generate(spec);
        // Validate before writing, so a wrong type name fails here with the field named.
        Cluster c = Cluster::fromJson(doc, out, GpuCatalog::builtin());
        writeFileAtomically(out, doc.dump(1) + "\n");
        std::cout << out << ": " << c.deviceCount() << " GPUs in " << c.nodes().size() << " nodes, " << c.links().size()
                  << " links\n";
        exitCode = Ok;
    });
}

}  // namespace memx::cli
