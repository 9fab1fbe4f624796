#pragma once

#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;

namespace memx {

class Cluster;
struct Plan;

// Peak memory of every GPU of a plan, stacked by term (weights, gradients,
// optimizer state, activations, runtime reserve) against its capacity, grouped
// by pipeline stage: the paper's Figure 7 view. Values in MiB, drawn in GiB.
class MemoryBars : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBars(QWidget* parent = nullptr);
    ~MemoryBars() override;

    void setPlan(const Plan& p, const Cluster& c);
    void clear();

    int barCount() const { return static_cast<int>(bars_.size()); }
    double barTotalMiB(int i) const;     // peak of GPU i (stage memory), MiB
    double barCapacityMiB(int i) const;  // device memory, MiB
    QString barLabel(int i) const;       // "vb:3"
    int barStage(int i) const;           // 0-based pipeline stage
    bool barOverCapacity(int i) const;   // total > capacity: drawn red and hatched

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
        double x = 0;   // centre of the stage's bars
    };
    void rebuild();
    void updateLabelRotation();

    QCustomPlot* plot_ = nullptr;
    std::vector<Bar> bars_;
    std::vector<StageInfo> stages_;
};

}  // namespace memx
