#include "BaselinesView.h"

#include "NumberText.h"
#include "search/PlanCost.h"

#include "MemoryBars.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace memx {

namespace {

constexpr double kShownAbove = 1.3;  // the mini bars reach 130% of capacity, then clip

QString signedPercent(double fraction)
{
    return (fraction >= 0 ? QStringLiteral("+") : QString()) + QString::number(100 * fraction, 'f', 1)
        + QLatin1Char('%');
}

QString rankText(std::uint64_t rank, bool approximate)
{
    if (rank == 0)
        return QStringLiteral("–");
    return (approximate ? QStringLiteral("~") : QString()) + QLocale().toString(static_cast<qulonglong>(rank));
}

// "stage 2 (T4) needs 17.1 of 15.0 GiB" for every stage over its memory (1-based).
QStringList overMemory(const Plan& p)
{
    QStringList over;
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
        const auto& st = p.stages[i];
        if (st.headroom() < 0)
            over << BaselinesView::tr("stage %1 (%2) needs %3 of %4 GiB")
                        .arg(i + 1)  // as MemoryBars numbers them
                        .arg(QString::fromStdString(st.gpuType))
                        .arg(fixedNumber(st.memory.totalMiB() / kMiBPerGiB, 1),
                             fixedNumber(st.capacityMiB / kMiBPerGiB, 1));
    }
    return over;
}

// Every stage's peak per GPU against its memory, as one bar per stage, as
// wide as the stage's share of the GPUs: a line marks 100%; above it the bar
// is red.
class PeakStrip final : public QWidget {
public:
    PeakStrip(const Plan& plan, QWidget* parent) : QWidget(parent), plan_(plan)
    {
        setMinimumSize(120, 34);
        QStringList tip;
        for (std::size_t i = 0; i < plan.stages.size(); ++i) {
            const auto& s = plan.stages[i];
            tip << BaselinesView::tr("stage %1 (%2, %3 GPUs): %4 / %5 GiB")
                       .arg(i)
                       .arg(QString::fromStdString(s.gpuType))
                       .arg(s.devices.size())
                       .arg(fixedNumber(s.memory.totalMiB() / kMiBPerGiB, 1),
                            fixedNumber(s.capacityMiB / kMiBPerGiB, 1));
        }
        setToolTip(tip.join(QLatin1Char('\n')));
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const QRectF area = QRectF(rect()).adjusted(4, 3, -4, -3);
        std::size_t gpus = 0;
        for (const auto& s : plan_.stages)
            gpus += std::max<std::size_t>(1, s.devices.size());
        if (gpus == 0)
            return;
        const double full = area.height() / kShownAbove;  // height of 100%
        const double base = area.bottom();
        double x = area.left();
        // Fixed colours on a panel of their own, readable on a selected row too.
        p.fillRect(rect().adjusted(1, 1, -1, -1), palette().color(QPalette::Base));
        const QColor ok(0x3b, 0x6e, 0xa8);
        for (const auto& s : plan_.stages) {
            const double w = area.width() * std::max<std::size_t>(1, s.devices.size()) / double(gpus);
            const double share = s.capacityMiB > 0 ? s.memory.totalMiB() / s.capacityMiB : 0;
            const double h = std::min(share, kShownAbove) * full;
            const bool over = share > 1;
            p.fillRect(QRectF(x + 1, base - h, std::max(1.0, w - 2), h), over ? QColor(0xd6, 0x27, 0x28) : ok);
            x += w;
        }
        QPen cap(palette().color(QPalette::Text));
        cap.setStyle(Qt::DashLine);
        p.setPen(cap);
        p.drawLine(QPointF(area.left(), base - full), QPointF(area.right(), base - full));
    }

private:
    Plan plan_;
};

}  // namespace

