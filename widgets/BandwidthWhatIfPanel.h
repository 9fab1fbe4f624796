#pragma once

#include "hardware/BandwidthScenario.h"
#include "search/BandwidthWhatIf.h"

#include <QMap>
#include <QWidget>

class QLabel;
class QPushButton;
class QSlider;
class QTableWidget;
class QTimer;
class QVBoxLayout;

namespace memx {

// What-if bandwidth in the workbench (issue #13 item 6): one slider per kind
// of link in the searched cluster (5-200% of its bandwidth). Moving one asks,
// after a short pause (scalesChanged), for the last search's plans to be
// re-timed on the scaled network; setOutcome shows plan 1's time there and
// the best plans re-ranked by Phi with that time. The computing is the
// caller's (BandwidthWhatIf); clicking a row emits planActivated.
class BandwidthWhatIfPanel : public QWidget {
    Q_OBJECT
public:
    explicit BandwidthWhatIfPanel(QWidget* parent = nullptr);

    // The searched cluster: a slider for each link kind it has (all at 100%).
    void setCluster(const Cluster& cluster);
    void clear();  // no search: nothing to scale
    // What the sliders ask for: one scale per kind not at 100%.
    std::vector<BandwidthScenario::Scale> scales() const;
    void setPercent(LinkKind kind, int percent);  // as if the user moved that slider
    QStringList kinds() const;  // the kinds with a slider, in link order
    void setBusy();  // a re-ranking is running
    void setOutcome(const BandwidthWhatIf::Result& outcome, const Plan& plan1);
    QString summaryText() const;  // plan 1's time under the sliders
    int rankedRows() const;

signals:
    void scalesChanged();  // debounced; read scales()
    void planActivated(quint64 key);

private:
    QLabel* intro_ = nullptr;
    QVBoxLayout* slidersLayout_ = nullptr;
    QWidget* slidersBox_ = nullptr;
    QPushButton* reset_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* table_ = nullptr;
    QTimer* debounce_ = nullptr;
    struct Row {
        LinkKind kind;
        QSlider* slider = nullptr;
        QLabel* value = nullptr;
    };
    std::vector<Row> rows_;
    std::vector<quint64> keys_;  // per table row
};

}  // namespace memx
