#include "NodeTemplate.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/ClusterJson.h"
#include "hardware/GpuCatalog.h"

#include <QCoreApplication>

namespace memx {

namespace {

std::string str(const QString& s) { return s.toStdString(); }

QString tr(const char* text) { return QCoreApplication::translate("NodeTemplate", text); }

nlohmann::json pcieLink(const std::string& name, const char* kind, nlohmann::json ends, double gbps, double latencyUs)
{
    ClusterJson::Link link = ends.is_string()
        ? ClusterJson::withinLink(name, kind, ends.get<std::string>(), gbps, latencyUs)
        : ClusterJson::betweenLink(name, kind, ends[0].get<std::string>(), ends[1].get<std::string>(), gbps, latencyUs);
    link.shared = true;  // one switch or socket path: concurrent transfers split it
    return ClusterJson::link(link);
}

// ClusterGenerator::intraNodeFabric knows the types by name and takes NVLink
// for any it does not know; a catalog type of another vendor (Gaudi, Biren,
// the paper's anonymous vendors) gets PCIe instead.
ClusterGenerator::Fabric fabricOf(const QString& type)
{
    ClusterGenerator::Fabric f = ClusterGenerator::intraNodeFabric(str(type));
    const GpuType* known = GpuCatalog::builtin().find(str(type));
    if (f.kind == "NVLink" && known && known->vendor != "NVIDIA")
        f = ClusterGenerator::intraNodeFabric("PCIe");
    return f;
}

}  // namespace

nlohmann::json NodeTemplate::fabricLink(const QString& name, const QString& selector, const QString& type)
{
    const ClusterGenerator::Fabric f = fabricOf(type);
    ClusterJson::Link link = ClusterJson::withinLink(str(name), f.kind, str(selector), f.bandwidthGBps, f.latencyUs);
    link.shared = f.shared;
    return ClusterJson::link(link);
}

QString NodeTemplate::fabricText(const QString& type)
{
    const ClusterGenerator::Fabric f = fabricOf(type);
    return QStringLiteral("%1 %2 GB/s").arg(QString::fromStdString(f.kind)).arg(f.bandwidthGBps);
}

QString NodeTemplate::menuText(Kind kind, const QString& type, int count)
{
    if (kind == Kind::PciePairs)
        return tr("%1 x %2 with PCIe pairs + cross-NUMA").arg(count).arg(type);
    const ClusterGenerator::Fabric f = fabricOf(type);
    if (f.kind == "NVLink")
        return tr("%1 x %2 with NVSwitch").arg(count).arg(type);
    return tr("%1 x %2 with one %3 fabric").arg(count).arg(type, QString::fromStdString(f.kind));
}

NodeTemplate NodeTemplate::make(Kind kind, const QString& name, const QString& type, int count)
{
    NodeTemplate t;
    const std::string n = str(name);
    t.node = ClusterJson::node(n, {{str(type), count}});
    if (kind == Kind::PciePairs && count >= 4 && count % 4 == 0) {
        const int half = count / 2;
        auto range = [&](int lo, int hi) { return n + ":" + std::to_string(lo) + "-" + std::to_string(hi); };
        for (int p = 0; p < count / 2; ++p)
            t.links.push_back(
                pcieLink(n + "-sw" + std::to_string(p), "PCIe", range(2 * p, 2 * p + 1), kPcieSwitchGBps, 6));
        // Pairs of one socket reach each other through its root complex.
        for (int socket = 0; socket < 2; ++socket) {
            const int lo = socket * half, hi = lo + half - 1;
            for (int p = lo; p + 1 < hi; p += 2)
                for (int q = p + 2; q < hi; q += 2)
                    t.links.push_back(pcieLink(n + "-rc" + std::to_string(socket) + "-" + std::to_string(p / 2) + "-"
                                                   + std::to_string(q / 2),
                                               "PCIe", {range(p, p + 1), range(q, q + 1)}, kRootComplexGBps, 8));
        }
        t.links.push_back(
            pcieLink(n + "-numa", "cross-NUMA", {range(0, half - 1), range(half, count - 1)}, kCrossNumaGBps, 10));
        t.description = tr("%1 x %2, a PCIe switch per GPU pair (%3 GB/s), pairs joined through the socket (%4 GB/s), "
                           "cross-NUMA %5 GB/s between the halves")
                            .arg(count)
                            .arg(type)
                            .arg(kPcieSwitchGBps)
                            .arg(kRootComplexGBps)
                            .arg(kCrossNumaGBps);
        return t;
    }
    if (count >= 2) {
        const ClusterGenerator::Fabric f = fabricOf(type);
        t.links.push_back(fabricLink(QString::fromStdString(n + "-" + f.kind), name, type));
        t.description = tr("%1 x %2 with %3").arg(count).arg(type, fabricText(type));
    } else {
        t.description = tr("%1 x %2").arg(count).arg(type);
    }
    return t;
}

}  // namespace memx
