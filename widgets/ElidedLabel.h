#pragma once

#include <QLabel>

namespace memx {

// A one-line plain-text label that never asks for the width of its text: when
// narrower than the text it shows it elided ("...") and gives the full text as
// its tooltip. For status lines whose length would otherwise widen the window.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(const QString& text = {}, QWidget* parent = nullptr);

    bool isElided() const;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

}  // namespace memx
