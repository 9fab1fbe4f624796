#include "WhyNotShapePanel.h"

#include "search/ShapeExplanation.h"

#include <QApplication>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace memx {

namespace {
QSpinBox* degree(const QString& name, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(name);
    box->setRange(1, 4096);
    box->setAccelerated(true);
    return box;
}
}  // namespace

WhyNotShapePanel::WhyNotShapePanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("whyNotShape"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 6);
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Why no plan of shape"), this));
    tp_ = degree(QStringLiteral("whyNotTp"), this);
    pp_ = degree(QStringLiteral("whyNotPp"), this);
    dp_ = degree(QStringLiteral("whyNotDp"), this);
    for (auto [label, box] : {std::pair{tr("TP"), tp_}, {tr("PP"), pp_}, {tr("DP"), dp_}}) {
        row->addWidget(new QLabel(label, this));
        row->addWidget(box);
    }
    ask_ = new QPushButton(tr("Why not?"), this);
    ask_->setObjectName(QStringLiteral("whyNotAsk"));
    ask_->setToolTip(tr("Say what stops this (TP, PP, DP) on the last search's cluster, model and setup: the model, "
                        "rule 1, the stage slots, a limit of the setup, or memory"));
    row->addWidget(ask_);
    row->addStretch(1);
    layout->addLayout(row);
    answer_ = new QLabel(this);
    answer_->setObjectName(QStringLiteral("whyNotAnswer"));
    answer_->setWordWrap(true);
    answer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(answer_);
    connect(ask_, &QPushButton::clicked, this, &WhyNotShapePanel::explain);
    for (QSpinBox* box : {tp_, pp_, dp_})  // an answer about another shape would mislead
        connect(box, &QSpinBox::valueChanged, answer_, &QLabel::clear);
    clear();
}

void WhyNotShapePanel::setProblem(const Problem& problem, std::shared_ptr<const Predictor> predictor, int tp, int pp,
                                  int dp)
{
    problem_ = std::make_unique<Problem>(problem);
    predictor_ = std::move(predictor);
    tp_->setValue(tp);
    pp_->setValue(pp);
    dp_->setValue(dp);
    ask_->setEnabled(true);
    answer_->setText(tr("Pick a shape and ask why no plan has it (for example PP 1 on a mixed cluster)."));
}

void WhyNotShapePanel::clear()
{
    problem_.reset();
    predictor_.reset();
    ask_->setEnabled(false);
    answer_->setText(tr("After a search: ask why no plan has a given TP, PP and DP."));
}

QString WhyNotShapePanel::answer() const { return answer_->text(); }

void WhyNotShapePanel::explain()
{
    if (!problem_)
        return;
    // A shape's memory answer builds the tables of up to 64 of its skeletons:
    // well under a second for the models the catalog holds.
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    const ShapeExplanation e = ShapeExplanation::of(*problem_, tp_->value(), pp_->value(), dp_->value(), predictor_);
    QGuiApplication::restoreOverrideCursor();
    answer_->setText(QString::fromStdString(e.text()).trimmed());
}

}  // namespace memx
