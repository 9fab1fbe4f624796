#pragma once

#include "GpuTypeColors.h"
#include "PipelineViewLayout.h"
#include "PipelineSchedule.h"
#include "space/Plan.h"

#include <QWidget>

#include <optional>
#include <vector>

namespace memx {

// A plan's pipeline: the stages in order (group#slice, GPU type, layer range,
// recompute level, micro-batch time) and, below, the simulated 1F1B timeline
// of one iteration (PipelineSchedule): forward blocks light, backward dark,
// coloured by GPU type, bubbles left empty. Painted with QPainter so that
// exportImage() writes exactly what is on screen.
class PipelineView : public QWidget {
    Q_OBJECT
public:
    explicit PipelineView(QWidget* parent = nullptr);
    ~PipelineView() override;

    void setPlan(const Plan& p);
    // Lines under the stage table: the same plan with one recomputation level
    // on every stage (RecomputeAblation::line); the first is the heading.
    // Cleared by setPlan() and clear().
    void setAblation(const QStringList& lines);
    const QStringList& ablation() const { return ablation_; }
    void setGpuTypeColors(const GpuTypeColors& colours);  // the cluster's, as on the canvas
    void clear();
    bool hasPlan() const { return plan_.has_value(); }
    const PipelineSchedule& schedule() const { return schedule_; }
    bool exportImage(const QString& file, int width, int height);  // .png or .pdf by suffix

    // Paints the whole view into `target` (used by paintEvent and exportImage).
    void paintTo(QPainter& p, const QRect& target) const;

    // Where the stage table's headers go when painted into `target`, and
    // their texts (for layout checks: each must fit its cell).
    QList<QRect> headerCells(const QRect& target) const;
    // The schedule's title and where paintTo() draws it (one line, or more
    // when one is too narrow: it wraps rather than ends in "...").
    QString scheduleTitle() const;
    QRect titleRect(const QRect& target) const;
    static QStringList tableHeaders();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    bool event(QEvent* e) override;

private:
    struct Ink;
    void paintTable(QPainter& p, const QRect& target, const PipelineViewLayout& g, const Ink& ink) const;
    void paintTimeline(QPainter& p, const QRect& target, const PipelineViewLayout& g, const Ink& ink) const;
    // Where everything goes when painted into `target` (PipelineViewLayout).
    PipelineViewLayout geometry(const QRect& target) const;
    QStringList ablation_;
    QStringList tableRow(int stage) const;
    QString opToolTip(const QPoint& pos) const;

    std::optional<Plan> plan_;
    PipelineSchedule schedule_;
    GpuTypeColors gpuColors_;
};

}  // namespace memx
