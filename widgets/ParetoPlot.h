#pragma once

#include "search/Objective.h"
#include "space/Plan.h"

#include <QWidget>

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace memx {

struct SearchResult;

// Iteration time T (x, seconds) against memory variance V (GiB^2, or
// utilisation^2) or peak memory M (GiB): every sampled feasible plan, the
// Pareto front of the shown pair, and the best plan of each weight profile
// (the paper's Figure 6 view). Hover shows a plan summary, click selects.
class ParetoPlot : public QWidget {
    Q_OBJECT
public:
    enum class YAxis { Variance, PeakMemory };

    static constexpr int kMaxCandidatePoints = 5000;

    explicit ParetoPlot(QWidget* parent = nullptr);
    ~ParetoPlot() override;

    // Keeps the result alive and points into it: a 128-GPU result holds
    // thousands of plans, too many to copy on the GUI thread.
    void setResult(std::shared_ptr<const SearchResult> r);
    // (T ms, V as in the result's variance mode) while a search runs; replaces
    // the previous live line. Drawn only on the variance axis.
    void setLiveFront(const std::vector<std::pair<double, double>>& front);
    // Empties the plot; it then says how to fill it (emptyNote()).
    void clear();
    // What an empty plot says in its middle: how to fill it, or (a reopened
    // project's saved result) where that result is shown instead.
    void setEmptyNote(const QString& note);
    QString emptyNote() const { return emptyNote_; }
    static QString runNote();  // the note before any search

    void setYAxis(YAxis a);
    YAxis yAxis() const { return yAxis_; }
    void setLogAxes(bool on);
    bool logAxes() const { return log_; }
    void resetView();

    void setSelectedPlan(quint64 key);  // 0 = none
    quint64 selectedPlan() const { return selected_; }

    int candidatePointCount() const;  // points drawn for candidates
    // Plan under a widget pixel of plot() (nearest within 8 px), 0 = none.
    quint64 planAt(const QPointF& plotPixel) const;
    QCustomPlot* plot() const { return plot_; }
    bool exportImage(const QString& file, int width, int height);  // .png or .pdf by suffix

    // "TP 1 PP 5 DP 4 mbs 2 | order | layers ... | recompute ... | T 21.2 s | M 20.8 GiB | V 0.03 GiB^2 | Phi 0.096"
    static QString planSummary(const Plan& p, VarianceMode mode);

signals:
    void planClicked(quint64 key);
    void planHovered(quint64 key, const QString& summary);  // key 0: left every plan

protected:
    void changeEvent(QEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void fill(QCPGraph* g, const std::vector<quint64>& keys) const;
    bool isPerMesh(quint64 key) const;
    void addCandidates();
    void addFront();
    void addLiveFront();
    void addBests();
    struct Entry {
        double tMs = 0, mMiB = 0, var = 0;
        const Plan* plan = nullptr;  // in result_
    };
    double yOf(const Entry& e) const;
    double yOfVariance(double v) const;
    void rebuild();
    void requestReplot();
    void applyPalette();
    void updateAxisLabels();
    void updateSelectionRing();
    void onMouseMove(QMouseEvent* e);
    void onMousePress(QMouseEvent* e);
    void onMouseRelease(QMouseEvent* e);

    QCustomPlot* plot_ = nullptr;
    QCPGraph* candidates_ = nullptr;
    QCPGraph* front_ = nullptr;
    QCPGraph* live_ = nullptr;
    QCPGraph* ring_ = nullptr;
    std::vector<QCPGraph*> bestGraphs_;
    quint64 fastestKey_ = 0;  // the fastest feasible plan: the reference every pick is priced against

    std::shared_ptr<const SearchResult> result_;
    std::unordered_map<quint64, Entry> plans_;  // every plan that can be drawn, by key
    std::vector<quint64> candidateKeys_;  // thinned plotSample
    std::vector<quint64> frontVarKeys_, frontMemKeys_;
    std::vector<std::pair<WeightProfile, quint64>> bests_;
    std::vector<std::pair<double, double>> liveFront_;
    VarianceMode mode_ = VarianceMode::AbsoluteMiB;
    int perTokenSeq_ = 0;  // > 0: x is time per token (Plan::rankMs), scaled to this sequence length
    QString emptyNote_;
    YAxis yAxis_ = YAxis::Variance;
    bool log_ = false;
    bool replotPending_ = false;  // changed while hidden
    quint64 selected_ = 0;
    quint64 hovered_ = 0;
    QPointF pressPos_;
};

}  // namespace memx
