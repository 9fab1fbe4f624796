#pragma once

#include "search/NodeLossWhatIf.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace memx {

// Node loss in the workbench (issue #32 item 5), below the What-if Network
// sliders: "Re-plan without each node" asks (replanRequested) for the last
// search's cluster to be searched again without each node, or each GPU
// type's first node; setOutcome shows each scenario's best plan, its slowdown
// against plan 1 and its tokens per second, and with "Rank by worst case"
// the kept plans ranked by their worst time. The computing is the caller's
// (NodeLossWhatIf, off the GUI thread); clicking a robust row emits
// planActivated.
class NodeLossPanel : public QWidget {
    Q_OBJECT
public:
    explicit NodeLossPanel(QWidget* parent = nullptr);

    void clear();  // no search: nothing to lose
    void setReady();  // a search finished: the button is live
    NodeLossWhatIf::Options options() const;
    void setBusy();  // re-planning
    void setOutcome(const NodeLossWhatIf::Result& outcome);
    int scenarioRows() const;
    int robustRows() const;
    QString summaryText() const;
    void request();  // as if the button were clicked

signals:
    void replanRequested();
    void planActivated(quint64 key);

private:
    QLabel* intro_ = nullptr;
    QComboBox* which_ = nullptr;
    QCheckBox* robust_ = nullptr;
    QPushButton* run_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* scenarios_ = nullptr;
    QTableWidget* robustTable_ = nullptr;
    std::vector<quint64> keys_;  // per robust row
};

}  // namespace memx
