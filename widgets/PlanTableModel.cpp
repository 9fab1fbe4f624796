#include "PlanTableModel.h"

#include "NumberText.h"
#include "search/PlanCost.h"

#include <algorithm>

namespace memx {

namespace {

double stagePeakGiB(const StagePlan& s) { return s.memory.totalMiB() / kMiBPerGiB; }

QString scheduleText(const Plan& p)
{
    return p.schedule == Schedule::OneF1B ? QStringLiteral("1f1b") : QStringLiteral("int(v=%1)").arg(p.virtualStages);
}

bool isNumeric(int column)
{
    switch (column) {
    case PlanTableModel::ScheduleColumn:
    case PlanTableModel::StageOrderColumn:
    case PlanTableModel::LayersColumn:
    case PlanTableModel::RecomputeColumn: return false;
    default: return true;
    }
}
}  // namespace

PlanTableModel::PlanTableModel(QObject* parent) : QAbstractTableModel(parent) { }

void PlanTableModel::setPlans(std::vector<Plan> plans, VarianceMode mode)
{
    beginResetModel();
    plans_ = std::move(plans);
    mode_ = mode;
    rowByKey_.clear();
    for (int row = 0; row < static_cast<int>(plans_.size()); ++row)
        rowByKey_.insert(static_cast<quint64>(plans_[row].key), row);
    endResetModel();
}

const Plan* PlanTableModel::planAt(int row) const
{
    return row >= 0 && row < static_cast<int>(plans_.size()) ? &plans_[row] : nullptr;
}

int PlanTableModel::rowOfKey(quint64 key) const { return rowByKey_.value(key, -1); }

int PlanTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(plans_.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PlanTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Plan& p = plans_[index.row()];
    switch (role) {
    case Qt::DisplayRole: return display(p, index.column());
    case SortRole: return sortValue(p, index.column());
    case PlanKeyRole: return QVariant::fromValue(static_cast<quint64>(p.key));
    case Qt::ToolTipRole: return toolTip(p);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(isNumeric(index.column()) ? Qt::AlignRight | Qt::AlignVCenter
                                                             : Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant PlanTableModel::display(const Plan& p, int column) const
{
    switch (column) {
    case RankPhiColumn: return QString::number(p.rankPhi);
    // A per-mesh plan shows each mesh's value, "4|2" (Plan::meshValues).
    case TpColumn:
        return p.perMesh() ? QVariant(QString::fromStdString(p.meshValues(&StageShape::tp))) : QVariant(p.tp);
    case PpColumn: return p.pp;
    case DpColumn:
        return p.perMesh() ? QVariant(QString::fromStdString(p.meshValues(&StageShape::dp))) : QVariant(p.dp);
    case MicroBatchColumn:
        return p.perMesh() ? QVariant(QString::fromStdString(p.meshValues(&StageShape::microBatch)))
                           : QVariant(p.microBatch);
    case SeqLenColumn: return p.seqLen;
    case ScheduleColumn: return scheduleText(p);
    case StageOrderColumn: return QString::fromStdString(p.orderString());
    case LayersColumn: return QString::fromStdString(p.layersString());
    case RecomputeColumn: return QString::fromStdString(p.recomputeString());
    case TimeColumn: return fixedNumber(p.iterationMs, 1);
    case TokensColumn: return fixedNumber(PlanCost::tokensPerSecond(p), 0);
    case MemoryColumn: return fixedNumber(p.maxMemMiB / kMiBPerGiB, 2);
    case VarianceColumn:
        return mode_ == VarianceMode::AbsoluteMiB ? fixedNumber(p.varMem / (kMiBPerGiB * kMiBPerGiB), 2)
                                                  : fixedNumber(p.varMem, 4);
    case PhiColumn: return fixedNumber(p.phi, 4);
    case RankTimeColumn: return (p.ranksApproximate ? QStringLiteral("~") : QString()) + QString::number(p.rankTime);
    case MinHeadroomColumn: return fixedNumber(100.0 * p.minHeadroom(), 1);
    case StagePeaksColumn: {
        QStringList peaks;
        for (const auto& s : p.stages)
            peaks << fixedNumber(stagePeakGiB(s), 1);
        return peaks.join(QLatin1Char(' '));
    }
    default: return {};
    }
}

QVariant PlanTableModel::sortValue(const Plan& p, int column) const
{
    switch (column) {
    case RankPhiColumn: return static_cast<double>(p.rankPhi);
    case TpColumn: return static_cast<double>(p.tp);
    case PpColumn: return static_cast<double>(p.pp);
    case DpColumn: return static_cast<double>(p.dp);
    case MicroBatchColumn: return static_cast<double>(p.microBatch);
    case SeqLenColumn: return static_cast<double>(p.seqLen);
    case TimeColumn: return p.iterationMs;
    case TokensColumn: return PlanCost::tokensPerSecond(p);
    case MemoryColumn: return p.maxMemMiB;
    case VarianceColumn: return p.varMem;
    case PhiColumn: return p.phi;
    case RankTimeColumn: return static_cast<double>(p.rankTime);
    case MinHeadroomColumn: return p.minHeadroom();
    case StagePeaksColumn: {
        double peak = 0;
        for (const auto& s : p.stages)
            peak = std::max(peak, s.memory.totalMiB());
        return peak;
    }
    default: return display(p, column);
    }
}

QString PlanTableModel::toolTip(const Plan& p) const
{
    QString html
        = QStringLiteral("<b>TP %1 &middot; PP %2 &middot; DP %3</b>, micro-batch %4 (%5 per iteration), %6<br>"
                         "iteration %7 ms: DP sync %8 ms, optimizer + fixed %9 ms")
              .arg(p.tp)
              .arg(p.pp)
              .arg(p.dp)
              .arg(p.microBatch)
              .arg(p.microBatchCount)
              .arg(scheduleText(p), fixedNumber(p.iterationMs, 1), fixedNumber(p.dpMs, 1), fixedNumber(p.fixedMs, 1));
    if (p.perMesh())
        html += QStringLiteral("<br>per-mesh plan (FlagScale process meshes): %1")
                    .arg(QString::fromStdString(p.shapeString()).toHtmlEscaped());
    html += QStringLiteral("<table cellspacing=0 cellpadding=2>"
                           "<tr><th align=left>stage</th><th align=left>group</th><th align=left>GPU</th>"
                           "<th align=left>layers</th><th align=left>recompute</th><th align=right>t_mb ms</th>"
                           "<th align=right>peak / capacity GiB</th><th align=right>headroom</th></tr>");
    for (std::size_t i = 0; i < p.stages.size(); ++i) {
        const auto& s = p.stages[i];
        html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4-%5</td><td>%6</td>"
                               "<td align=right>%7</td><td align=right>%8 / %9</td><td align=right>%10%</td></tr>")
                    .arg(i)
                    .arg(QString::fromStdString(s.label()).toHtmlEscaped())
                    .arg(QString::fromStdString(s.gpuType).toHtmlEscaped())
                    .arg(s.firstLayer)
                    .arg(s.firstLayer + s.layers - 1)
                    .arg(QString::fromLatin1(toString(s.recompute)), fixedNumber(s.timeMs, 1),
                         fixedNumber(stagePeakGiB(s), 1), fixedNumber(s.capacityMiB / kMiBPerGiB, 1),
                         fixedNumber(100.0 * s.headroom(), 0));
    }
    html += QStringLiteral("</table>");
    return html;
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool absolute = mode_ == VarianceMode::AbsoluteMiB;
    if (role == Qt::DisplayRole) {
        switch (section) {
        case RankPhiColumn: return QStringLiteral("#");
        case TpColumn: return QStringLiteral("TP");
        case PpColumn: return QStringLiteral("PP");
        case DpColumn: return QStringLiteral("DP");
        case MicroBatchColumn: return QStringLiteral("mbs");
        case SeqLenColumn: return QStringLiteral("seq");
        case ScheduleColumn: return QStringLiteral("sched");
        case StageOrderColumn: return QStringLiteral("stage order");
        case LayersColumn: return QStringLiteral("layers");
        case RecomputeColumn: return QStringLiteral("recomp");
        case TimeColumn: return QStringLiteral("T (ms)");
        case TokensColumn: return QStringLiteral("tokens/s");
        case MemoryColumn: return QStringLiteral("M (GiB)");
        case VarianceColumn: return absolute ? QStringLiteral("V (GiB²)") : QStringLiteral("V (util²)");
        case PhiColumn: return QStringLiteral("Phi");
        case RankTimeColumn: return QStringLiteral("rank T");
        case MinHeadroomColumn: return QStringLiteral("min headroom %");
        case StagePeaksColumn: return QStringLiteral("stage peaks (GiB)");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case RankPhiColumn: return tr("Rank under the objective Phi (1 = best)");
        case MicroBatchColumn: return tr("Micro-batch size (sequences)");
        case SeqLenColumn: return tr("Sequence length (tokens)");
        case StageOrderColumn: return tr("Pipeline stages in order: device group # slice");
        case LayersColumn: return tr("Transformer layers per stage, in pipeline order");
        case RecomputeColumn: return tr("Recomputation per stage: N none, S selective, F full");
        case TimeColumn: return tr("Predicted iteration time T, milliseconds");
        case TokensColumn:
            return tr("Tokens per second: global batch x sequence length / T (compares plans of "
                      "different sequence lengths)");
        case MemoryColumn: return tr("Highest per-GPU peak memory M, GiB");
        case VarianceColumn:
            return absolute ? tr("Variance of per-GPU peak memory V, GiB²")
                            : tr("Variance of per-GPU memory utilisation (peak / capacity) V");
        case PhiColumn: return tr("Objective value (lower is better)");
        case RankTimeColumn: return tr("Rank by iteration time (1 = fastest feasible plan; ~ approximate)");
        case MinHeadroomColumn: return tr("Lowest free memory over the stages, % of capacity");
        case StagePeaksColumn: return tr("Peak memory per GPU of each stage, GiB");
        default: return {};
        }
    } else if (role == Qt::TextAlignmentRole) {
        return QVariant::fromValue(isNumeric(section) ? Qt::AlignRight | Qt::AlignVCenter
                                                      : Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

}  // namespace memx
