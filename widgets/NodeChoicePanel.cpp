#include "NodeChoicePanel.h"

#include "OneColumnTable.h"

#include "io/Text.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace memx {

namespace {

// Below zero: no limit (the spin box shows its special text there).
QDoubleSpinBox* limitBox(double max, double step, int decimals, QWidget* parent)
{
    auto* b = new QDoubleSpinBox(parent);
    b->setRange(-step, max);
    b->setSingleStep(step);
    b->setDecimals(decimals);
    b->setValue(-step);
    b->setSpecialValueText(QObject::tr("no limit"));
    return b;
}

QString rowLine(const NodeChoice::Row& r)
{
    QString head = r.whole
        ? QObject::tr("whole cluster (%1 GPUs)").arg(r.gpus)
        : QObject::tr("%1 (%2 GPUs)").arg(QString::fromStdString(NodeChoice::keptText(r))).arg(r.gpus);
    if (!r.left.empty())
        head += QObject::tr("\nleaves out %1").arg(QString::fromStdString(Text::join(r.left)));
    if (!r.error.empty())
        return head
            + (r.error == NodeChoice::timeRanOut ? QStringLiteral("\n%1") : QObject::tr("\nno plan fits: %1"))
                  .arg(QString::fromStdString(r.error));
    QString text = head
        + QObject::tr("\n%1 s, %2 tokens/s")
              .arg(r.plan.iterationMs / 1000, 0, 'f', 2)
              .arg(r.cost.tokensPerS, 0, 'f', 0);
    if (r.cost.perHour >= 0)
        text += QObject::tr(" · %1 per hour, %2 per million tokens")
                    .arg(r.cost.perHour, 0, 'f', 2)
                    .arg(r.cost.perMillionTokens, 0, 'f', 3);
    if (!r.meetsLimits)
        text += QObject::tr("\n(misses the limits; shown as the reference)");
    return text + QStringLiteral("\nPP%1 %2").arg(r.plan.pp).arg(QString::fromStdString(r.plan.shapeString()));
}

}  // namespace

NodeChoicePanel::NodeChoicePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("<b>Choose nodes</b>"), this);
    intro_ = new QLabel(this);
    intro_->setWordWrap(true);
    rank_ = new QComboBox(this);
    rank_->addItem(tr("tokens per second"), int(NodeChoice::Rank::Throughput));
    rank_->addItem(tr("cost per million tokens"), int(NodeChoice::Rank::Cost));
    rank_->setAccessibleName(tr("Rank node choices by"));
    maxCost_ = limitBox(1e7, 1, 2, this);
    maxCost_->setAccessibleName(tr("Most cost per hour"));
    minTokens_ = limitBox(1e9, 100, 0, this);
    minTokens_->setAccessibleName(tr("Fewest tokens per second"));
    auto* form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Rank by"), rank_);
    form->addRow(tr("Cost per hour at most"), maxCost_);
    form->addRow(tr("Tokens/s at least"), minTokens_);
    run_ = new QPushButton(tr("Compare node choices"), this);
    run_->setObjectName(QStringLiteral("nodeChoiceRun"));
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    table_ = oneColumnTable(tr("GPUs kept: best plan"), this);
    layout->addWidget(title);
    layout->addWidget(intro_);
    layout->addLayout(form);
    layout->addWidget(run_, 0, Qt::AlignLeft);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    connect(run_, &QPushButton::clicked, this, &NodeChoicePanel::compareRequested);
    clear();
}

void NodeChoicePanel::clear()
{
    table_->setRowCount(0);
    table_->setVisible(false);
    run_->setEnabled(false);
    summary_->clear();
    intro_->setText(tr("Run a search: then compare leaving out the nodes of some GPU types, or some nodes of one type, "
                       "by throughput or by cost per token."));
}

void NodeChoicePanel::setReady()
{
    clear();
    run_->setEnabled(true);
    intro_->setText(tr("Search the last search's cluster again with the nodes of each set of GPU types left out "
                       "(a slow type can drag the pipeline), and with some nodes of one type left out (a node count "
                       "can divide badly). Each choice is a whole search."));
}

NodeChoice::Options NodeChoicePanel::options() const
{
    NodeChoice::Options o;
    o.rank = static_cast<NodeChoice::Rank>(rank_->currentData().toInt());
    o.maxCostPerHour = maxCost_->value() >= 0 ? maxCost_->value() : -1;
    o.minTokensPerS = minTokens_->value() >= 0 ? minTokens_->value() : -1;
    return o;
}

void NodeChoicePanel::setBusy()
{
    run_->setEnabled(false);
    summary_->setText(tr("Searching each choice of nodes…"));
}

void NodeChoicePanel::setProgress(std::size_t done, std::size_t total)
{
    summary_->setText(tr("Searching each choice of nodes: %1 of %2 searched…").arg(done).arg(total));
}

void NodeChoicePanel::request() { emit compareRequested(); }

void NodeChoicePanel::setOutcome(const NodeChoice::Result& r)
{
    run_->setEnabled(true);
    table_->setRowCount(0);
    if (!r.error.empty()) {
        summary_->setText(QString::fromStdString(r.error));
        table_->setVisible(false);
        return;
    }
    QString summary = tr("%n choice(s)", nullptr, static_cast<int>(r.rows.size()));
    if (r.dropped > 0)
        summary += tr(", %n dropped by the limits", nullptr, static_cast<int>(r.dropped));
    summary += r.pricesKnown ? tr("; prices from the cluster's GPU types.")
                             : tr("; some GPU types have no price, so there are no costs (set them in the cluster "
                                  "editor: Price per GPU-hour).");
    summary_->setText(summary);
    table_->setVisible(true);
    table_->setRowCount(static_cast<int>(r.rows.size()));
    for (int i = 0; i < table_->rowCount(); ++i) {
        const NodeChoice::Row& row = r.rows[static_cast<std::size_t>(i)];
        auto* item = new QTableWidgetItem(QStringLiteral("%1. ").arg(i + 1) + rowLine(row));
        if (row.error.empty())
            item->setToolTip(QString::fromStdString(row.plan.orderString()));
        table_->setItem(i, 0, item);
    }
    table_->resizeRowsToContents();
}

int NodeChoicePanel::rows() const { return table_->rowCount(); }

QString NodeChoicePanel::rowText(int row) const
{
    const QTableWidgetItem* item = table_->item(row, 0);
    return item ? item->text() : QString();
}

QString NodeChoicePanel::summaryText() const { return summary_->text(); }

}  // namespace memx
