#include "StageStrip.h"

#include "GpuTypeColors.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <numeric>

namespace memx {

namespace {
constexpr double kGap = 2;
constexpr double kRowHeight = 40;
constexpr double kPadding = 8;  // beside a block's text, both sides together

QString topLine(const StagePlan& s) { return QString::fromStdString(s.label()); }

QString bottomLine(const Plan& plan, std::size_t i)
{
    const QStringList letters = QString::fromStdString(plan.recomputeString()).split(QLatin1Char(','));
    return QStringLiteral("%1 L · %2").arg(plan.stages[i].layers).arg(letters.value(static_cast<int>(i)));
}
}  // namespace

StageStrip::StageStrip(const Plan& plan, const GpuTypeColors* colours, QWidget* parent)
    : QWidget(parent)
    , plan_(plan)
    , colours_(colours)
{
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    QStringList tip;
    for (std::size_t i = 0; i < plan.stages.size(); ++i) {
        const auto& s = plan.stages[i];
        tip << QStringLiteral("stage %1: %2 (%3), layers %4-%5, recompute %6")
                   .arg(i)
                   .arg(QString::fromStdString(s.label()))
                   .arg(QString::fromStdString(s.gpuType))
                   .arg(s.firstLayer)
                   .arg(s.firstLayer + s.layers - 1)
                   .arg(QLatin1String(toString(s.recompute)));
    }
    setToolTip(tip.join(QLatin1Char('\n')));
}

QFont StageStrip::blockFont() const
{
    QFont small = font();
    small.setPointSizeF(font().pointSizeF() * 0.85);
    return small;
}

std::vector<double> StageStrip::textWidths() const
{
    const QFontMetricsF fm(blockFont());
    std::vector<double> widths;
    for (std::size_t i = 0; i < plan_.stages.size(); ++i)
        widths.push_back(
            std::max(fm.horizontalAdvance(topLine(plan_.stages[i])), fm.horizontalAdvance(bottomLine(plan_, i)))
            + kPadding);
    return widths;
}

std::vector<double> StageStrip::rowWidths(const std::vector<int>& layers, const std::vector<double>& minWidths,
                                          double width, double gap)
{
    const std::size_t n = layers.size();
    const double room = width - gap * (n > 0 ? n - 1 : 0);
    if (std::accumulate(minWidths.begin(), minWidths.end(), 0.0) >= room)
        return minWidths;
    // Water filling: blocks whose share is below their minimum take the
    // minimum; the rest share what is left in proportion to their layers.
    std::vector<bool> fixed(n, false);
    std::vector<double> w(n, 0);
    for (bool changed = true; changed;) {
        changed = false;
        double left = room;
        double layersLeft = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (fixed[i])
                left -= minWidths[i];
            else
                layersLeft += std::max(layers[i], 0);
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (fixed[i]) {
                w[i] = minWidths[i];
                continue;
            }
            w[i] = layersLeft > 0 ? left * std::max(layers[i], 0) / layersLeft : 0;
            if (w[i] < minWidths[i]) {
                fixed[i] = true;
                changed = true;
            }
        }
    }
    return w;
}

std::vector<int> StageStrip::rows(const std::vector<double>& minWidths, double width, double gap)
{
    std::vector<int> counts;
    double used = 0;
    int inRow = 0;
    for (double m : minWidths) {
        const double need = inRow == 0 ? m : used + gap + m;
        if (inRow > 0 && need > width) {
            counts.push_back(inRow);
            inRow = 0;
            used = 0;
        }
        used = inRow == 0 ? m : used + gap + m;
        ++inRow;
    }
    if (inRow > 0)
        counts.push_back(inRow);
    return counts;
}

std::vector<QRectF> StageStrip::layout(int width) const
{
    const std::vector<double> mins = textWidths();
    std::vector<QRectF> rects;
    std::size_t first = 0;
    double y = 0;
    for (int count : rows(mins, width, kGap)) {
        std::vector<int> layers;
        std::vector<double> rowMins;
        for (std::size_t i = first; i < first + count; ++i) {
            layers.push_back(plan_.stages[i].layers);
            rowMins.push_back(mins[i]);
        }
        double x = 0;
        for (double w : rowWidths(layers, rowMins, width, kGap)) {
            rects.emplace_back(x, y, w, kRowHeight);
            x += w + kGap;
        }
        first += count;
        y += kRowHeight + kGap;
    }
    return rects;
}

QSize StageStrip::sizeHint() const { return {240, heightForWidth(240)}; }

QSize StageStrip::minimumSizeHint() const
{
    const std::vector<double> mins = textWidths();
    const double widest = mins.empty() ? 0 : *std::max_element(mins.begin(), mins.end());
    return {static_cast<int>(std::ceil(widest)), static_cast<int>(kRowHeight)};
}

int StageStrip::heightForWidth(int width) const
{
    const std::size_t rowCount = std::max<std::size_t>(1, rows(textWidths(), width, kGap).size());
    return static_cast<int>(rowCount * kRowHeight + (rowCount - 1) * kGap);
}

void StageStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFont small = blockFont();
    p.setFont(small);
    const std::vector<QRectF> rects = layout(width());
    for (std::size_t i = 0; i < plan_.stages.size() && i < rects.size(); ++i) {
        const auto& s = plan_.stages[i];
        const QRectF& box = rects[i];
        const QColor c = colours_->color(QString::fromStdString(s.gpuType));
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawRoundedRect(box, 3, 3);
        p.setPen(GpuTypeColors::textOn(c));
        const QRectF inner = box.adjusted(2, 1, -2, -1);
        const QFontMetricsF fm(small);
        // Elides only where a block is wider than the strip itself.
        auto fit = [&](const QString& t) { return fm.elidedText(t, Qt::ElideRight, inner.width()); };
        p.drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2), Qt::AlignCenter,
                   fit(topLine(s)));
        p.drawText(QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2), Qt::AlignCenter,
                   fit(bottomLine(plan_, i)));
    }
}

}  // namespace memx