BaselinesView::BaselinesView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    empty_ = new QLabel(tr("Run a search: the baseline planners' picks appear here beside MemX's."), this);
    empty_->setAlignment(Qt::AlignCenter);
    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setHorizontalHeaderLabels({tr("Planner"), tr("TP×PP×DP, mbs"), tr("Layers"), tr("Recompute"), tr("T (ms)"),
                                       tr("Tokens/s"), tr("vs MemX"), tr("M (GiB)"), tr("V"), tr("Φ"), tr("Headroom"),
                                       tr("Rank T"), tr("Rank Φ"), tr("Peak / memory per GPU"), tr("Fits")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->setVisible(false);
    table_->setWordWrap(false);
    // The table above, the selected pick's bars below; the user may move the line between.
    splitter_ = new QSplitter(Qt::Vertical, this);
    splitter_->setChildrenCollapsible(false);
    auto* detail = new QWidget(splitter_);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailTitle_ = new QLabel(detail);
    bars_ = new MemoryBars(detail);
    detailLayout->addWidget(detailTitle_);
    detailLayout->addWidget(bars_, 1);
    splitter_->addWidget(table_);
    splitter_->addWidget(detail);
    splitter_->setStretchFactor(0, 0);
    splitter_->setStretchFactor(1, 1);
    layout->addWidget(title_);
    layout->addWidget(empty_);
    layout->addWidget(splitter_, 1);
    connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { showRow(row); });
    clear();
}

void BaselinesView::clear()
{
    picks_.clear();
    table_->setRowCount(0);
    title_->clear();
    detailTitle_->clear();
    bars_->clear();
    empty_->setVisible(true);
    splitter_->setVisible(false);
}

namespace {

// A pick's row, column by column (the per-GPU strip is a widget).
QStringList cellsOf(const SearchResult::BaselinePick& b, const Plan& memx, bool mib)
{
    const Plan& p = b.plan;
    QString fits = b.fits ? BaselinesView::tr("yes") : BaselinesView::tr("OOM");
    if (b.kind != BaselineKind::MemX && b.samePlanAsMemX)
        fits += BaselinesView::tr(", = MemX");
    return {
        QString::fromLatin1(baselineInfo(b.kind).name),
        QStringLiteral("%1×%2×%3, %4").arg(p.tp).arg(p.pp).arg(p.dp).arg(p.microBatch),
        QString::fromStdString(p.layersString()),
        QString::fromStdString(p.recomputeString()),
        QLocale().toString(p.iterationMs, 'f', 1),
        QLocale().toString(PlanCost::tokensPerSecond(p), 'f', 0),
        b.kind == BaselineKind::MemX ? QString() : signedPercent(p.iterationMs / memx.iterationMs - 1),
        fixedNumber(p.maxMemMiB / kMiBPerGiB, 2),
        mib ? fixedNumber(p.varMem / (kMiBPerGiB * kMiBPerGiB), 2) + QStringLiteral(" GiB²") : fixedNumber(p.varMem, 4),
        fixedNumber(p.phi, 4),
        QStringLiteral("%1%").arg(100 * p.minHeadroom(), 0, 'f', 0),
        rankText(p.rankTime, p.ranksApproximate),
        rankText(p.rankPhi, p.ranksApproximate),
        QString(),
        fits,
    };
}

// One cell: aligned, tinted (OOM red, MemX highlighted), with its tooltip.
QTableWidgetItem* itemOf(const SearchResult::BaselinePick& b, int c, const QString& text, const QColor& memxTint)
{
    const QColor oomTint(0xd6, 0x27, 0x28, 48);
    const BaselineInfo& info = baselineInfo(b.kind);
    auto* item = new QTableWidgetItem(text);
    if (c >= BaselinesView::Time && c <= BaselinesView::RankPhi)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!b.fits)
        item->setBackground(oomTint);
    else if (b.kind == BaselineKind::MemX)
        item->setBackground(memxTint);
    if (c == BaselinesView::Planner) {
        item->setToolTip(BaselinesView::tr("Searches: %1.\nLeaves out: %2.")
                             .arg(QString::fromLatin1(info.searches), QString::fromLatin1(info.leavesOut)));
        if (b.kind == BaselineKind::MemX) {
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
    }
    const QStringList over = overMemory(b.plan);
    if (c == BaselinesView::Fits && !over.isEmpty())
        item->setToolTip(BaselinesView::tr("Does not fit: %1").arg(over.join(QStringLiteral("; "))));
    if (c == BaselinesView::Fits && !b.fits) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        item->setForeground(QColor(0xb0, 0x1e, 0x1f));
    }
    return item;
}

}  // namespace

