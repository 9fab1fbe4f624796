// The "Why no plan of shape" form under Why this plan? (issue #35 item 7):
// off until a search; starts at the best plan's shape; asking about PP 1 on a
// two-type cluster names the stage slots; another shape clears an answer that
// no longer applies.
#include "WhyNotShapePanel.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"

#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include "TestMain.h"

namespace tst_why_not_shape_panel {

using namespace memx;

namespace {

// One node of 8 A100-80GB and one of 8 H100-SXM: TP 8 x DP 1 cuts two slots.
Problem twoTypes()
{
    Problem p;
    p.cluster = Cluster::fromJson(nlohmann::json::parse(R"({
      "format": "memx-cluster/1", "name": "a100-h100-16",
      "nodes": [{"name": "a100", "gpus": [{"type": "A100-80GB", "count": 8}]},
                {"name": "h100", "gpus": [{"type": "H100-SXM", "count": 8}]}],
      "links": [{"name": "a", "kind": "NVLink", "within": "a100", "bandwidth_gbps": 300, "latency_us": 3},
                {"name": "h", "kind": "NVLink", "within": "h100", "bandwidth_gbps": 450, "latency_us": 3},
                {"name": "ib", "kind": "InfiniBand", "between": ["a100", "h100"], "bandwidth_gbps": 50, "latency_us": 5}]})"),
                                  "two-types.json", GpuCatalog::builtin());
    p.model = ModelSpec::resolve("llama2-13b");
    p.setup.globalBatch = 64;
    return p;
}

}  // namespace

class TestWhyNotShapePanel : public QObject {
    Q_OBJECT
private slots:
    void offUntilASearch();
    void answersForTheShapeAsked();
};

void TestWhyNotShapePanel::offUntilASearch()
{
    WhyNotShapePanel panel;
    auto* ask = panel.findChild<QPushButton*>(QStringLiteral("whyNotAsk"));
    QVERIFY(ask);
    QVERIFY(!ask->isEnabled());
    panel.setProblem(twoTypes(), nullptr, 8, 2, 1);
    QVERIFY(ask->isEnabled());
    QCOMPARE(panel.findChild<QSpinBox*>(QStringLiteral("whyNotTp"))->value(), 8);
    QCOMPARE(panel.findChild<QSpinBox*>(QStringLiteral("whyNotPp"))->value(), 2);
    QCOMPARE(panel.findChild<QSpinBox*>(QStringLiteral("whyNotDp"))->value(), 1);
    panel.clear();  // File > New: no search to ask about
    QVERIFY(!ask->isEnabled());
}

void TestWhyNotShapePanel::answersForTheShapeAsked()
{
    WhyNotShapePanel panel;
    panel.setProblem(twoTypes(), nullptr, 8, 2, 1);
    panel.findChild<QSpinBox*>(QStringLiteral("whyNotPp"))->setValue(1);
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("whyNotAsk")), Qt::LeftButton);
    QVERIFY2(panel.answer().contains("cuts the cluster into 2 stage slots (A100-80GB 1, H100-SXM 1)"),
             qPrintable(panel.answer()));
    QVERIFY2(panel.answer().contains("per-type meshes"), qPrintable(panel.answer()));
    // Another shape: the answer above no longer applies.
    panel.findChild<QSpinBox*>(QStringLiteral("whyNotPp"))->setValue(2);
    QVERIFY(panel.answer().isEmpty());
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("whyNotAsk")), Qt::LeftButton);
    QVERIFY2(panel.answer().contains("of this shape fit"), qPrintable(panel.answer()));
}

MEMX_TEST_MAIN(TestWhyNotShapePanel)
}  // namespace tst_why_not_shape_panel

#include "tst_why_not_shape_panel.moc"
