#pragma once

#include "search/PlanCost.h"
#include "search/WeightSimplex.h"

#include <QWidget>

class QPainter;

#include <optional>

namespace memx {

struct SearchResult;

// The weight-simplex map of a search (WeightSimplex): a triangle whose
// corners are time, memory and variance weight alone, each of its 231 grid
// points a hexagon coloured by the plan that wins there. The paper's three
// profiles are marked with their colours and the requested weights ringed.
// Hovering a cell summarises its plan; clicking it emits planActivated. A
// legend lists the winners with how many weightings each wins.
class SimplexMapView : public QWidget {
    Q_OBJECT
public:
    explicit SimplexMapView(QWidget* parent = nullptr);

    // The map of a result, or why there is none: the work of setResult that
    // needs no widget, so that it can run off the GUI thread.
    struct Mapped {
        std::optional<SimplexMap> map;
        std::string whyNone;
    };
    static Mapped mapOf(const SearchResult& r);
    // `cluster`: the searched one; each winner's description then states its
    // tokens per second and cost (PlanCost). Null: tokens per second only.
    void setResult(const SearchResult& r, const Cluster* cluster = nullptr);
    // The same with the map made already (mapOf).
    void setMapped(const SearchResult& r, Mapped mapped, const Cluster* cluster = nullptr);
    // A map is being made for a new result.
    void setBusy();
    // What hovering a cell of winner `planIndex` shows: "P1: ... ms, ...; N tokens/s, cost".
    QString describe(std::size_t planIndex) const;
    void clear();
    const SimplexMap* map() const { return map_ ? &*map_ : nullptr; }
    void setSelectedPlan(quint64 key);
    // The grid point under a widget position, or -1.
    int pointAt(const QPointF& pos) const;
    QPointF positionOf(const Weights& w) const;  // in widget coordinates
    static QColor planColour(std::size_t index);
    // The heading over the map, and where it ends: wrapped onto as many lines
    // as the width needs, the triangle and legend start below it.
    QString title() const;
    QString subtitle() const;
    double headingBottom() const;

signals:
    void planActivated(quint64 key);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    QSize sizeHint() const override { return {760, 560}; }
    QSize minimumSizeHint() const override { return {360, 300}; }

private:
    struct Frame {
        QPointF time, memory, variance;  // the corners
        double cell = 0;  // distance between neighbouring grid points
        QRectF legend;
        QRectF title, subtitle;  // wrapped onto as many lines as they need: never cut at the edge
    };
    Frame frame() const;
    void paintCells(QPainter& p, const Frame& f) const;
    void paintMarks(QPainter& p, const Frame& f) const;
    void paintHoverLine(QPainter& p, const Frame& f) const;
    void paintLegend(QPainter& p, const Frame& f) const;

    std::optional<SimplexMap> map_;
    std::vector<PlanCost> costs_;  // of map_->plans
    Weights requested_;
    bool hasRequested_ = false;
    QString note_;  // why there is no map
    int hovered_ = -1;
    quint64 selected_ = 0;
};

}  // namespace memx
