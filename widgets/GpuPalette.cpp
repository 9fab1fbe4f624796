#include "GpuPalette.h"

#include "ClusterCanvas.h"
#include "GpuTypeColors.h"

#include "hardware/GpuCatalog.h"

#include <QMimeData>
#include <QPainter>
#include <QPixmap>

namespace memx {

namespace {
QIcon swatch(const QColor& colour)
{
    QPixmap pm(18, 18);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(colour.darker(140));
    p.setBrush(colour);
    p.drawRoundedRect(QRectF(1.5, 1.5, 15, 15), 3, 3);
    return QIcon(pm);
}
}  // namespace

GpuPalette::GpuPalette(QWidget* parent) : QListWidget(parent)
{
    setDragEnabled(true);
    setDragDropMode(QAbstractItemView::DragOnly);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setIconSize(QSize(18, 18));
    setUniformItemSizes(true);
    for (const auto& [name, type] : GpuCatalog::builtin().types()) {
        const QString typeName = QString::fromStdString(name);
        auto* item = new QListWidgetItem(swatch(GpuTypeColors().color(typeName)),
                                         QStringLiteral("%1\n%2 TFLOP/s, %3 GiB")
                                             .arg(typeName, QString::number(type.peakTflopsBf16, 'g', 5),
                                                  QString::number(type.memoryGiB, 'g', 5)),
                                         this);
        item->setData(TypeNameRole, typeName);
        item->setToolTip(
            QStringLiteral("%1 (%2)\n%3 GB/s memory bandwidth, efficiency %4\n%5\nDrag onto a node to add one.")
                .arg(typeName, QString::fromStdString(type.vendor), QString::number(type.memoryBandwidthGBps, 'g', 5),
                     QString::number(type.defaultEfficiency, 'g', 3), QString::fromStdString(type.source)));
    }
}

void GpuPalette::setGpuTypeColors(const GpuTypeColors& colours)
{
    for (int row = 0; row < count(); ++row)
        item(row)->setIcon(swatch(colours.color(typeNameAt(row))));
}

QString GpuPalette::typeNameAt(int row) const
{
    const QListWidgetItem* it = item(row);
    return it ? it->data(TypeNameRole).toString() : QString();
}

QStringList GpuPalette::mimeTypes() const { return {QString::fromLatin1(ClusterCanvas::kGpuTypeMime)}; }

QMimeData* GpuPalette::mimeData(const QList<QListWidgetItem*>& items) const
{
    if (items.isEmpty())
        return nullptr;
    auto* mime = new QMimeData;
    const QString name = items.front()->data(TypeNameRole).toString();
    mime->setData(QString::fromLatin1(ClusterCanvas::kGpuTypeMime), name.toUtf8());
    mime->setText(name);
    return mime;
}

}  // namespace memx
