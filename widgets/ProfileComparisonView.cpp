#include "ProfileComparisonView.h"

#include "NumberText.h"
#include "PlanColors.h"
#include "StageStrip.h"
#include "search/PlanCost.h"
#include "search/ProfileComparison.h"

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace memx {

namespace {
constexpr double kLowHeadroom = 0.10;  // below this the headroom is shown as a warning

QString profileTitle(WeightProfile p)
{
    switch (p) {
    case WeightProfile::Default: return ProfileComparisonView::tr("Default");
    case WeightProfile::SafetyFirst: return ProfileComparisonView::tr("Safety-first");
    case WeightProfile::ThroughputFirst: return ProfileComparisonView::tr("Throughput-first");
    case WeightProfile::Custom: return ProfileComparisonView::tr("Custom");
    case WeightProfile::Auto: return ProfileComparisonView::tr("Auto");
    case WeightProfile::Balanced: return ProfileComparisonView::tr("Balanced");
    }
    return {};
}

QString varianceText(const SearchResult& r, double v)
{
    return r.varianceMode == VarianceMode::AbsoluteMiB ? fixedNumber(v / (kMiBPerGiB * kMiBPerGiB), 2) + " GiB²"
                                                       : fixedNumber(v, 4) + " util²";
}

class ProfileCard final : public QFrame {
public:
    ProfileCard(QColor colour, std::function<void()> onClick, QWidget* parent)
        : QFrame(parent)
        , onClick_(std::move(onClick))
    {
        setObjectName(QStringLiteral("profileCard"));
        setAttribute(Qt::WA_Hover);
        setCursor(Qt::PointingHandCursor);
        // Explicit colours from the palette the view was given: a style sheet's
        // palette(base) resolves against the application palette, which left
        // white cards with light captions on a dark window.
        const QPalette pal = parent->palette();
        setStyleSheet(QStringLiteral("#profileCard { background: %3; border: 1px solid %1; border-radius: 6px; }"
                                     "#profileCard:hover { border: 2px solid %2; }"
                                     "#profileCard QLabel { color: %4; }")
                          .arg(colour.lighter(140).name(), colour.name(), pal.color(QPalette::Base).name(),
                               pal.color(QPalette::Text).name()));
    }

protected:
    void mouseReleaseEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton && rect().contains(e->position().toPoint()) && onClick_)
            onClick_();
        QFrame::mouseReleaseEvent(e);
    }

private:
    std::function<void()> onClick_;
};

// Captions: the text colour, faded, so they read on light and dark palettes.
QString secondaryStyle(const QWidget* w)
{
    const QColor t = w->palette().color(QPalette::WindowText);
    return QStringLiteral("QLabel { color: rgba(%1, %2, %3, 60%); }").arg(t.red()).arg(t.green()).arg(t.blue());
}

// A small caption over a large value.
QFrame* tile(const QString& caption, const QString& value, bool warn, QWidget* parent)
{
    auto* f = new QFrame(parent);
    f->setObjectName(QStringLiteral("tile"));
    f->setStyleSheet(QStringLiteral("#tile { background: %1; border-radius: 4px; }")
                         .arg(parent->palette().color(QPalette::AlternateBase).name()));
    auto* v = new QVBoxLayout(f);
    v->setContentsMargins(6, 4, 6, 4);
    v->setSpacing(0);
    auto* c = new QLabel(caption, f);
    c->setStyleSheet(secondaryStyle(parent));
    QFont small = c->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    c->setFont(small);
    auto* n = new QLabel(value, f);
    QFont big = n->font();
    big.setPointSizeF(big.pointSizeF() * 1.25);
    big.setBold(true);
    n->setFont(big);
    if (warn)
        n->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
    v->addWidget(c);
    v->addWidget(n);
    return f;
}

QLabel* label(const QString& text, QWidget* parent, bool secondary = false)
{
    auto* l = new QLabel(text, parent);
    if (secondary)
        l->setStyleSheet(secondaryStyle(parent));
    return l;
}
}  // namespace

ProfileComparisonView::ProfileComparisonView(QWidget* parent) : QWidget(parent)
{
    auto* root = new QVBoxLayout(this);
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("title"));
    QFont f = title_->font();
    f.setBold(true);
    title_->setFont(f);
    title_->setWordWrap(true);  // never wider than the view
    legend_ = new QLabel(this);
    legend_->setObjectName(QStringLiteral("legend"));
    legend_->setWordWrap(true);
    auto* top = new QHBoxLayout;
    top->addWidget(title_, 1);
    top->addWidget(legend_);
    root->addLayout(top);

    empty_ = new QLabel(tr("Run a search that compares weight profiles to see the best plan under each of them here."),
                        this);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setWordWrap(true);
    empty_->setEnabled(false);
    root->addWidget(empty_, 1);

    auto* scroll = scroll_ = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    row_ = new QWidget(scroll);
    cardsLayout_ = new QGridLayout(row_);
    cardsLayout_->setContentsMargins(0, 0, 0, 0);
    cardsLayout_->setSpacing(10);
    scroll->setWidget(row_);
    root->addWidget(scroll, 1);
    clear();
}

