#pragma once

#include "GpuTypeColors.h"
#include "search/SearchResult.h"

#include "hardware/Cluster.h"

#include <QWidget>

#include <optional>

#include <vector>

class QGridLayout;
class QLabel;
class QScrollArea;

namespace memx {

// The best plan under each weight profile of a search (SearchResult::profilePicks)
// side by side, one card per profile in that profile's colour: parallelism,
// micro-batch, stage order, layers, recomputation, T, M, V and the lowest
// headroom. Every card after the first spells out how its plan differs from
// the first one's (ProfileComparison::differences). Clicking a card emits
// planActivated with that plan's key. The cards stand side by side when they
// fit and wrap onto more rows when not, so none is ever cut off.
class ProfileComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ProfileComparisonView(QWidget* parent = nullptr);

    // `cluster`: the searched one, whose GPU-hour prices give each card's
    // cost (PlanCost); null: tokens per second only.
    void setResult(const SearchResult& r, const Cluster* cluster = nullptr);
    void clear();
    void setGpuTypeColors(const GpuTypeColors& colours);  // the cluster's, as on the canvas

    int columnCount() const { return static_cast<int>(cards_.size()); }
    QWidget* cardAt(int column) const;  // null when out of range
    quint64 keyAt(int column) const;  // 0 when out of range
    QString differencesAt(int column) const;  // empty for the first column

signals:
    void planActivated(quint64 key);

private:
    struct Card {
        QWidget* widget = nullptr;
        quint64 key = 0;
        QString differences;
    };
    // One card: the plan's stages, its four numbers and details, and notes
    // (HTML) on tinted strips: how it compares with the baseline and the fastest plan.
    QWidget* makeCard(const SearchResult& r, const Plan& p, const QString& title, const QString& subtitle,
                      const QColor& colour, const QStringList& notes);
    void updateLegend();
    void setLegendTypes(const std::vector<const Plan*>& plans);  // the GPU types of the plans shown
    void reflowCards();
    void setTasks(const SearchResult& r);  // several training tasks: one card per task's best

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    QLabel* title_ = nullptr;
    QLabel* legend_ = nullptr;  // GPU type colours of the stage strips
    QLabel* empty_ = nullptr;
    QScrollArea* scroll_ = nullptr;
    QWidget* row_ = nullptr;
    QGridLayout* cardsLayout_ = nullptr;
    int columns_ = 0;  // cards per row as laid out now
    std::vector<Card> cards_;
    QStringList legendTypes_;
    GpuTypeColors gpuColors_;
    std::optional<Cluster> cluster_;  // of the result shown
};

}  // namespace memx
