#pragma once

#include <QListWidget>

namespace memx {

class GpuTypeColors;

// The GPU catalog as a list to drag from: one entry per type with its colour
// swatch and "peak TFLOP/s, GiB". A drag carries the type name as
// ClusterCanvas::kGpuTypeMime ("application/x-memx-gputype").
class GpuPalette : public QListWidget {
    Q_OBJECT
public:
    explicit GpuPalette(QWidget* parent = nullptr);

    static constexpr int TypeNameRole = Qt::UserRole + 1;
    QString typeNameAt(int row) const;
    // Swatches in the colours the canvas gives (or would give) each type.
    void setGpuTypeColors(const GpuTypeColors& colours);

protected:
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
};

}  // namespace memx