void ProfileComparisonView::clear()
{
    // deleteLater: clear() may run inside a card's own click (planActivated -> setResult).
    for (auto& c : cards_) {
        cardsLayout_->removeWidget(c.widget);
        c.widget->hide();
        c.widget->deleteLater();
    }
    cards_.clear();
    title_->setText(tr("Best plan under each weight profile"));
    legend_->clear();
    legendTypes_.clear();
    empty_->show();
    scroll_->hide();
}

void ProfileComparisonView::setResult(const SearchResult& r, const Cluster* cluster)
{
    clear();
    cluster_.reset();
    if (cluster)
        cluster_ = *cluster;
    if (r.profilePicks.empty())
        return;
    if (r.tasks.size() >= 2) {
        setTasks(r);
        return;
    }
    const Plan& base = r.profilePicks.front().plan;
    title_->setText(tr("Best plan under each weight profile, compared with %1 — click a card to select its plan")
                        .arg(profileTitle(r.profilePicks.front().kind).toLower()));
    std::vector<const Plan*> shown;
    for (const auto& pb : r.profilePicks)
        shown.push_back(&pb.plan);
    setLegendTypes(shown);
    const Plan* fastest = r.fastest.empty() ? nullptr : &r.fastest.front();
    const QString baseName = profileTitle(r.profilePicks.front().kind).toLower();
    for (std::size_t i = 0; i < r.profilePicks.size(); ++i) {
        const auto& pb = r.profilePicks[i];
        const Plan& p = pb.plan;
        const QString diff
            = i == 0 ? QString() : QString::fromStdString(ProfileComparison::differences(base, p, r.varianceMode));
        QStringList notes;
        notes << (i == 0 ? tr("<i>Baseline: the other profiles are compared with this plan.</i>")
                         : tr("<b>vs %1:</b> %2").arg(baseName, diff.toHtmlEscaped()));
        if (fastest)  // what the pick costs against the fastest feasible plan
            notes << (fastest->key == p.key
                          ? tr("<b>vs fastest:</b> it is the fastest feasible plan")
                          : tr("<b>vs fastest:</b> %1")
                                .arg(QString::fromStdString(ProfileComparison::differences(*fastest, p, r.varianceMode))
                                         .toHtmlEscaped()));
        const QString weights = QStringLiteral("wT %1 · wM %2 · wV %3")
                                    .arg(fixedNumber(pb.weights.time, 2), fixedNumber(pb.weights.memory, 2),
                                         fixedNumber(pb.weights.variance, 2));
        Card card;
        card.widget = makeCard(r, p, profileTitle(pb.kind), weights, colors::profile(static_cast<int>(pb.kind)), notes);
        card.key = p.key;
        card.differences = diff;
        cards_.push_back(card);
    }
    if (fastest) {
        // The reference: no weights, the least iteration time.
        Card card;
        card.widget
            = makeCard(r, *fastest, tr("Fastest feasible"), tr("reference: least iteration time"),
                       QColor(0x5f, 0x63, 0x6b),  // neutral: not a profile's colour
                       {tr("<i>Reference: every profile's card says what its pick costs against this plan.</i>")});
        card.widget->setObjectName(QStringLiteral("fastest-card"));
        card.key = fastest->key;
        card.differences = QString::fromStdString(ProfileComparison::differences(base, *fastest, r.varianceMode));
        cards_.push_back(card);
    }
    columns_ = 0;
    reflowCards();
    empty_->hide();
    scroll_->show();
}

void ProfileComparisonView::setLegendTypes(const std::vector<const Plan*>& plans)
{
    legendTypes_.clear();
    for (const Plan* p : plans)
        for (const auto& stage : p->stages)
            if (!legendTypes_.contains(QString::fromStdString(stage.gpuType)))
                legendTypes_ << QString::fromStdString(stage.gpuType);
    legendTypes_.sort();
    updateLegend();
}

