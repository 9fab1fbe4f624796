#pragma once

#include "hardware/Cluster.h"
#include "search/SearchResult.h"

#include <QWidget>

#include <vector>

class QLabel;
class QSplitter;
class QTableWidget;

namespace memx {

class MemoryBars;

// The baseline planners' picks beside MemX's (SearchResult::baselines, issue
// #13 item 4), as the paper's Table 10 and Figure 7: one row per planner
// with its plan, T, the difference from MemX, M, V, Phi, the lowest
// headroom, the ranks, and every GPU's peak against its memory as small
// bars; a pick that exceeds some GPU's memory is marked OOM in red. The
// planner's cell says what it searches and leaves out (tooltip). Below the
// table, the selected row's plan in full as MemoryBars.
class BaselinesView : public QWidget {
    Q_OBJECT
public:
    explicit BaselinesView(QWidget* parent = nullptr);

    void setResult(const SearchResult& r, const Cluster& cluster);
    void clear();

    int rowCount() const;
    QString cellText(int row, int column) const;
    bool rowMarkedOom(int row) const;
    int selectedRow() const;
    void selectRow(int row);
    const MemoryBars* detailBars() const { return bars_; }

    enum Column {
        Planner,
        Parallel,
        Layers,
        Recompute,
        Time,
        TokensPerS,
        VsMemX,
        Memory,
        Variance,
        Phi,
        Headroom,
        RankT,
        RankPhi,
        PerGpu,
        Fits,
        ColumnCount
    };

private:
    void showRow(int row);

    QLabel* title_ = nullptr;
    QLabel* empty_ = nullptr;
    QSplitter* splitter_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* detailTitle_ = nullptr;
    MemoryBars* bars_ = nullptr;
    std::vector<SearchResult::BaselinePick> picks_;
    Cluster cluster_;
};

}  // namespace memx
