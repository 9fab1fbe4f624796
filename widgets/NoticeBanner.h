#pragma once

#include <QFrame>
#include <QStringList>

class QLabel;
class QPushButton;

namespace memx {

// A strip above the result views for what is valid but likely not meant
// (PlanPlausibility: a best plan that takes hours per iteration). The user
// may dismiss it; the next result shows its own notices again.
class NoticeBanner : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBanner(QWidget* parent = nullptr);

    void setNotices(const QStringList& notices);  // empty hides the banner
    QString text() const;  // empty while hidden
    QPushButton* dismissButton() const { return dismiss_; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QLabel* label_ = nullptr;
    QPushButton* dismiss_ = nullptr;
};

}  // namespace memx
