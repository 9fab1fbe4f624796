#pragma once

#include "space/Problem.h"

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSpinBox;

namespace memx {

class Predictor;

// "Why no plan of this shape?": TP, PP and DP fields and a button; the answer
// (ShapeExplanation: the rule, the stage slots or the memory that stops the
// shape, or how many of its plans fit) below them. Asks about the problem of
// the last search, so that the answer matches the plans on screen.
class WhyNotShapePanel : public QWidget {
    Q_OBJECT

public:
    explicit WhyNotShapePanel(QWidget* parent = nullptr);

    // The problem the answers are about; the fields start at `tp, pp, dp`.
    void setProblem(const Problem& problem, std::shared_ptr<const Predictor> predictor, int tp, int pp, int dp);
    void clear();  // no search yet: the button is off
    QString answer() const;

public slots:
    void explain();

private:
    QSpinBox* tp_ = nullptr;
    QSpinBox* pp_ = nullptr;
    QSpinBox* dp_ = nullptr;
    QPushButton* ask_ = nullptr;
    QLabel* answer_ = nullptr;
    std::unique_ptr<Problem> problem_;
    std::shared_ptr<const Predictor> predictor_;
};

}  // namespace memx
