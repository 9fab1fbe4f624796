#include "StaleBanner.h"

#include "PlanColors.h"

#include "search/RequestChanges.h"

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

QString StaleBanner::text() const { return isHidden() ? QString() : label_->text(); }

void StaleBanner::paintEvent(QPaintEvent*) { colors::paintWarningStrip(this); }

}  // namespace memx
