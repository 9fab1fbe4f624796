#pragma once

class QCustomPlot;
class QString;

namespace memx {

// Writes a plot as PNG or PDF, chosen by the file's suffix; false for any
// other suffix or when the file cannot be written. Shared by every plot view.
bool exportPlot(QCustomPlot* plot, const QString& file, int width, int height);

}  // namespace memx
