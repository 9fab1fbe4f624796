#include "PlanFilterProxy.h"
#include "PlanTableModel.h"
#include "TestRequests.h"
#include "search/SearchEngine.h"

#include <QAbstractItemModelTester>
#include <QRegularExpression>
#include "TestMain.h"

#include <algorithm>

namespace tst_plan_table_model {

using namespace memx;

namespace {
SearchResult runPaperSearch() { return test::runPaperSearch(); }

// The ten best (some of them two-stage plans without the A100s) and the plot
// sample (mostly five-stage plans), each plan once.
std::vector<Plan> mixedPlans(const SearchResult& r)
{
    std::vector<Plan> out = r.best;
    for (const auto& p : r.plotSample)
        if (std::none_of(out.begin(), out.end(), [&](const Plan& q) { return q.key == p.key; }))
            out.push_back(p);
    return out;
}

bool usesSlice(const Plan& p, const std::string& group, int slice)
{
    return std::any_of(p.stages.begin(), p.stages.end(),
                       [&](const StagePlan& s) { return s.groupName == group && s.slice == slice; });
}
}  // namespace

class TestPlanTableModel : public QObject {
    Q_OBJECT
private:
    SearchResult result_;

private slots:
    void initTestCase()
    {
        result_ = runPaperSearch();
        QVERIFY2(result_.error.empty(), result_.error.c_str());
        QVERIFY(!result_.best.empty());
        QVERIFY(result_.plotSample.size() > 300);
    }

    void setPlansTwiceUnderTester()
    {
        PlanTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setPlans(result_.best, result_.varianceMode);
        QCOMPARE(model.rowCount(), int(result_.best.size()));
        QCOMPARE(model.columnCount(), int(PlanTableModel::ColumnCount));
        model.setPlans(result_.plotSample, VarianceMode::Utilisation);
        QCOMPARE(model.rowCount(), int(result_.plotSample.size()));
        model.setPlans({}, VarianceMode::AbsoluteMiB);
        QCOMPARE(model.rowCount(), 0);
    }

    void firstRowMatchesEngine_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("expected");
        const Plan& p = result_.best.front();
        QTest::newRow("rank") << int(PlanTableModel::RankPhiColumn) << QString::number(p.rankPhi);
        QTest::newRow("TP") << int(PlanTableModel::TpColumn) << QString::number(p.tp);
        QTest::newRow("PP") << int(PlanTableModel::PpColumn) << QString::number(p.pp);
        QTest::newRow("DP") << int(PlanTableModel::DpColumn) << QString::number(p.dp);
        QTest::newRow("stage order") << int(PlanTableModel::StageOrderColumn)
                                     << QString::fromStdString(p.orderString());
        QTest::newRow("layers") << int(PlanTableModel::LayersColumn) << QString::fromStdString(p.layersString());
        QTest::newRow("recompute letters")
            << int(PlanTableModel::RecomputeColumn) << QString::fromStdString(p.recomputeString());
        QTest::newRow("T ms, 1 decimal") << int(PlanTableModel::TimeColumn) << QString::number(p.iterationMs, 'f', 1);
        QTest::newRow("M GiB, 2 decimals")
            << int(PlanTableModel::MemoryColumn) << QString::number(p.maxMemMiB / 1024, 'f', 2);
        QTest::newRow("V GiB^2") << int(PlanTableModel::VarianceColumn)
                                 << QString::number(p.varMem / (1024.0 * 1024.0), 'f', 2);
        QTest::newRow("Phi, 4 decimals") << int(PlanTableModel::PhiColumn) << QString::number(p.phi, 'f', 4);
        QTest::newRow("min headroom %") << int(PlanTableModel::MinHeadroomColumn)
                                        << QString::number(100 * p.minHeadroom(), 'f', 1);
    }
    void firstRowMatchesEngine()
    {
        QFETCH(int, column);
        QFETCH(QString, expected);
        PlanTableModel model;
        model.setPlans(result_.best, VarianceMode::AbsoluteMiB);
        QCOMPARE(model.data(model.index(0, column)).toString(), expected);
    }

