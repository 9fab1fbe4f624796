// GPU type colours: any 12 types of a cluster get colours that stay apart for
// normal vision and for deuteranopes, every view gets the same colour for the
// same cluster, and editing the cluster does not repaint the types already there.
#include "GpuTypeColors.h"
#include "TestClusters.h"
#include "TestPaths.h"

#include "hardware/GpuCatalog.h"

#include <QRandomGenerator>
#include "TestMain.h"

#include <array>
#include <cmath>

namespace tst_gpu_type_colors {

using namespace memx;

namespace {
using Vec3 = std::array<double, 3>;

// sRGB (IEC 61966-2-1) to linear light and back.
double toLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double fromLinear(double c)
{
    c = std::clamp(c, 0.0, 1.0);
    return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055;
}

Vec3 linearRgb(const QColor& c) { return {toLinear(c.redF()), toLinear(c.greenF()), toLinear(c.blueF())}; }

// CIE 1976 L*a*b* of linear sRGB, D65 white.
Vec3 lab(const Vec3& rgb)
{
    const double x = 0.4124564 * rgb[0] + 0.3575761 * rgb[1] + 0.1804375 * rgb[2];
    const double y = 0.2126729 * rgb[0] + 0.7151522 * rgb[1] + 0.0721750 * rgb[2];
    const double z = 0.0193339 * rgb[0] + 0.1191920 * rgb[1] + 0.9503041 * rgb[2];
    auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
    const double fx = f(x / 0.95047), fy = f(y / 1.0), fz = f(z / 1.08883);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

// Machado, Oliveira & Fernandes, "A Physiologically-based Model for Simulation
// of Color Vision Deficiency", IEEE TVCG 15(6), 2009: severity 1.0 matrices,
// applied to linear RGB (the simulated colour is re-encoded to sRGB and clipped).
using Matrix = std::array<Vec3, 3>;
constexpr Matrix kDeuteranopia{
    {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
constexpr Matrix kProtanopia{
    {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};

Vec3 simulate(const Matrix& m, const Vec3& rgb)
{
    Vec3 out{};
    for (int i = 0; i < 3; ++i) {
        const double v = m[i][0] * rgb[0] + m[i][1] * rgb[1] + m[i][2] * rgb[2];
        out[i] = toLinear(fromLinear(v));  // clip to the sRGB gamut
    }
    return out;
}

double deltaE76(const Vec3& a, const Vec3& b)
{
    const Vec3 la = lab(a), lb = lab(b);
    return std::hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
}

enum class Vision { Normal, Deuteranopia, Protanopia };

double distance(const QColor& a, const QColor& b, Vision v)
{
    switch (v) {
    case Vision::Normal: return deltaE76(linearRgb(a), linearRgb(b));
    case Vision::Deuteranopia:
        return deltaE76(simulate(kDeuteranopia, linearRgb(a)), simulate(kDeuteranopia, linearRgb(b)));
    case Vision::Protanopia: return deltaE76(simulate(kProtanopia, linearRgb(a)), simulate(kProtanopia, linearRgb(b)));
    }
    return 0;
}

constexpr double kMinDeltaE = 15;

// Empty when every pair is far enough apart, else the closest pair.
QString closePair(const QStringList& types, const GpuTypeColors& colours, Vision v)
{
    for (int i = 0; i < types.size(); ++i)
        for (int j = i + 1; j < types.size(); ++j) {
            const double d = distance(colours.color(types[i]), colours.color(types[j]), v);
            if (d <= kMinDeltaE)
                return QStringLiteral("%1 %2 and %3 %4: delta E %5")
                    .arg(types[i], colours.color(types[i]).name(), types[j], colours.color(types[j]).name())
                    .arg(d, 0, 'f', 1);
        }
    return {};
}

QStringList catalogTypes()
{
    QStringList out;
    for (const auto& n : GpuCatalog::builtin().names())
        out << QString::fromStdString(n);
    return out;
}
}  // namespace

class TestGpuTypeColors : public QObject {
    Q_OBJECT
private slots:
    void paletteIsDistinctForEveryone();
    void anyTwelveTypesAreDistinct_data();
    void anyTwelveTypesAreDistinct();
    void commonPairsDiffer();
    void editsKeepTheOtherColours();
    void absentTypeGetsTheColourItWouldHave();
    void sameForTheSameCluster();
};

void TestGpuTypeColors::paletteIsDistinctForEveryone()
{
    const auto& palette = GpuTypeColors::palette();
    QVERIFY(palette.size() >= 12);
    for (std::size_t i = 0; i < palette.size(); ++i)
        for (std::size_t j = i + 1; j < palette.size(); ++j)
            for (Vision v : {Vision::Normal, Vision::Deuteranopia, Vision::Protanopia}) {
                const double d = distance(palette[i], palette[j], v);
                QVERIFY2(d > kMinDeltaE,
                         qPrintable(QStringLiteral("%1 and %2 (vision %3): delta E %4")
                                        .arg(palette[i].name(), palette[j].name())
                                        .arg(int(v))
                                        .arg(d)));
            }
}

void TestGpuTypeColors::anyTwelveTypesAreDistinct_data()
{
    QTest::addColumn<QStringList>("types");
    const QStringList catalog = catalogTypes();
    QVERIFY(catalog.size() >= 24);
    QTest::newRow("first 12 of the catalog") << catalog.mid(0, 12);
    QTest::newRow("last 12 of the catalog") << catalog.mid(catalog.size() - 12);
    QTest::newRow("NVIDIA datacentre") << QStringList{"A100-40GB", "A100-80GB", "H100-SXM", "H200",  "H800", "H20",
                                                      "V100-16GB", "V100-32GB", "B200",     "GH200", "L40S", "L4"};
    QTest::newRow("sharing a preferred colour")
        << QStringList{"Gaudi3", "B200",   "L4",  "MI250X", "GH200",    "RTX-4090",
                       "T4",     "BR104P", "H20", "L40S",   "Vendor-C", "A10G"};
    QTest::newRow("not in the catalog") << QStringList{"X1", "X2", "X3", "X4",  "X5",  "X6",
                                                       "X7", "X8", "X9", "X10", "X11", "X12"};
    QRandomGenerator rng(20240610);
    for (int k = 0; k < 40; ++k) {
        QStringList pool = catalog;
        pool << QStringLiteral("Custom-%1").arg(k) << QStringLiteral("Lab-GPU-%1").arg(k);
        QStringList pick;
        while (pick.size() < 12)
            pick << pool.takeAt(rng.bounded(int(pool.size())));
        QTest::newRow(qPrintable(QStringLiteral("random %1").arg(k))) << pick;
    }
}

void TestGpuTypeColors::anyTwelveTypesAreDistinct()
{
    QFETCH(QStringList, types);
    const GpuTypeColors colours(types);
    for (Vision v : {Vision::Normal, Vision::Deuteranopia}) {
        const QString pair = closePair(types, colours, v);
        QVERIFY2(pair.isEmpty(), qPrintable(pair));
    }
}

// The sample clusters' pairs differ whatever the order, even when other types
// are present (the old hashed colours gave A100-80GB and H20 the same blue).
void TestGpuTypeColors::commonPairsDiffer()
{
    const QStringList common{"A100-80GB", "H20", "H100-SXM", "Ascend-910B", "A100-40GB", "H200",     "H800",
                             "V100-32GB", "T4",  "MI300X",   "Vendor-B",    "Vendor-C",  "Vendor-X", "Vendor-Y"};
    const GpuTypeColors none;
    QCOMPARE_NE(none.color("A100-80GB"), none.color("H20"));
    for (const QStringList& cluster :
         {QStringList{"A100-80GB", "H20"}, QStringList{"H20", "A100-80GB"},
          QStringList{"A100-80GB", "Ascend-910B", "H100-SXM", "H20"}, QStringList{"A100-80GB", "Vendor-B", "Vendor-C"},
          QStringList{"V100-32GB", "T4"}, QStringList{"Vendor-X", "Vendor-Y"}}) {
        const GpuTypeColors colours(cluster);
        QVERIFY2(closePair(cluster, colours, Vision::Normal).isEmpty(), qPrintable(cluster.join(',')));
        QVERIFY2(closePair(cluster, colours, Vision::Deuteranopia).isEmpty(), qPrintable(cluster.join(',')));
    }
    // Without any cluster, the common types are already apart.
    QVERIFY2(closePair(common.mid(0, 10), none, Vision::Deuteranopia).isEmpty(), "common types, no cluster");
}

void TestGpuTypeColors::editsKeepTheOtherColours()
{
    const QStringList before{"A100-80GB", "Ascend-910B", "H100-SXM", "H20"};
    const GpuTypeColors a(before);
    // Adding a type (even one whose preferred colour is taken) keeps the others.
    for (const QString& added : {QStringLiteral("Vendor-X"), QStringLiteral("L40S"), QStringLiteral("Mystery")}) {
        const GpuTypeColors b(QStringList(before) << added);
        for (const QString& t : before)
            QCOMPARE(b.color(t), a.color(t));
        QVERIFY(!before.contains(added));
        for (const QString& t : before)
            QVERIFY(b.color(added) != b.color(t));
    }
    // Removing one keeps the rest.
    for (int i = 0; i < before.size(); ++i) {
        QStringList less = before;
        less.removeAt(i);
        const GpuTypeColors b(less);
        for (const QString& t : less)
            QCOMPARE(b.color(t), a.color(t));
    }
}

void TestGpuTypeColors::absentTypeGetsTheColourItWouldHave()
{
    const QStringList types{"A100-80GB", "H20", "Vendor-C"};  // Vendor-C would like H20's colour
    const GpuTypeColors colours(types);
    const QStringList candidates = catalogTypes() << QStringLiteral("Mystery");
    for (const QString& t : candidates)
        QCOMPARE(colours.color(t), GpuTypeColors(QStringList(types) << t).color(t));
    QVERIFY(colours.color("Vendor-C") != colours.color("H20"));
}

void TestGpuTypeColors::sameForTheSameCluster()
{
    const Cluster c = Cluster::fromFile(test::sampleCluster("mixed-128gpu-4types.json"));
    const GpuTypeColors a = GpuTypeColors::of(c), b = GpuTypeColors::of(c);
    QStringList names;
    for (const auto& t : c.types())
        names << QString::fromStdString(t.name);
    QCOMPARE(names.size(), 4);
    for (const QString& t : names)
        QCOMPARE(a.color(t), b.color(t));
    QVERIFY(closePair(names, a, Vision::Deuteranopia).isEmpty());
}

MEMX_TEST_MAIN(TestGpuTypeColors)
}  // namespace tst_gpu_type_colors

#include "tst_gpu_type_colors.moc"
