#include "GpuTypeColors.h"

#include "hardware/Cluster.h"

#include <cmath>

namespace memx {

namespace {

// Okabe & Ito, "Color Universal Design" (2008), https://jfly.uni-koeln.de/color/,
// without black (it vanishes on a dark desktop), then Paul Tol's "muted" indigo,
// sand, green and wine and his "light" pink and light cyan
// (https://personal.sron.nl/~pault/#sec:qualitative). Every pair is more than
// 17 CIE76 delta E apart for normal vision and under Machado et al.'s (2009)
// deuteranopia and protanopia simulations (tests/widgets/tst_gpu_type_colors.cpp).
enum Slot {
    Orange,
    SkyBlue,
    BluishGreen,
    Yellow,
    Blue,
    Vermillion,
    ReddishPurple,
    Indigo,
    Sand,
    Green,
    Wine,
    Pink,
    LightCyan,
};

// Preferred entry of the catalog's types (resources/gpu_catalog.json). The 13
// types seen most in mixed clusters hold one entry each; the rest share entries
// with types they are rarely mixed with.
int preferredSlot(const QString& type)
{
    static const QHash<QString, int> table{
        {QStringLiteral("A100-80GB"), Blue},      {QStringLiteral("H100-SXM"), Orange},
        {QStringLiteral("H20"), BluishGreen},     {QStringLiteral("Ascend-910B"), Vermillion},
        {QStringLiteral("A100-40GB"), SkyBlue},   {QStringLiteral("H200"), ReddishPurple},
        {QStringLiteral("H800"), Yellow},         {QStringLiteral("V100-32GB"), Green},
        {QStringLiteral("V100-16GB"), LightCyan}, {QStringLiteral("T4"), Sand},
        {QStringLiteral("MI300X"), Wine},         {QStringLiteral("MI250X"), Pink},
        {QStringLiteral("Gaudi3"), Indigo},       {QStringLiteral("B200"), Indigo},
        {QStringLiteral("GH200"), Pink},          {QStringLiteral("RTX-3090"), Wine},
        {QStringLiteral("RTX-4090"), Pink},       {QStringLiteral("L4"), Indigo},
        {QStringLiteral("A10G"), Yellow},         {QStringLiteral("L40S"), BluishGreen},
        {QStringLiteral("BR104P"), Sand},         {QStringLiteral("BI-V150"), Green},
        {QStringLiteral("Vendor-B"), Orange},     {QStringLiteral("Vendor-C"), BluishGreen},
        {QStringLiteral("Vendor-X"), Vermillion}, {QStringLiteral("Vendor-Y"), SkyBlue},
    };
    return table.value(type, -1);
}

}  // namespace

const std::vector<QColor>& GpuTypeColors::palette()
{
    static const std::vector<QColor> colours{QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                             QColor(0x00, 0x9e, 0x73), QColor(0xf0, 0xe4, 0x42),
                                             QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00),
                                             QColor(0xcc, 0x79, 0xa7), QColor(0x33, 0x22, 0x88),
                                             QColor(0xdd, 0xcc, 0x77), QColor(0x11, 0x77, 0x33),
                                             QColor(0x88, 0x22, 0x55), QColor(0xff, 0xaa, 0xbb),
                                             QColor(0x99, 0xdd, 0xff)};
    return colours;
}

GpuTypeColors::GpuTypeColors(const QStringList& types) : taken_(palette().size(), false)
{
    for (const QString& type : types) {
        if (slots_.contains(type))
            continue;
        const int slot = slotFor(type);
        slots_.insert(type, slot);
        taken_[slot] = true;
    }
}

QColor GpuTypeColors::textOn(const QColor& fill)
{
    auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double y = 0.2126 * linear(fill.redF()) + 0.7152 * linear(fill.greenF()) + 0.0722 * linear(fill.blueF());
    // Contrast with black (y + 0.05) / 0.05 beats contrast with white 1.05 / (y + 0.05) above y = 0.179.
    return y > 0.179 ? QColor(0x20, 0x20, 0x20) : QColor(Qt::white);
}

GpuTypeColors GpuTypeColors::of(const Cluster& cluster)
{
    QStringList types;
    for (const auto& t : cluster.types())
        types << QString::fromStdString(t.name);
    return GpuTypeColors(types);
}

int GpuTypeColors::slotFor(const QString& type) const
{
    const int n = paletteSize();
    int start = preferredSlot(type);
    if (start < 0) {  // not in the catalog: a start that depends on the name alone
        uint h = 0;
        for (QChar c : type)
            h = h * 31u + c.unicode();
        start = static_cast<int>(h % static_cast<uint>(n));
    }
    for (int i = 0; i < n; ++i) {
        const int slot = (start + i) % n;
        if (taken_.empty() || !taken_[slot])
            return slot;
    }
    return start;  // more types than colours: they repeat
}

QColor GpuTypeColors::color(const QString& type) const
{
    const auto it = slots_.constFind(type);
    return palette()[it != slots_.constEnd() ? *it : slotFor(type)];
}

}  // namespace memx
