#pragma once

#include <QWidget>

namespace memx {

// A veil over a result view whose results no longer match the inputs: the
// view stays readable (and clickable) beneath it at about 40 % contrast.
//
// It replaces a QGraphicsOpacityEffect on each view. An effect renders its
// widget through a cached pixmap, and a view inside a tab that is hidden and
// shown again while the effect is set was drawn from stale caches: the cluster
// canvas painted over the Pareto plot, the plot twice with two legends
// (issue #35 item 1). The overlay is an ordinary child widget: it paints in
// the normal order, after its view, and follows its size.
class StaleOverlay : public QWidget {
    Q_OBJECT
public:
    // Covers `view` from now on; hidden until setStale(true).
    explicit StaleOverlay(QWidget* view);

    void setStale(bool stale);
    bool isStale() const { return !isHidden(); }

    // The overlay of `view`, if one was made for it.
    static StaleOverlay* of(const QWidget* view);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
};

}  // namespace memx
