#pragma once

#include <QString>

#include <nlohmann/json.hpp>

namespace memx {

// A node ready to add: its memx-cluster/1 `nodes[]` entry and the links inside
// it, with a one-line description for the status bar. Built from a GPU type by
// one of the templates the editor offers (Edit > Add Node From Template, the
// canvas's context menu, a palette type dropped on empty canvas).
struct NodeTemplate {
    enum class Kind {
        // One switched fabric over the whole node: the fabric the type ships
        // with (ClusterGenerator::intraNodeFabric): NVLink through NVSwitch for
        // NVIDIA SXM parts, xGMI for AMD, HCCS for Ascend, a shared PCIe
        // switch for PCIe cards and for other vendors' types.
        Fabric,
        // PCIe cards in pairs behind a PCIe switch each, the two pairs of a
        // CPU socket joined through its root complex, and a slower cross-NUMA
        // path between the two halves of the node (needs a multiple of 4 GPUs;
        // other counts get the Fabric node).
        PciePairs,
    };

    nlohmann::json node;
    nlohmann::json links = nlohmann::json::array();
    QString description;  // "8 x H20 with NVLink 450 GB/s"

    static NodeTemplate make(Kind kind, const QString& name, const QString& type, int count = 8);
    // Menu text: "8 x H20 with NVSwitch", "8 x T4 with PCIe pairs + cross-NUMA".
    static QString menuText(Kind kind, const QString& type, int count = 8);
    // The fabric link (`within` `selector`) of `type`, named `name`.
    static nlohmann::json fabricLink(const QString& name, const QString& selector, const QString& type);
    static QString fabricText(const QString& type);  // "NVLink 450 GB/s"

    // Bandwidths of the PCIe-pairs template, per direction, GB/s: PCIe 4.0
    // x16 through a switch; two switches under one socket's root complex;
    // the socket interconnect (as the paper's Vendor-B/C nodes measure it).
    static constexpr double kPcieSwitchGBps = 25;
    static constexpr double kRootComplexGBps = 20;
    static constexpr double kCrossNumaGBps = 12;
};

}  // namespace memx
