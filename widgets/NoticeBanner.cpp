#include "NoticeBanner.h"

#include "PlanColors.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace memx {

NoticeBanner::NoticeBanner(QWidget* parent)
    : QFrame(parent)
    , label_(new QLabel(this))
    , dismiss_(new QPushButton(tr("Dismiss"), this))
{
    setObjectName(QStringLiteral("noticeBanner"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::PlainText);
    layout->addWidget(label_, 1);
    layout->addWidget(dismiss_);
    connect(dismiss_, &QPushButton::clicked, this, &QWidget::hide);
    hide();
}

void NoticeBanner::setNotices(const QStringList& notices)
{
    if (notices.isEmpty()) {
        hide();
        return;
    }
    label_->setText(notices.join(QLatin1Char('\n')));
    show();
}

QString NoticeBanner::text() const { return isHidden() ? QString() : label_->text(); }

void NoticeBanner::paintEvent(QPaintEvent*) { colors::paintWarningStrip(this); }

}  // namespace memx
