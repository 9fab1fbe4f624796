#pragma once

#include "search/Objective.h"

#include <QWidget>

#include <array>

class QAbstractButton;
class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QRadioButton;
class QSlider;

namespace memx {

// Chooses the search objective: a weight profile (default, safety-first,
// throughput-first, custom or auto), the custom weights and whether memory
// variance is taken over MiB or over utilisation, and the constraints every
// pick must meet before Phi ranks (minimum headroom, maximum slowdown).
//
// The custom weights are three linked sliders that always sum to 1: moving
// one gives the difference to the other two in proportion to their values.
class ObjectivePanel : public QWidget {
    Q_OBJECT
public:
    enum WeightIndex { TimeWeight = 0, MemoryWeight = 1, VarianceWeight = 2 };
    static constexpr int kSliderSteps = 100;  // slider positions per unit weight

    explicit ObjectivePanel(QWidget* parent = nullptr);

    ObjectiveSpec objective() const;  // custom weights normalised
    void setObjective(const ObjectiveSpec& spec);

    // Why auto chose the profile it did, e.g. "auto chose safety-first: the
    // fastest plan leaves only 1.1% headroom". Shown while auto is selected.
    void setAutoExplanation(const QString& text);
    QString autoExplanation() const;

    QSlider* weightSlider(WeightIndex which) const { return sliders_[which]; }
    // Constraints before Phi: minimum headroom (%, 0 = off), at the upper
    // bound, and maximum slowdown against the fastest plan (%, -1 = off).
    QDoubleSpinBox* minHeadroomBox() const { return minHeadroom_; }
    QCheckBox* headroomAtUpperBox() const { return atUpper_; }
    QDoubleSpinBox* maxSlowdownBox() const { return maxSlowdown_; }
    QAbstractButton* profileButton(WeightProfile kind) const;

    // Sets weight `which` to `value` (clamped to [0, 1]) and shares 1 - value
    // between the other two in proportion to their current values (equally
    // when both are 0). `w` must be normalised; the result is.
    static Weights redistribute(const Weights& w, WeightIndex which, double value);

signals:
    void changed();  // on every change, by the user or by setObjective()

private:
    QGroupBox* buildProfiles();
    QGroupBox* buildWeights();
    QGroupBox* buildVariance();
    QGroupBox* buildTasks();
    QGroupBox* buildConstraints();
    void connectInputs();
    void onSliderMoved(WeightIndex which, int position);
    void showWeights(const Weights& w);
    void updateEnabledState();
    WeightProfile currentProfile() const;

    ObjectiveSpec spec_;  // keeps the fields the panel does not show (epsilon, auto thresholds)
    Weights custom_;  // normalised
    QButtonGroup* profiles_ = nullptr;
    QGroupBox* weightsBox_ = nullptr;
    std::array<QSlider*, 3> sliders_{};
    std::array<QLabel*, 3> values_{};
    QRadioButton* varianceMiB_ = nullptr;
    QRadioButton* varianceUtil_ = nullptr;
    QComboBox* compareTasks_ = nullptr;  // several sequence lengths / query groups: per task or per token
    QComboBox* epsilon_ = nullptr;  // eV's rule: the uncertainty, the paper's, or the project file's own
    QLabel* autoLabel_ = nullptr;
    QDoubleSpinBox* minHeadroom_ = nullptr;
    QCheckBox* atUpper_ = nullptr;
    QDoubleSpinBox* maxSlowdown_ = nullptr;
    QString autoText_;
};

}  // namespace memx
