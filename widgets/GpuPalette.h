#pragma once

#include <QListWidget>

namespace memx {

// The GPU catalog as a list to drag from: one entry per type with its colour
// swatch and "peak TFLOP/s, GiB". A drag carries the type name as
// ClusterCanvas::kGpuTypeMime ("application/x-memx-gputype").
class GpuPalette : public QListWidget {
    Q_OBJECT
public:
    explicit GpuPalette(QWidget* parent = nullptr);

    static constexpr int TypeNameRole = Qt::UserRole + 1;
    QString typeNameAt(int row) const;

protected:
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
};

}  // namespace memx
