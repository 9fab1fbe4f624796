#include "NodeLossPanel.h"

#include "search/PlanCost.h"

#include "OneColumnTable.h"

#include "io/Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace memx {

namespace {

QString planLine(const Plan& p)
{
    return QStringLiteral("PP%1 %2").arg(p.pp).arg(QString::fromStdString(p.shapeString()));
}

}  // namespace

NodeLossPanel::NodeLossPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("<b>Node loss</b>"), this);
    intro_ = new QLabel(this);
    intro_->setWordWrap(true);
    which_ = new QComboBox(this);
    which_->addItem(tr("each node (alike nodes once)"), QStringLiteral("each"));
    which_->addItem(tr("each GPU type's first node"), QStringLiteral("per-type"));
    which_->setAccessibleName(tr("Nodes to lose"));
    robust_ = new QCheckBox(tr("Rank plans by worst case"), this);
    robust_->setToolTip(tr("Rank the kept plans by their worst time when any one node is lost: a plan the node was "
                           "idle in runs on; one that used it restarts with the same TP and micro-batch, its pipeline "
                           "and DP chosen again on the GPUs left."));
    run_ = new QPushButton(tr("Re-plan without each node"), this);
    run_->setObjectName(QStringLiteral("nodeLossRun"));
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    scenarios_ = oneColumnTable(tr("Without the node: best plan"), this);
    robustTable_ = oneColumnTable(tr("Ranked by worst case"), this);
    auto* row = new QHBoxLayout;
    row->addWidget(which_, 1);
    layout->addWidget(title);
    layout->addWidget(intro_);
    layout->addLayout(row);
    layout->addWidget(robust_);
    layout->addWidget(run_, 0, Qt::AlignLeft);
    layout->addWidget(summary_);
    layout->addWidget(scenarios_, 1);
    layout->addWidget(robustTable_, 1);
    connect(run_, &QPushButton::clicked, this, &NodeLossPanel::replanRequested);
    connect(robustTable_, &QTableWidget::cellClicked, this, [this](int r) {
        if (r >= 0 && r < static_cast<int>(keys_.size()))
            emit planActivated(keys_[static_cast<std::size_t>(r)]);
    });
    clear();
}

void NodeLossPanel::clear()
{
    keys_.clear();
    scenarios_->setRowCount(0);
    robustTable_->setRowCount(0);
    scenarios_->setVisible(false);
    robustTable_->setVisible(false);
    run_->setEnabled(false);
    summary_->clear();
    intro_->setText(tr("Run a search: then re-plan the cluster without each of its nodes to see what a failed node "
                       "costs."));
}

void NodeLossPanel::setReady()
{
    clear();
    run_->setEnabled(true);
    intro_->setText(tr("Search the last search's cluster again without each node: each scenario is a whole search, "
                       "so this takes a while on a large cluster."));
}

NodeLossWhatIf::Options NodeLossPanel::options() const
{
    NodeLossWhatIf::Options o;
    NodeLossWhatIf::parse(which_->currentData().toString().toStdString(), o.which);
    o.robust = robust_->isChecked();
    o.topK = 8;
    return o;
}

void NodeLossPanel::setBusy()
{
    run_->setEnabled(false);
    summary_->setText(tr("Re-planning without each node…"));
}

void NodeLossPanel::request() { emit replanRequested(); }

void NodeLossPanel::setOutcome(const NodeLossWhatIf::Result& w)
{
    run_->setEnabled(true);
    keys_.clear();
    scenarios_->setRowCount(0);
    robustTable_->setRowCount(0);
    if (!w.error.empty()) {
        summary_->setText(QString::fromStdString(w.error).toHtmlEscaped());
        scenarios_->setVisible(false);
        robustTable_->setVisible(false);
        return;
    }
    summary_->setText(tr("Plan 1: <b>%1 s</b>, %2 tokens/s on the whole cluster.")
                          .arg(w.plan1Ms / 1000, 0, 'f', 2)
                          .arg(w.plan1TokensPerS, 0, 'f', 0));
    scenarios_->setVisible(true);
    scenarios_->setRowCount(static_cast<int>(w.scenarios.size()));
    for (int r = 0; r < scenarios_->rowCount(); ++r) {
        const auto& s = w.scenarios[static_cast<std::size_t>(r)];
        QString head = tr("without %1 (%2)").arg(QString::fromStdString(s.name), QString::fromStdString(s.gpus));
        if (!s.alike.empty())
            head += tr(", or any of %n like it", nullptr, static_cast<int>(s.alike.size()));
        QString text;
        if (!s.error.empty())
            text = head + tr("\nno plan fits: %1").arg(QString::fromStdString(s.error));
        else
            text = head
                + tr("\n%1 s (%2%3%), %4 tokens/s%5\n%6")
                      .arg(s.plan.iterationMs / 1000, 0, 'f', 2)
                      .arg(s.slowdown >= 0 ? QStringLiteral("+") : QString())
                      .arg(100 * s.slowdown, 0, 'f', 1)
                      .arg(s.tokensPerS, 0, 'f', 0)
                      .arg(s.plan1Idle ? tr(" · plan 1 does not use it") : QString())
                      .arg(planLine(s.plan));
        auto* item = new QTableWidgetItem(text);
        if (!s.alike.empty())
            item->setToolTip(QString::fromStdString(Text::join(s.alike)));
        scenarios_->setItem(r, 0, item);
    }
    scenarios_->resizeRowsToContents();
    robustTable_->setVisible(w.robust);
    if (!w.robust)
        return;
    robustTable_->setRowCount(static_cast<int>(w.robustPlans.size()));
    for (int r = 0; r < robustTable_->rowCount(); ++r) {
        const auto& rp = w.robustPlans[static_cast<std::size_t>(r)];
        const QString text = tr("%1. %2\nworst %3 s (without %4), planned %5 s, %7 tokens/s · Φ %6")
                                 .arg(r + 1)
                                 .arg(planLine(rp.plan))
                                 .arg(rp.worstMs / 1000, 0, 'f', 2)
                                 .arg(QString::fromStdString(w.scenarios[rp.worst].name))
                                 .arg(rp.plan.iterationMs / 1000, 0, 'f', 2)
                                 .arg(rp.worstPhi, 0, 'f', 4)
                                 .arg(PlanCost::tokensPerSecond(rp.plan), 0, 'f', 0);
        auto* item = new QTableWidgetItem(text);
        item->setToolTip(QString::fromStdString(rp.plan.orderString()));
        robustTable_->setItem(r, 0, item);
        keys_.push_back(rp.plan.key);
    }
    robustTable_->resizeRowsToContents();
}

int NodeLossPanel::scenarioRows() const { return scenarios_->rowCount(); }

int NodeLossPanel::robustRows() const { return robustTable_->rowCount(); }

QString NodeLossPanel::summaryText() const { return summary_->text(); }

}  // namespace memx
