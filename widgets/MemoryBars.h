#pragma once

#include <QString>
#include <QWidget>

#include <vector>

class QCPTextElement;
class QCustomPlot;
class QCPItemText;

namespace memx {

class Cluster;
struct Plan;

// Peak memory of every GPU of a plan, stacked by term (weights, gradients,
// optimizer state, activations, runtime reserve) against its capacity, grouped
// by pipeline stage: the paper's Figure 7 view. Values in MiB, drawn in GiB.
// When the plan's prediction carries a relative uncertainty u > 0, every bar
// gets a whisker from total x (1 - u) to total x (1 + u), and the line above
// the plot says whether the tightest GPU still fits at total x (1 + u).
class MemoryBars : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBars(QWidget* parent = nullptr);
    ~MemoryBars() override;

    void setPlan(const Plan& p, const Cluster& c);
    void clear();

    int barCount() const { return static_cast<int>(bars_.size()); }
    double barTotalMiB(int i) const;  // peak of GPU i (stage memory), MiB
    double barCapacityMiB(int i) const;  // device memory, MiB
    QString barLabel(int i) const;  // "vb:3"
    int barStage(int i) const;  // 0-based pipeline stage
    QString stageLabel(int stage) const;  // the caption over a stage's bars, lines joined by '\n'
    bool barOverCapacity(int i) const;  // total > capacity: drawn red and hatched
    double barUpperMiB(int i) const;  // total x (1 + uncertainty), MiB

    double uncertainty() const { return uncertainty_; }  // relative, of the plan shown
    QString provenance() const { return provenance_; }  // "analytic", "learned", ...
    bool hasWhiskers() const { return uncertainty_ > 0 && !bars_.empty(); }
    // Every GPU within capacity even at +uncertainty.
    bool fitsAtUpperBound() const;
    // The line above the plot: the tightest GPU and whether it fits at +uncertainty
    // ("... fits with margin even at +8%" or "... may not fit at +8%").
    QString marginText() const;
    int visibleHeadroomLabels() const;  // "36%" / "OVER" labels drawn now

    QCustomPlot* plot() const { return plot_; }
    bool exportImage(const QString& file, int width, int height);  // .png or .pdf by suffix

protected:
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    struct Bar {
        int stage = 0;
        int device = 0;
        QString label;
        double x = 0;  // key on the plot
        double termsMiB[5] = {};
        double totalMiB = 0;
        double capacityMiB = 0;
    };
    struct StageInfo {
        QString label;  // "stage 1\nvb#0 · Vendor-B"
        double x = 0;  // centre of the stage's bars
        int bars = 0;  // GPUs of the stage
    };
    void rebuild();
    void layOutRows();
    void addTermBars(const QVector<double>& keys);
    double addCapacities();
    void addWhiskers(const QVector<double>& keys);
    void styleAxes();
    void updateLabelRotation();
    void updateHeadroomLabels();  // as many as fit side by side, the largest excess and the tightest first
    void fitToWidth();  // legend rows and margin line as narrow as the plot
    int tightestBar() const;  // highest total x (1 + u) / capacity; -1 without bars

    QCustomPlot* plot_ = nullptr;
    // Headroom label of each bar (null: no capacity), owned by the plot.
    std::vector<QCPItemText*> headroomLabels_;
    QCPTextElement* margin_ = nullptr;
    double uncertainty_ = 0;
    QString provenance_;
    std::vector<Bar> bars_;
    std::vector<StageInfo> stages_;
};

}  // namespace memx
