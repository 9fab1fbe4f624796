#pragma once

#include <QColor>
#include <QString>

class QPalette;
class QWidget;

// Colours shared by every view so a memory term or a weight profile looks the
// same everywhere. Chosen to read on light and dark palettes. GPU types take
// their colour from the cluster they belong to: GpuTypeColors.
namespace memx::colors {

enum class MemoryTerm { Weights, Gradients, Optimizer, Activations, Reserve };
QColor memoryTerm(MemoryTerm term);
QString memoryTermName(MemoryTerm term);

QColor withAlpha(QColor c, int alpha);

// default, safety-first, throughput-first, custom (WeightProfile order).
QColor profile(int profileKind);

// Problem (red), warning (amber) and ok (green) text that reads on the
// window background, light or dark.
struct StatusColors {
    QColor problem, warning, ok;
};
StatusColors status(const QPalette& pal);

// The amber strip of a warning banner (stale results, notices) over `widget`.
void paintWarningStrip(QWidget* widget);

}  // namespace memx::colors
