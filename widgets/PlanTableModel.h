#pragma once

#include "search/Objective.h"
#include "space/Plan.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace memx {

// The ranked plans of a search as a table, one plan a row, with the columns
// of the command line's table (TextReport) plus the lowest stage headroom.
// DisplayRole is formatted like the CLI; SortRole gives numbers for numeric
// columns so a proxy sorts 10 after 9.
class PlanTableModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Roles {
        PlanKeyRole = Qt::UserRole + 1,  // quint64 Plan::key
        SortRole,  // double for numeric columns, QString otherwise
    };
    enum Column {
        RankPhiColumn,  // "#": rank under Phi
        TpColumn,
        PpColumn,
        DpColumn,
        MicroBatchColumn,
        SeqLenColumn,
        ScheduleColumn,
        StageOrderColumn,  // "group#slice>group#slice"
        LayersColumn,
        RecomputeColumn,  // N/S/F per stage
        TimeColumn,  // T, ms
        TokensColumn,  // tokens per second: global batch x sequence length / T
        MemoryColumn,  // M, GiB
        VarianceColumn,  // V, GiB^2 or utilisation^2
        PhiColumn,
        RankTimeColumn,
        MinHeadroomColumn,  // %, lowest over the stages
        StagePeaksColumn,  // GiB per stage
        ColumnCount
    };
    Q_ENUM(Column)

    explicit PlanTableModel(QObject* parent = nullptr);

    // Replaces every row. `mode` says how Plan::varMem is to be read.
    void setPlans(std::vector<Plan> plans, VarianceMode mode);
    const std::vector<Plan>& plans() const { return plans_; }
    VarianceMode varianceMode() const { return mode_; }
    const Plan* planAt(int row) const;  // null when out of range
    int rowOfKey(quint64 key) const;  // -1 when no row has that key

    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    QVariant display(const Plan& p, int column) const;
    QVariant sortValue(const Plan& p, int column) const;
    QString toolTip(const Plan& p) const;

    std::vector<Plan> plans_;
    VarianceMode mode_ = VarianceMode::AbsoluteMiB;
    QHash<quint64, int> rowByKey_;
};

}  // namespace memx