void BaselinesView::setResult(const SearchResult& r, const Cluster& cluster)
{
    clear();
    if (r.baselines.empty())
        return;
    picks_ = r.baselines;
    cluster_ = cluster;
    empty_->setVisible(false);
    splitter_->setVisible(true);
    title_->setText(tr("<b>Baselines</b> on the same space, predictor and memory model. Φ and ranks under the %1 "
                       "profile; ranks are among the feasible plans (%2 of them).%3")
                        .arg(QString::fromLatin1(toString(r.profileUsed)))
                        .arg(QLocale().toString(static_cast<qulonglong>(r.stats.feasible)))
                        .arg(r.incomplete.empty() ? QString()
                                                  : tr(" <b>Incomplete search:</b> the picks are the best "
                                                       "found before it stopped.")));
    const Plan& memx = picks_.back().plan;
    const bool mib = r.varianceMode == VarianceMode::AbsoluteMiB;
    table_->setRowCount(static_cast<int>(picks_.size()));
    QColor memxTint = palette().color(QPalette::Highlight);  // translucent: readable on light and dark palettes
    memxTint.setAlpha(56);
    for (int row = 0; row < table_->rowCount(); ++row) {
        const auto& b = picks_[static_cast<std::size_t>(row)];
        const QStringList cells = cellsOf(b, memx, mib);
        for (int c = 0; c < ColumnCount; ++c)
            table_->setItem(row, c, itemOf(b, c, cells[c], memxTint));
        table_->setCellWidget(row, PerGpu, new PeakStrip(b.plan, table_));
    }
    table_->resizeColumnsToContents();
    table_->setColumnWidth(PerGpu, std::max(table_->columnWidth(PerGpu), 130));
    int height = table_->horizontalHeader()->height() + 2 * table_->frameWidth();
    for (int row = 0; row < table_->rowCount(); ++row) {
        table_->setRowHeight(row, std::max(table_->rowHeight(row), 38));
        height += table_->rowHeight(row);
    }
    // At most as tall as its rows (and a scroll bar's room): the plan's bars get
    // the rest. On a short window it scrolls rather than squeeze the docks.
    table_->setMaximumHeight(height + table_->horizontalScrollBar()->sizeHint().height());
    table_->setMinimumHeight(std::min(table_->maximumHeight(), 120));
    splitter_->setSizes({table_->maximumHeight(), std::max(200, splitter_->height() - table_->maximumHeight())});
    // The first pick that does not fit, to show why; else MemX's.
    int show = table_->rowCount() - 1;
    for (int row = 0; row < table_->rowCount(); ++row)
        if (!picks_[static_cast<std::size_t>(row)].fits) {
            show = row;
            break;
        }
    selectRow(show);
}

int BaselinesView::rowCount() const { return table_->rowCount(); }

QString BaselinesView::cellText(int row, int column) const
{
    const QTableWidgetItem* item = table_->item(row, column);
    return item ? item->text() : QString();
}

bool BaselinesView::rowMarkedOom(int row) const
{
    return row >= 0 && row < rowCount() && !picks_[static_cast<std::size_t>(row)].fits;
}

int BaselinesView::selectedRow() const { return table_->currentRow(); }

void BaselinesView::selectRow(int row)
{
    table_->setCurrentCell(row, Planner);
    showRow(row);
}

void BaselinesView::showRow(int row)
{
    if (row < 0 || row >= rowCount()) {
        bars_->clear();
        detailTitle_->clear();
        return;
    }
    const auto& b = picks_[static_cast<std::size_t>(row)];
    const QStringList over = overMemory(b.plan);
    detailTitle_->setText(
        tr("Memory per GPU of the <b>%1</b> pick%2")
            .arg(QString::fromLatin1(baselineInfo(b.kind).name),
                 over.isEmpty()
                     ? QString()
                     : tr(": <b style='color:#b01e1f'>out of memory</b>, %1").arg(over.join(QStringLiteral("; ")))));
    bars_->setPlan(b.plan, cluster_);
}

}  // namespace memx