void ProfileComparisonView::setTasks(const SearchResult& r)
{
    // Several training tasks (issue #33): one card per task's best plan, each
    // ranked on its own; they compare on tokens per second, not on Phi.
    title_->setText(tr("Best plan of each training task — each ranked on its own; compare them on tokens per "
                       "second — click a card to select its plan"));
    std::vector<const Plan*> shown;
    for (const auto& t : r.tasks)
        shown.push_back(&t.plan);
    setLegendTypes(shown);
    const SearchResult::TaskPick* base = nullptr;
    for (const auto& t : r.tasks)
        if (t.found && !base)
            base = &t;
    for (std::size_t i = 0; i < r.tasks.size(); ++i) {
        const auto& t = r.tasks[i];
        if (!t.found)
            continue;
        const Plan& p = t.plan;
        const double tps = PlanCost::tokensPerSecond(p);
        QStringList notes;
        if (&t == base) {
            notes << tr("<i>Baseline: the other tasks' tokens per second are compared with this one's.</i>");
        } else {
            const double rel = 100.0 * (tps / PlanCost::tokensPerSecond(base->plan) - 1);
            notes << tr("<b>vs %1:</b> %2% tokens per second; %3")
                         .arg(QString::fromStdString(base->label).toHtmlEscaped(),
                              (rel >= 0 ? QStringLiteral("+") : QString()) + fixedNumber(rel, 1),
                              QString::fromStdString(ProfileComparison::differences(base->plan, p, r.varianceMode))
                                  .toHtmlEscaped());
        }
        notes << tr("Its fastest feasible plan: %1 ms; Phi %2 under its own references")
                     .arg(fixedNumber(t.fastestMs, 1), fixedNumber(p.phi, 4));
        Card card;
        card.widget
            = makeCard(r, p, QString::fromStdString(t.label), tr("%1 tokens/s").arg(QLocale().toString(tps, 'f', 0)),
                       colors::profile(static_cast<int>(i % 6)), notes);
        card.widget->setObjectName(QStringLiteral("task-card"));
        card.key = p.key;
        card.differences = &t == base
            ? QString()
            : QString::fromStdString(ProfileComparison::differences(base->plan, p, r.varianceMode));
        cards_.push_back(card);
    }
    for (const auto& t : r.tasks)
        if (!t.found) {
            auto* none = new QLabel(
                tr("%1: no plan — %2").arg(QString::fromStdString(t.label), QString::fromStdString(t.error)));
            none->setWordWrap(true);
            Card card;
            card.widget = none;
            cards_.push_back(card);
        }
    columns_ = 0;
    reflowCards();
    empty_->hide();
    scroll_->show();
}

void ProfileComparisonView::setGpuTypeColors(const GpuTypeColors& colours)
{
    gpuColors_ = colours;
    updateLegend();
    row_->update();
}

void ProfileComparisonView::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    reflowCards();
}

void ProfileComparisonView::reflowCards()
{
    if (cards_.empty())
        return;
    int cardWidth = 0;
    for (const Card& c : cards_)
        cardWidth = std::max(cardWidth, c.widget->minimumSizeHint().width());
    // The scroll area spans the view; leave room for its vertical scroll bar,
    // which appears once the cards wrap onto more rows than fit.
    const QMargins m = layout()->contentsMargins();
    const int room = width() - m.left() - m.right() - style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    const int spacing = cardsLayout_->horizontalSpacing();
    const int n = static_cast<int>(cards_.size());
    const int columns = std::clamp((room + spacing) / (cardWidth + spacing), 1, n);
    if (columns == columns_)
        return;
    columns_ = columns;
    for (const Card& c : cards_)
        cardsLayout_->removeWidget(c.widget);
    for (int i = 0; i < n; ++i)
        cardsLayout_->addWidget(cards_[i].widget, i / columns, i % columns);
    for (int c = 0; c < n; ++c)
        cardsLayout_->setColumnStretch(c, c < columns ? 1 : 0);
}

void ProfileComparisonView::updateLegend()
{
    QStringList legend;
    for (const auto& t : legendTypes_)
        legend << QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2")
                      .arg(gpuColors_.color(t).name(), t.toHtmlEscaped());
    legend_->setText(legend.join(QStringLiteral("&nbsp;&nbsp; ")));  // may wrap between types
}