    void recomputeUsesLetters()
    {
        PlanTableModel model;
        model.setPlans(result_.plotSample, result_.varianceMode);
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString letters = model.data(model.index(row, PlanTableModel::RecomputeColumn)).toString();
            const auto parts = letters.split(QLatin1Char(','));
            QCOMPARE(parts.size(), model.planAt(row)->pp);
            for (const auto& l : parts)
                QVERIFY2(l == "N" || l == "S" || l == "F", qPrintable(letters));
        }
    }

    void sortRoleIsNumeric()
    {
        PlanTableModel model;
        model.setPlans(result_.best, result_.varianceMode);
        const QVariant t = model.data(model.index(0, PlanTableModel::TimeColumn), PlanTableModel::SortRole);
        QCOMPARE(t.typeId(), QMetaType::Double);
        QCOMPARE(t.toDouble(), result_.best.front().iterationMs);
    }

    void keysAndRowOfKey()
    {
        PlanTableModel model;
        model.setPlans(result_.plotSample, result_.varianceMode);
        for (int row = 0; row < model.rowCount(); ++row) {
            const quint64 key = model.data(model.index(row, 0), PlanTableModel::PlanKeyRole).value<quint64>();
            QCOMPARE(key, quint64(result_.plotSample[row].key));
            QCOMPARE(model.rowOfKey(key), row);
            QCOMPARE(model.planAt(row)->key, result_.plotSample[row].key);
        }
        QCOMPARE(model.planAt(-1), nullptr);
        QCOMPARE(model.planAt(model.rowCount()), nullptr);
        quint64 unused = 1;
        while (model.rowOfKey(unused) >= 0)
            ++unused;
        QCOMPARE(model.rowOfKey(unused), -1);
    }

    void varianceHeaderFollowsMode()
    {
        PlanTableModel model;
        model.setPlans(result_.best, VarianceMode::AbsoluteMiB);
        QCOMPARE(model.headerData(PlanTableModel::VarianceColumn, Qt::Horizontal).toString(), QString("V (GiB²)"));
        QCOMPARE(model.headerData(PlanTableModel::TimeColumn, Qt::Horizontal).toString(), QString("T (ms)"));
        model.setPlans(result_.best, VarianceMode::Utilisation);
        QCOMPARE(model.headerData(PlanTableModel::VarianceColumn, Qt::Horizontal).toString(), QString("V (util²)"));
        QCOMPARE(model.data(model.index(0, PlanTableModel::VarianceColumn)).toString(),
                 QString::number(result_.best.front().varMem, 'f', 4));
    }

    void toolTipListsStages()
    {
        PlanTableModel model;
        model.setPlans(result_.best, result_.varianceMode);
        const QString tip = model.data(model.index(0, PlanTableModel::LayersColumn), Qt::ToolTipRole).toString();
        QVERIFY2(!tip.contains(QRegularExpression("%\\d")), qPrintable(tip));  // every placeholder filled
        for (const auto& s : result_.best.front().stages)
            QVERIFY2(tip.contains(QString::fromStdString(s.gpuType)), qPrintable(tip));
    }

    void proxySortsByTime_data()
    {
        QTest::addColumn<Qt::SortOrder>("order");
        QTest::newRow("ascending") << Qt::AscendingOrder;
        QTest::newRow("descending") << Qt::DescendingOrder;
    }
    void proxySortsByTime()
    {
        QFETCH(Qt::SortOrder, order);
        PlanTableModel model;
        model.setPlans(result_.plotSample, result_.varianceMode);
        PlanFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
        proxy.setSourceModel(&model);
        proxy.sort(PlanTableModel::TimeColumn, order);
        QCOMPARE(proxy.rowCount(), model.rowCount());
        double previous = order == Qt::AscendingOrder ? -1.0 : 1e300;
        for (int row = 0; row < proxy.rowCount(); ++row) {
            const double t = model.planAt(proxy.mapToSource(proxy.index(row, 0)).row())->iterationMs;
            if (order == Qt::AscendingOrder)
                QVERIFY2(t >= previous, qPrintable(QString("row %1: %2 after %3").arg(row).arg(t).arg(previous)));
            else
                QVERIFY(t <= previous);
            previous = t;
        }
    }

    void proxyTextFilter_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("slices");  // "group#slice" every kept plan must use
        QTest::addColumn<bool>("subset");  // the data has plans the filter must drop
        QTest::newRow("vc#0") << "vc#0" << QStringList{"vc#0"} << false;
        QTest::newRow("a100#0, a strict subset") << "a100#0" << QStringList{"a100#0"} << true;
        QTest::newRow("other case") << "A100#0" << QStringList{"a100#0"} << true;
        QTest::newRow("two words") << "vc#0 a100#0" << QStringList{"vc#0", "a100#0"} << true;
    }
    void proxyTextFilter()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, slices);
        QFETCH(bool, subset);
        auto usesAll = [&](const Plan& p) {
            return std::all_of(slices.begin(), slices.end(), [&](const QString& gs) {
                return usesSlice(p, gs.section('#', 0, 0).toStdString(), gs.section('#', 1).toInt());
            });
        };
        const std::vector<Plan> plans = mixedPlans(result_);
        PlanTableModel model;
        model.setPlans(plans, result_.varianceMode);
        PlanFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
        proxy.setSourceModel(&model);
        proxy.setFilterText(text);
        const auto expected = std::count_if(plans.begin(), plans.end(), usesAll);
        QVERIFY(expected > 0);
        if (subset)
            QVERIFY(expected < model.rowCount());
        QCOMPARE(proxy.rowCount(), int(expected));
        for (int row = 0; row < proxy.rowCount(); ++row)
            QVERIFY(usesAll(*model.planAt(proxy.mapToSource(proxy.index(row, 0)).row())));
        proxy.setFilterText(QString());
        QCOMPARE(proxy.rowCount(), model.rowCount());
    }

    void proxyTextFilterMatchesGpuType()
    {
        PlanTableModel model;
        model.setPlans(result_.plotSample, result_.varianceMode);
        PlanFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.setFilterText("vendor-c");
        int expected = 0;
        for (const auto& p : result_.plotSample)
            expected
                += std::any_of(p.stages.begin(), p.stages.end(), [](const auto& s) { return s.gpuType == "Vendor-C"; });
        QVERIFY(expected > 0);
        QCOMPARE(proxy.rowCount(), expected);
    }

    void proxyMinHeadroom()
    {
        // The tester walks every cell after each of the many row removals: keep the model small.
        const std::vector<Plan> plans(result_.plotSample.begin(), result_.plotSample.begin() + 300);
        PlanTableModel model;
        model.setPlans(plans, result_.varianceMode);
        PlanFilterProxy proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
        proxy.setSourceModel(&model);
        std::vector<double> headrooms;
        for (const auto& p : plans)
            headrooms.push_back(p.minHeadroom());
        std::sort(headrooms.begin(), headrooms.end());
        const double limit = headrooms[headrooms.size() / 2];
        proxy.setMinHeadroom(limit);
        const auto expected = std::count_if(headrooms.begin(), headrooms.end(), [&](double h) { return h >= limit; });
        QCOMPARE(proxy.rowCount(), int(expected));
        QVERIFY(proxy.rowCount() < model.rowCount());
        for (int row = 0; row < proxy.rowCount(); ++row)
            QVERIFY(model.planAt(proxy.mapToSource(proxy.index(row, 0)).row())->minHeadroom() >= limit);
        proxy.setMinHeadroom(std::nullopt);
        QCOMPARE(proxy.rowCount(), model.rowCount());
    }

    void proxyNumericLimits()
    {
        PlanTableModel model;
        model.setPlans(result_.plotSample, result_.varianceMode);
        PlanFilterProxy proxy;
        proxy.setSourceModel(&model);
        const Plan& fastest = result_.fastest.front();
        proxy.setMaxIterationMs(result_.references.time);
        proxy.setTensorParallel(fastest.tp);
        proxy.setPipelineParallel(fastest.pp);
        int expected = 0;
        for (const auto& p : result_.plotSample)
            expected += p.iterationMs <= result_.references.time && p.tp == fastest.tp && p.pp == fastest.pp;
        QVERIFY(expected > 0);
        QCOMPARE(proxy.rowCount(), expected);
        proxy.clearFilters();
        QCOMPARE(proxy.rowCount(), model.rowCount());
    }
};

MEMX_TEST_MAIN(TestPlanTableModel)
}  // namespace tst_plan_table_model

#include "tst_plan_table_model.moc"
