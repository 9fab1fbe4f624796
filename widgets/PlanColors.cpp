#include "PlanColors.h"

#include <QPainter>
#include <QPalette>
#include <QWidget>

namespace memx::colors {

QColor memoryTerm(MemoryTerm term)
{
    switch (term) {
    case MemoryTerm::Weights: return QColor(0x4e, 0x79, 0xa7);
    case MemoryTerm::Gradients: return QColor(0x76, 0xb7, 0xb2);
    case MemoryTerm::Optimizer: return QColor(0x59, 0xa1, 0x4f);
    case MemoryTerm::Activations: return QColor(0xf2, 0x8e, 0x2b);
    case MemoryTerm::Reserve: return QColor(0xba, 0xb0, 0xac);
    }
    return Qt::gray;
}

QString memoryTermName(MemoryTerm term)
{
    switch (term) {
    case MemoryTerm::Weights: return QStringLiteral("Weights");
    case MemoryTerm::Gradients: return QStringLiteral("Gradients");
    case MemoryTerm::Optimizer: return QStringLiteral("Optimizer state");
    case MemoryTerm::Activations: return QStringLiteral("Activations");
    case MemoryTerm::Reserve: return QStringLiteral("Runtime + slack");  // CUDA context, NCCL buffers, allocator slack
    }
    return {};
}

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

QColor profile(int kind)
{
    switch (kind) {
    case 0: return QColor(0xe1, 0x57, 0x59);  // default
    case 1: return QColor(0x59, 0xa1, 0x4f);  // safety-first
    case 2: return QColor(0x4e, 0x79, 0xa7);  // throughput-first
    case 5: return QColor(0xed, 0xc9, 0x48);  // balanced
    default: return QColor(0xb0, 0x7a, 0xa1);  // custom
    }
}

StatusColors status(const QPalette& pal)
{
    const bool dark = pal.color(QPalette::Window).lightness() < 128;
    if (dark)
        return {QColor(0xef, 0x6f, 0x6c), QColor(0xff, 0xb7, 0x4d), QColor(0x81, 0xc7, 0x84)};
    return {QColor(0xc6, 0x28, 0x28), QColor(0xa1, 0x5c, 0x00), QColor(0x2e, 0x7d, 0x32)};
}

void paintWarningStrip(QWidget* widget)
{
    // An amber strip that reads on light and dark palettes alike.
    const QColor warn = status(widget->palette()).warning;
    QPainter p(widget);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(warn, 1));
    p.setBrush(withAlpha(warn, 46));
    p.drawRoundedRect(QRectF(widget->rect()).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
}

}  // namespace memx::colors
