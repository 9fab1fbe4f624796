#pragma once

#include "space/Plan.h"

#include <QRectF>
#include <QWidget>

#include <vector>

namespace memx {

class GpuTypeColors;

// The pipeline as a strip of blocks, one per stage in order, as wide as its
// share of the layers and coloured by GPU type; each block reads its stage's
// GPU group and "layers L · recompute". A block is never narrower than its
// text: stages that cannot all be that wide in one row wrap to further rows
// (the strip asks for the height it then needs).
class StageStrip final : public QWidget {
    Q_OBJECT
public:
    StageStrip(const Plan& plan, const GpuTypeColors* colours, QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

    // The blocks at the strip's current width, in stage order.
    std::vector<QRectF> blockRects() const { return layout(width()); }
    // The width each stage's text needs (both its lines, with padding).
    std::vector<double> textWidths() const;

    // Widths of the blocks of one row, `width` wide with `gap` between blocks:
    // shares of the width in proportion to `layers`, none below its
    // `minWidths` entry; the width the minimums take is taken from the others
    // in proportion too. When the minimums alone exceed the width, they are
    // returned as they are.
    static std::vector<double> rowWidths(const std::vector<int>& layers, const std::vector<double>& minWidths,
                                         double width, double gap);
    // How many stages go on each row: as many as fit at their minimum widths
    // (at least one per row).
    static std::vector<int> rows(const std::vector<double>& minWidths, double width, double gap);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<QRectF> layout(int width) const;
    QFont blockFont() const;

    Plan plan_;
    const GpuTypeColors* colours_;  // the owner's, so a new cluster recolours the strip
};

}  // namespace memx
