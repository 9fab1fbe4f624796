#include "PlanFilterProxy.h"

#include "PlanTableModel.h"

namespace memx {

PlanFilterProxy::PlanFilterProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(PlanTableModel::SortRole);
}

void PlanFilterProxy::setFilterText(const QString& text)
{
    if (text == text_)
        return;
    text_ = text;
    words_ = text.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    invalidateFilter();
}

void PlanFilterProxy::setMaxIterationMs(std::optional<double> ms)
{
    if (ms == maxIterationMs_)
        return;
    maxIterationMs_ = ms;
    invalidateFilter();
}

void PlanFilterProxy::setMinHeadroom(std::optional<double> fraction)
{
    if (fraction == minHeadroom_)
        return;
    minHeadroom_ = fraction;
    invalidateFilter();
}

void PlanFilterProxy::setTensorParallel(std::optional<int> tp)
{
    if (tp == tp_)
        return;
    tp_ = tp;
    invalidateFilter();
}

void PlanFilterProxy::setPipelineParallel(std::optional<int> pp)
{
    if (pp == pp_)
        return;
    pp_ = pp;
    invalidateFilter();
}

void PlanFilterProxy::clearFilters()
{
    text_.clear();
    words_.clear();
    maxIterationMs_.reset();
    minHeadroom_.reset();
    tp_.reset();
    pp_.reset();
    invalidateFilter();
}

bool PlanFilterProxy::accepts(const Plan& p) const
{
    if (maxIterationMs_ && p.iterationMs > *maxIterationMs_)
        return false;
    if (minHeadroom_ && p.minHeadroom() < *minHeadroom_)
        return false;
    if (tp_ && p.tp != *tp_)
        return false;
    if (pp_ && p.pp != *pp_)
        return false;
    if (words_.isEmpty())
        return true;
    QStringList haystack{QString::fromStdString(p.orderString()), QString::fromStdString(p.layersString()),
                         QString::fromStdString(p.recomputeString())};
    for (const auto& s : p.stages)
        haystack << QString::fromStdString(s.gpuType);
    const QString all = haystack.join(QLatin1Char('\n'));
    for (const auto& word : words_)
        if (!all.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

bool PlanFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (sourceParent.isValid())
        return false;
    const auto* model = qobject_cast<const PlanTableModel*>(sourceModel());
    if (!model)
        return true;
    const Plan* p = model->planAt(sourceRow);
    return p && accepts(*p);
}

}  // namespace memx
