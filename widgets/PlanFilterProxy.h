#pragma once

#include <QSortFilterProxyModel>

#include <optional>

namespace memx {

struct Plan;

// Sorts a PlanTableModel by its SortRole (numbers, not text) and keeps the
// plans that pass every filter that is set:
// - free text: every whitespace-separated word must occur (case-insensitive)
//   in the stage order, the layers, the recompute letters or a GPU type;
// - a longest iteration time (ms), a lowest headroom (fraction of capacity,
//   0.1 = 10%), an exact TP and an exact PP.
// A source model that is not a PlanTableModel passes everything.
class PlanFilterProxy final : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit PlanFilterProxy(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    QString filterText() const { return text_; }
    void setMaxIterationMs(std::optional<double> ms);
    std::optional<double> maxIterationMs() const { return maxIterationMs_; }
    void setMinHeadroom(std::optional<double> fraction);
    std::optional<double> minHeadroom() const { return minHeadroom_; }
    void setTensorParallel(std::optional<int> tp);
    std::optional<int> tensorParallel() const { return tp_; }
    void setPipelineParallel(std::optional<int> pp);
    std::optional<int> pipelineParallel() const { return pp_; }
    void clearFilters();

    // Whether `plan` passes the filters (what filterAcceptsRow asks).
    bool accepts(const Plan& plan) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const final;

private:
    QString text_;
    QStringList words_;
    std::optional<double> maxIterationMs_;
    std::optional<double> minHeadroom_;
    std::optional<int> tp_;
    std::optional<int> pp_;
};

}  // namespace memx
