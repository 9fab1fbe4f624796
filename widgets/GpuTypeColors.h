#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>

#include <vector>

namespace memx {

class Cluster;

// The colour of each GPU type of one cluster, the same in every view (canvas,
// palette dock, pipeline, profile cards, legends). Built from the cluster's
// type list: each type takes its preferred palette entry (a fixed table for the
// catalog's types, chosen so the types that are usually mixed differ), or the
// first entry still free when an earlier type of the list holds it. So up to
// paletteSize() types always get distinct colours, and adding or removing a
// type leaves the colours of the others as they were (unless one had given way).
class GpuTypeColors {
public:
    GpuTypeColors() = default;
    explicit GpuTypeColors(const QStringList& types);  // in the cluster's order
    static GpuTypeColors of(const Cluster& cluster);

    // A type not in the list gets the colour it would get if it were added last.
    QColor color(const QString& type) const;

    // Near-black or white, whichever contrasts more with `fill` (WCAG 2 relative
    // luminance): labels on tiles, stage blocks and pipeline blocks.
    static QColor textOn(const QColor& fill);

    // The categorical palette: distinct for normal and colour-deficient vision.
    static const std::vector<QColor>& palette();
    static int paletteSize() { return static_cast<int>(palette().size()); }

private:
    int slotFor(const QString& type) const;

    QHash<QString, int> slots_;
    std::vector<bool> taken_;
};

}  // namespace memx