QWidget* ProfileComparisonView::makeCard(const SearchResult& r, const Plan& p, const QString& title,
                                         const QString& subtitle, const QColor& colour, const QStringList& notes)
{
    const quint64 key = p.key;
    auto* card = new ProfileCard(
        colour, [this, key] { emit planActivated(key); }, row_);
    card->setToolTip(tr("Click to select this plan"));
    auto* v = new QVBoxLayout(card);
    v->setContentsMargins(0, 0, 0, 8);
    v->setSpacing(6);

    auto* header = new QLabel(card);
    header->setWordWrap(true);
    header->setText(QStringLiteral("<b>%1</b>&nbsp;&nbsp;<span style='font-size:small'>%2</span>")
                        .arg(title.toHtmlEscaped(), subtitle.toHtmlEscaped()));
    header->setStyleSheet(QStringLiteral("QLabel { background: %1; color: white; padding: 5px 10px; "
                                         "border-top-left-radius: 6px; border-top-right-radius: 6px; }")
                              .arg(colour.name()));
    v->addWidget(header);

    auto* body = new QVBoxLayout;
    body->setContentsMargins(10, 0, 10, 0);
    body->setSpacing(6);
    v->addLayout(body);
    body->addWidget(new StageStrip(p, &gpuColors_, card));

    // The four numbers a person compares first, as tiles.
    auto* tiles = new QGridLayout;
    tiles->setSpacing(6);
    const bool low = p.minHeadroom() < kLowHeadroom;
    tiles->addWidget(tile(tr("iteration time T"), fixedNumber(p.iterationMs, 1) + QStringLiteral(" ms"), false, card),
                     0, 0);
    tiles->addWidget(tile(tr("peak memory M"), fixedNumber(p.maxMemMiB / kMiBPerGiB, 2) + QStringLiteral(" GiB"), false,
                          card),
                     0, 1);
    tiles->addWidget(tile(tr("memory variance V"), varianceText(r, p.varMem), false, card), 1, 0);
    auto* headroom
        = tile(tr("lowest headroom"), fixedNumber(100 * p.minHeadroom(), 1) + QStringLiteral(" %"), low, card);
    if (low)
        headroom->setToolTip(tr("Less than %1% of a GPU's memory is left free").arg(100 * kLowHeadroom));
    tiles->addWidget(headroom, 1, 1);
    // What it delivers and, where every paid GPU has a price, costs.
    const PlanCost cost = PlanCost::of(cluster_ ? &*cluster_ : nullptr, p);
    tiles->addWidget(tile(tr("tokens per second"), fixedNumber(cost.tokensPerS, 0), false, card), 2, 0);
    auto* price = tile(tr("cost per million tokens"),
                       cost.perMillionTokens >= 0 ? QString::number(cost.perMillionTokens, 'g', 3) : tr("unknown"),
                       false, card);
    price->setObjectName(QStringLiteral("cost-tile"));
    price->setToolTip(cost.perHour >= 0 ? tr("%1 per hour for the %2 GPUs of the nodes it uses")
                                              .arg(fixedNumber(cost.perHour, 2))
                                              .arg(cost.paidGpus)
                                        : tr("Give every GPU type a price per GPU-hour (cluster editor, GPU type "
                                             "properties) to see the cost"));
    tiles->addWidget(price, 2, 1);
    body->addLayout(tiles);

    // One name and value a row: a card stays narrow enough for two or three
    // of them to stand side by side in a small window.
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(2);
    grid->setColumnStretch(1, 1);
    auto add = [&](int row, const QString& name, const QString& value) {
        grid->addWidget(label(name, card, true), row, 0);
        auto* l = label(value, card);
        l->setWordWrap(true);  // long per-stage lists wrap at their commas
        grid->addWidget(l, row, 1);
        return l;
    };
    add(0, tr("TP · PP · DP"), QStringLiteral("%1 · %2 · %3").arg(p.tp).arg(p.pp).arg(p.dp));
    add(1, tr("micro-batch"), QString::number(p.microBatch));
    add(2, tr("layers"), QString::fromStdString(p.layersString()).replace(QLatin1Char(','), QStringLiteral(", ")));
    add(3, tr("recompute"),
        QString::fromStdString(p.recomputeString()).replace(QLatin1Char(','), QStringLiteral(", ")));
    auto* order = add(4, tr("stage order"),
                      QString::fromStdString(p.orderString()).replace(QLatin1Char('>'), QStringLiteral(" › ")));
    order->setToolTip(tr("Pipeline stages in order: device group # slice"));
    body->addLayout(grid);

    for (int i = 0; i < notes.size(); ++i) {
        auto* note = new QLabel(card);
        note->setObjectName(i == 0 ? QStringLiteral("differences") : QStringLiteral("vs-fastest"));
        note->setWordWrap(true);
        note->setText(notes[i]);
        // A light tint of the card's colour: dark text on it in any palette.
        note->setStyleSheet(
            QStringLiteral("QLabel { background: %1; color: #202020; border-radius: 4px; padding: 4px 6px; }")
                .arg(colour.lighter(185).name()));
        body->addWidget(note);
    }
    body->addStretch(1);
    return card;
}

QWidget* ProfileComparisonView::cardAt(int column) const
{
    return column >= 0 && column < columnCount() ? cards_[column].widget : nullptr;
}

quint64 ProfileComparisonView::keyAt(int column) const
{
    return column >= 0 && column < columnCount() ? cards_[column].key : 0;
}

QString ProfileComparisonView::differencesAt(int column) const
{
    return column >= 0 && column < columnCount() ? cards_[column].differences : QString();
}

}  // namespace memx
