#include "BandwidthWhatIfPanel.h"

#include "OneColumnTable.h"

#include <QHBoxLayout>
#include <algorithm>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace memx {

namespace {
constexpr int kMinPercent = 5;
constexpr int kMaxPercent = 200;
constexpr int kPauseMs = 200;  // after the last move, before asking for a re-ranking
}  // namespace

BandwidthWhatIfPanel::BandwidthWhatIfPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    intro_ = new QLabel(this);
    intro_->setWordWrap(true);
    slidersBox_ = new QWidget(this);
    slidersLayout_ = new QVBoxLayout(slidersBox_);
    slidersLayout_->setContentsMargins(0, 0, 0, 0);
    reset_ = new QPushButton(tr("All at 100%"), this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    // One cell per plan, on three lines: the panel shares a narrow dock.
    table_ = oneColumnTable(tr("Best here (Φ with this time)"), this);
    layout->addWidget(intro_);
    layout->addWidget(slidersBox_);
    layout->addWidget(reset_, 0, Qt::AlignLeft);
    layout->addWidget(summary_);
    layout->addWidget(table_, 1);
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(kPauseMs);
    connect(debounce_, &QTimer::timeout, this, &BandwidthWhatIfPanel::scalesChanged);
    connect(reset_, &QPushButton::clicked, this, [this] {
        for (Row& r : rows_)
            r.slider->setValue(100);
    });
    connect(table_, &QTableWidget::cellClicked, this, [this](int row) {
        if (row >= 0 && row < static_cast<int>(keys_.size()))
            emit planActivated(keys_[static_cast<std::size_t>(row)]);
    });
    clear();
}

void BandwidthWhatIfPanel::clear()
{
    for (Row& r : rows_) {
        delete r.slider->parentWidget();
    }
    rows_.clear();
    keys_.clear();
    table_->setRowCount(0);
    table_->setVisible(false);
    reset_->setVisible(false);
    summary_->clear();
    intro_->setText(tr("Run a search: then scale each kind of link here to see how its plans fare on a slower (or "
                       "faster) network."));
}

void BandwidthWhatIfPanel::setCluster(const Cluster& cluster)
{
    clear();
    std::vector<LinkKind> kinds;
    for (const Link& l : cluster.links())
        if (std::find(kinds.begin(), kinds.end(), l.kind) == kinds.end())
            kinds.push_back(l.kind);
    intro_->setText(tr("Scale each kind of link of %1 and see the last search's plans re-timed and re-ranked there. "
                       "Compute comes from the search's prediction store.")
                        .arg(QString::fromStdString(cluster.name())));
    for (LinkKind kind : kinds) {
        auto* line = new QWidget(slidersBox_);
        auto* h = new QHBoxLayout(line);
        h->setContentsMargins(0, 0, 0, 0);
        auto* name = new QLabel(QString::fromLatin1(toString(kind)), line);
        name->setMinimumWidth(70);
        auto* slider = new QSlider(Qt::Horizontal, line);
        slider->setMinimumWidth(90);
        slider->setRange(kMinPercent, kMaxPercent);
        slider->setValue(100);
        slider->setObjectName(QStringLiteral("bandwidth-") + QString::fromLatin1(toString(kind)));
        slider->setAccessibleName(tr("%1 bandwidth, percent").arg(QString::fromLatin1(toString(kind))));
        auto* value = new QLabel(QStringLiteral("100%"), line);
        value->setMinimumWidth(40);
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        h->addWidget(name);
        h->addWidget(slider, 1);
        h->addWidget(value);
        slidersLayout_->addWidget(line);
        connect(slider, &QSlider::valueChanged, this, [this, value](int v) {
            value->setText(QStringLiteral("%1%").arg(v));
            debounce_->start();
        });
        rows_.push_back({kind, slider, value});
    }
    reset_->setVisible(!rows_.empty());
    summary_->setText(tr("Every link as described."));
}

std::vector<BandwidthScenario::Scale> BandwidthWhatIfPanel::scales() const
{
    std::vector<BandwidthScenario::Scale> out;
    for (const Row& r : rows_)
        if (r.slider->value() != 100)
            out.push_back({std::string("kind:") + toString(r.kind), r.slider->value() / 100.0});
    return out;
}

void BandwidthWhatIfPanel::setPercent(LinkKind kind, int percent)
{
    for (Row& r : rows_)
        if (r.kind == kind)
            r.slider->setValue(percent);
}

QStringList BandwidthWhatIfPanel::kinds() const
{
    QStringList out;
    for (const Row& r : rows_)
        out << QString::fromLatin1(toString(r.kind));
    return out;
}

void BandwidthWhatIfPanel::setBusy() { summary_->setText(tr("Re-timing the plans…")); }

void BandwidthWhatIfPanel::setOutcome(const BandwidthWhatIf::Result& outcome, const Plan& plan1)
{
    keys_.clear();
    table_->setRowCount(0);
    if (!outcome.error.empty() || outcome.scenarios.empty()) {
        summary_->setText(QString::fromStdString(outcome.error));
        table_->setVisible(false);
        return;
    }
    const auto& s = outcome.scenarios.front();
    const QString scaled = QString::fromStdString(BandwidthScenario::describe(scales()));
    if (s.nominalBestMs < 0)
        summary_->setText(tr("%1: plan 1 cannot run (a link it needs is gone).").arg(scaled));
    else
        summary_->setText(tr("%1: plan 1 takes <b>%2 s</b> instead of %3 s (<b>%4%5%</b>).")
                              .arg(scaled)
                              .arg(s.nominalBestMs / 1000, 0, 'f', 2)
                              .arg(plan1.iterationMs / 1000, 0, 'f', 2)
                              .arg(s.slowdown >= 0 ? QStringLiteral("+") : QString())
                              .arg(100 * s.slowdown, 0, 'f', 1));
    table_->setVisible(true);
    table_->setRowCount(static_cast<int>(outcome.robustPlans.size()));
    for (int row = 0; row < table_->rowCount(); ++row) {
        const auto& rp = outcome.robustPlans[static_cast<std::size_t>(row)];
        const Plan& p = rp.plan;
        const QString text
            = tr("%1. TP%2 PP%3 DP%4 mbs%5%6\n%7 s (was %8), %13 tokens/s · Φ %9 (was #%10)\n%11 · %12")
                  .arg(row + 1)
                  .arg(p.tp)
                  .arg(p.pp)
                  .arg(p.dp)
                  .arg(p.microBatch)
                  .arg(p.key == plan1.key ? tr(" · plan 1") : QString())
                  .arg(rp.robustMs / 1000, 0, 'f', 2)
                  .arg(p.iterationMs / 1000, 0, 'f', 2)
                  .arg(rp.robustPhi, 0, 'f', 4)
                  .arg(p.rankPhi > 0 ? QString::number(p.rankPhi) : QStringLiteral("–"))
                  .arg(QString::fromStdString(p.layersString()), QString::fromStdString(p.recomputeString()))
                  // Under the scenario: gbs x seq / the time it would take there.
                  .arg(rp.robustMs > 0 ? double(p.globalBatch) * p.seqLen / (rp.robustMs / 1000) : 0.0, 0, 'f', 0);
        auto* item = new QTableWidgetItem(text);
        item->setToolTip(QString::fromStdString(p.orderString()));
        table_->setItem(row, 0, item);
        keys_.push_back(p.key);
    }
    table_->resizeRowsToContents();
}

QString BandwidthWhatIfPanel::summaryText() const { return summary_->text(); }

int BandwidthWhatIfPanel::rankedRows() const { return table_->rowCount(); }

}  // namespace memx
