#pragma once

#include "search/NodeChoice.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace memx {

// Choosing nodes in the workbench (issue #32 item 4), below node loss: "Compare
// node choices" asks (compareRequested) for the last search's cluster to be
// searched again with the nodes of each set of GPU types left out; setOutcome
// shows each choice's best plan with its GPUs, time, tokens per second and,
// where every type has a price (the cluster editor's "Price per GPU-hour"),
// its cost per hour and per million tokens, ranked by throughput or by cost
// per token, rows past the limits dropped. The computing is the caller's
// (NodeChoice, off the GUI thread).
class NodeChoicePanel : public QWidget {
    Q_OBJECT
public:
    explicit NodeChoicePanel(QWidget* parent = nullptr);

    void clear();  // no search: nothing to choose from
    void setReady();  // a search finished: the button is live
    NodeChoice::Options options() const;
    void setBusy();
    // `done` of `total` choices searched so far.
    void setProgress(std::size_t done, std::size_t total);
    void setOutcome(const NodeChoice::Result& outcome);
    int rows() const;
    QString rowText(int row) const;
    QString summaryText() const;
    void request();  // as if the button were clicked

signals:
    void compareRequested();

private:
    QLabel* intro_ = nullptr;
    QComboBox* rank_ = nullptr;
    QDoubleSpinBox* maxCost_ = nullptr;
    QDoubleSpinBox* minTokens_ = nullptr;
    QPushButton* run_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* table_ = nullptr;
};

}  // namespace memx
