#include "StaleOverlay.h"

#include <QEvent>
#include <QPainter>

namespace memx {

StaleOverlay::StaleOverlay(QWidget* view) : QWidget(view)
{
    setObjectName(QStringLiteral("staleOverlay"));
    // Clicks, hovers and the wheel reach the view: a user may still compare
    // with what they had, select a plan, read a tooltip.
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setFocusPolicy(Qt::NoFocus);
    hide();
    view->installEventFilter(this);
}

void StaleOverlay::setStale(bool stale)
{
    if (stale) {
        setGeometry(parentWidget()->rect());
        raise();  // above children the view made since
        show();
    } else {
        hide();
    }
}

StaleOverlay* StaleOverlay::of(const QWidget* view)
{
    return view ? view->findChild<StaleOverlay*>(QStringLiteral("staleOverlay"), Qt::FindDirectChildrenOnly) : nullptr;
}

bool StaleOverlay::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && (event->type() == QEvent::Resize || event->type() == QEvent::ChildAdded)) {
        setGeometry(parentWidget()->rect());
        if (event->type() == QEvent::ChildAdded)
            raise();
    }
    return QWidget::eventFilter(watched, event);
}

void StaleOverlay::paintEvent(QPaintEvent*)
{
    // 60 % of the window colour over the view: its content shows at 40 %,
    // what the opacity effect gave, in light and dark palettes alike.
    QColor veil = palette().color(QPalette::Window);
    veil.setAlphaF(0.6);
    QPainter(this).fillRect(rect(), veil);
}

}  // namespace memx
