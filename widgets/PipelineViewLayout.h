#pragma once

#include "PipelineSchedule.h"

#include <QFont>
#include <QRect>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

namespace memx {

// Where the Pipeline view draws what, worked out from the texts it shows, a
// font and the rectangle it paints into: the stage table's columns (as wide
// as their widest cell; headers on one line, or wrapped onto two when they do
// not fit), the schedule's title (wrapped rather than cut), the timeline with
// one row per stage and the bubble column right of it, each op's block and the
// time axis ticks. No widget and no painter: tests check it alone.
struct PipelineViewLayout {
    static constexpr int kPad = 10;
    static constexpr int kBubbleColumn = 150;  // px right of the timeline for "bubble x%"
    static constexpr int kSwatchColumn = 2;  // the table column with a GPU type's colour swatch

    struct Input {
        QRect target;
        QFont font;
        QStringList headers;
        std::vector<QStringList> rows;  // one per stage, a cell per header
        int ablationLines = 0;  // lines under the table
        QString title;  // the schedule's
    };
    static PipelineViewLayout of(const Input& in);

    QRect table;  // the stage table with its header and the lines under it
    std::vector<int> columnX;  // left edge of each table column, then the table's right
    int headerHeight = 0;  // one or two lines
    int rowHeight = 0;  // a table row's
    QRect title;  // the schedule's title, on as many lines as it needs
    int titleLines = 1;
    QRect timeline;  // the blocks' area: no row labels, no bubble column
    int trackHeight = 0;  // one stage's row of the timeline
    int labelWidth = 0;  // "S12" left of the timeline

    // The block of `op` of `stage` on a timeline spanning `makespanMs`.
    QRectF opRect(int stage, const PipelineOp& op, double makespanMs) const;
    // The row of `stage` on the timeline (its blocks stay inside it).
    QRect track(int stage) const;
    // Tick values (in ms) of the time axis, 1-2-5 steps, about one per 110 px,
    // in `unitMs` steps (1 for ms, 1000 for s), from 0 to the makespan.
    std::vector<double> ticksMs(double makespanMs, double unitMs) const;
    int tickX(double ms, double makespanMs) const;
};

}  // namespace memx
