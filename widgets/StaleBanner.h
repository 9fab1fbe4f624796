#pragma once

#include <QFrame>

#include <string>
#include <vector>

class QLabel;
class QPushButton;

namespace memx {

// The strip above the result views while they show a result computed for
// something else than the panels now hold: what changed, and a button that
// plans again. Hidden while the results are current (or there are none).
class StaleBanner : public QFrame {
    Q_OBJECT
public:
    explicit StaleBanner(QWidget* parent = nullptr);

    // changes: "cluster", "model", ... (RequestChanges); empty hides the banner.
    void setChanges(const std::vector<std::string>& changes);
    QString text() const;

signals:
    void runRequested();

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QLabel* label_ = nullptr;
    QPushButton* run_ = nullptr;
};

}  // namespace memx
