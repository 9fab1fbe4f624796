#include "PlotExport.h"

#include <QFileInfo>

#include <qcustomplot.h>

namespace memx {

bool exportPlot(QCustomPlot* plot, const QString& file, int width, int height)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return plot->savePng(file, width, height);
    if (suffix == QLatin1String("pdf"))
        return plot->savePdf(file, width, height);
    return false;
}

}  // namespace memx
