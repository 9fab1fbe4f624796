#include "StaleBanner.h"

#include "PlanColors.h"

#include "search/RequestChanges.h"

#include <QPainter>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace memx {

StaleBanner::StaleBanner(QWidget* parent)
    : QFrame(parent)
    , label_(new QLabel(this))
    , run_(new QPushButton(tr("Plan again (F5)"), this))
{
    setObjectName(QStringLiteral("staleBanner"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::PlainText);
    layout->addWidget(label_, 1);
    layout->addWidget(run_);
    connect(run_, &QPushButton::clicked, this, &StaleBanner::runRequested);
    hide();
}

void StaleBanner::setChanges(const std::vector<std::string>& changes)
{
    if (changes.empty()) {
        hide();
        return;
    }
    label_->setText(tr("⚠ These results were computed before %1 changed: they are for the previous state, "
                       "not what the panels hold now. They cannot be exported until you plan again.")
                        .arg(QString::fromStdString(RequestChanges::describe(changes))));
    show();
}

QString StaleBanner::text() const
{
    return isHidden() ? QString() : label_->text();
}

void StaleBanner::paintEvent(QPaintEvent*)
{
    // An amber strip that reads on light and dark palettes alike.
    const QColor warn = colors::status(palette()).warning;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(warn, 1));
    p.setBrush(colors::withAlpha(warn, 46));
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
}

}  // namespace memx
