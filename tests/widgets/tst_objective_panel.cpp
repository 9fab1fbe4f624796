#include "ObjectivePanel.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSlider>
#include "TestMain.h"
#include "TestMetaTypes.h"

#include <cmath>

namespace tst_objective_panel {

using namespace memx;

}  // namespace tst_objective_panel
Q_DECLARE_METATYPE(memx::Weights)
namespace tst_objective_panel {

namespace {
double at(const Weights& w, int i) { return i == 0 ? w.time : i == 1 ? w.memory : w.variance; }

QString check(const Weights& w)
{
    const double sum = w.time + w.memory + w.variance;
    if (std::abs(sum - 1.0) > 1e-9)
        return QString("sum %1").arg(sum, 0, 'g', 17);
    if (w.time < 0 || w.memory < 0 || w.variance < 0)
        return QString("negative weight (%1, %2, %3)").arg(w.time).arg(w.memory).arg(w.variance);
    return {};
}

ObjectiveSpec customSpec(Weights w)
{
    ObjectiveSpec s;
    s.profile = WeightProfile::Custom;
    s.custom = w;
    return s;
}
}  // namespace

class TestObjectivePanel : public QObject {
    Q_OBJECT
private slots:
    void choosingProfile_data()
    {
        QTest::addColumn<WeightProfile>("kind");
        QTest::newRow("safety-first") << WeightProfile::SafetyFirst;
        QTest::newRow("throughput-first") << WeightProfile::ThroughputFirst;
        QTest::newRow("custom") << WeightProfile::Custom;
        QTest::newRow("auto") << WeightProfile::Auto;
        QTest::newRow("default (after another)") << WeightProfile::Default;
    }
    void choosingProfile()
    {
        QFETCH(WeightProfile, kind);
        ObjectivePanel panel;
        if (kind == WeightProfile::Default)
            panel.profileButton(WeightProfile::Auto)->click();
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        panel.profileButton(kind)->click();
        QCOMPARE(panel.objective().profile, kind);
        QCOMPARE(spy.count(), 1);
        // Only custom weights can be edited; the others show their profile's weights.
        QCOMPARE(panel.weightSlider(ObjectivePanel::TimeWeight)->isEnabledTo(&panel), kind == WeightProfile::Custom);
        if (kind != WeightProfile::Custom && kind != WeightProfile::Auto)
            QCOMPARE(panel.weightSlider(ObjectivePanel::MemoryWeight)->value(),
                     int(std::lround(weightsOf(kind).memory * ObjectivePanel::kSliderSteps)));
    }

    void movingSliderKeepsWeightsNormalised_data()
    {
        QTest::addColumn<Weights>("start");
        QTest::addColumn<int>("slider");
        QTest::addColumn<int>("position");
        const Weights def{0.4, 0.2, 0.4};
        QTest::newRow("time up") << def << 0 << 70;
        QTest::newRow("time down") << def << 0 << 10;
        QTest::newRow("memory to 0") << def << 1 << 0;
        QTest::newRow("memory to 1") << def << 1 << 100;
        QTest::newRow("variance up") << def << 2 << 55;
        QTest::newRow("thirds, time") << Weights{1, 1, 1} << 0 << 34;
        QTest::newRow("others zero") << Weights{1, 0, 0} << 0 << 40;
        QTest::newRow("one other zero") << Weights{0.5, 0.5, 0} << 1 << 20;
    }
    void movingSliderKeepsWeightsNormalised()
    {
        QFETCH(Weights, start);
        QFETCH(int, slider);
        QFETCH(int, position);
        ObjectivePanel panel;
        panel.setObjective(customSpec(start));
        const Weights before = panel.objective().custom;
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        panel.weightSlider(ObjectivePanel::WeightIndex(slider))->setValue(position);
        QCOMPARE(spy.count(), 1);  // no feedback from the other sliders
        const Weights w = panel.objective().custom;
        QVERIFY2(check(w).isEmpty(), qPrintable(check(w)));
        QCOMPARE(at(w, slider), position / double(ObjectivePanel::kSliderSteps));
        // The other two keep their ratio (or share equally when both were 0).
        const int a = (slider + 1) % 3, b = (slider + 2) % 3;
        if (at(before, a) + at(before, b) > 0 && position < ObjectivePanel::kSliderSteps)
            QVERIFY(std::abs(at(w, a) * at(before, b) - at(w, b) * at(before, a)) < 1e-12);
        else if (position < ObjectivePanel::kSliderSteps)
            QCOMPARE(at(w, a), at(w, b));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(panel.weightSlider(ObjectivePanel::WeightIndex(i))->value(),
                     int(std::lround(at(w, i) * ObjectivePanel::kSliderSteps)));
        auto* value = panel.findChild<QLabel*>("weight-time-value");
        QVERIFY(value);
        QCOMPARE(value->text(), QString::number(w.time, 'f', 2));
    }

    void manyMovesStayNormalised()
    {
        ObjectivePanel panel;
        panel.profileButton(WeightProfile::Custom)->click();
        unsigned seed = 12345;
        for (int step = 0; step < 500; ++step) {
            seed = seed * 1103515245u + 12345u;
            const int which = int((seed >> 16) % 3);
            const int pos = int((seed >> 4) % (ObjectivePanel::kSliderSteps + 1));
            panel.weightSlider(ObjectivePanel::WeightIndex(which))->setValue(pos);
            const QString problem = check(panel.objective().custom);
            QVERIFY2(problem.isEmpty(), qPrintable(QString("step %1: %2").arg(step).arg(problem)));
        }
    }

    void redistribute_data()
    {
        QTest::addColumn<Weights>("start");
        QTest::addColumn<int>("which");
        QTest::addColumn<double>("value");
        QTest::addColumn<Weights>("expected");
        QTest::newRow("proportional") << Weights{0.4, 0.2, 0.4} << 0 << 0.7 << Weights{0.7, 0.1, 0.2};
        QTest::newRow("both others zero") << Weights{1, 0, 0} << 0 << 0.4 << Weights{0.4, 0.3, 0.3};
        QTest::newRow("to one") << Weights{0.3, 0.5, 0.2} << 2 << 1.0 << Weights{0, 0, 1};
        QTest::newRow("clamped above") << Weights{0.3, 0.5, 0.2} << 1 << 1.5 << Weights{0, 1, 0};
        QTest::newRow("clamped below") << Weights{0.3, 0.5, 0.2} << 1 << -0.5 << Weights{0.6, 0, 0.4};
    }
    void redistribute()
    {
        QFETCH(Weights, start);
        QFETCH(int, which);
        QFETCH(double, value);
        QFETCH(Weights, expected);
        const Weights w = ObjectivePanel::redistribute(start, ObjectivePanel::WeightIndex(which), value);
        QVERIFY2(check(w).isEmpty(), qPrintable(check(w)));
        for (int i = 0; i < 3; ++i)
            QVERIFY2(std::abs(at(w, i) - at(expected, i)) < 1e-12,
                     qPrintable(QString("weight %1: %2").arg(i).arg(at(w, i))));
    }

    void customWeightsReturnedNormalised_data()
    {
        QTest::addColumn<Weights>("given");
        QTest::addColumn<Weights>("expected");
        QTest::newRow("1:1:2") << Weights{1, 1, 2} << Weights{0.25, 0.25, 0.5};
        QTest::newRow("already normalised") << Weights{0.5, 0.3, 0.2} << Weights{0.5, 0.3, 0.2};
        QTest::newRow("one weight") << Weights{0, 0, 3} << Weights{0, 0, 1};
        QTest::newRow("all zero: default") << Weights{0, 0, 0} << weightsOf(WeightProfile::Default);
    }
    void customWeightsReturnedNormalised()
    {
        QFETCH(Weights, given);
        QFETCH(Weights, expected);
        ObjectivePanel panel;
        panel.setObjective(customSpec(given));
        const ObjectiveSpec s = panel.objective();
        QCOMPARE(s.profile, WeightProfile::Custom);
        for (int i = 0; i < 3; ++i)
            QVERIFY(std::abs(at(s.custom, i) - at(expected, i)) < 1e-12);
    }

    // eV's rule: the uncertainty by default, the paper's on request, and a
    // project file's own fraction or value kept as a third choice.
    void epsilonRuleChoice()
    {
        ObjectivePanel panel;
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("epsilon-rule"));
        QVERIFY(combo);
        QCOMPARE(combo->count(), 2);
        QCOMPARE(panel.objective().epsilonRule, EpsilonRule::Uncertainty);
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        combo->setCurrentIndex(1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(panel.objective().epsilonRule, EpsilonRule::Fraction);
        QCOMPARE(panel.objective().epsilonFraction, 0.01);
        ObjectiveSpec own;
        own.epsilonRule = EpsilonRule::Absolute;
        own.epsilonValue = 5.0;
        panel.setObjective(own);
        QCOMPARE(combo->count(), 3);
        QCOMPARE(combo->currentIndex(), 2);
        QCOMPARE(panel.objective(), own);
        combo->setCurrentIndex(0);
        QCOMPARE(panel.objective().epsilonRule, EpsilonRule::Uncertainty);
        panel.setObjective(ObjectiveSpec{});
        QCOMPARE(combo->count(), 2);
    }

    void compareTasksChoice()
    {
        ObjectivePanel panel;
        auto* combo = panel.findChild<QComboBox*>(QStringLiteral("compare-tasks"));
        QVERIFY(combo);
        QCOMPARE(panel.objective().compareTasks, TaskCompare::PerTask);
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        combo->setCurrentIndex(1);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(panel.objective().compareTasks, TaskCompare::PerToken);
        panel.setObjective(ObjectiveSpec{});
        QCOMPARE(combo->currentIndex(), 0);
        ObjectiveSpec perToken;
        perToken.compareTasks = TaskCompare::PerToken;
        panel.setObjective(perToken);
        QCOMPARE(panel.objective(), perToken);
    }

    void roundTripKeepsHiddenFields()
    {
        ObjectiveSpec spec = customSpec({0.2, 0.3, 0.5});
        spec.variance = VarianceMode::Utilisation;
        spec.epsilonFraction = 0.05;
        spec.safetyMarginThreshold = 0.2;
        ObjectivePanel panel;
        panel.setObjective(spec);
        const ObjectiveSpec out = panel.objective();
        QCOMPARE(out.variance, VarianceMode::Utilisation);
        QCOMPARE(out.epsilonFraction, 0.05);
        QCOMPARE(out.safetyMarginThreshold, 0.2);
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        panel.findChild<QRadioButton*>("variance-mib")->click();
        QCOMPARE(panel.objective().variance, VarianceMode::AbsoluteMiB);
        QCOMPARE(spy.count(), 1);
    }

    void constraintsFields()
    {
        // The two fields a user types into come back as the search's
        // constraints (fractions), and a loaded objective shows them.
        ObjectivePanel panel;
        QCOMPARE(panel.objective().minHeadroom, 0.0);  // off by default
        QCOMPARE(panel.objective().maxSlowdown, -1.0);
        QVERIFY(!panel.headroomAtUpperBox()->isEnabled());  // nothing to count at the upper bound yet
        QSignalSpy spy(&panel, &ObjectivePanel::changed);
        panel.minHeadroomBox()->setValue(10);
        panel.headroomAtUpperBox()->setChecked(true);
        panel.maxSlowdownBox()->setValue(15);
        QCOMPARE(spy.count(), 3);
        ObjectiveSpec out = panel.objective();
        QCOMPARE(out.minHeadroom, 0.10);
        QVERIFY(out.headroomAtUpper);
        QCOMPARE(out.maxSlowdown, 0.15);
        panel.maxSlowdownBox()->setValue(0);  // 0 %: only the fastest
        QCOMPARE(panel.objective().maxSlowdown, 0.0);
        panel.maxSlowdownBox()->setValue(-1);  // "off"
        QCOMPARE(panel.maxSlowdownBox()->text(), QStringLiteral("off"));
        QCOMPARE(panel.objective().maxSlowdown, -1.0);

        ObjectivePanel other;
        other.setObjective(out);
        QCOMPARE(other.minHeadroomBox()->value(), 10.0);
        QVERIFY(other.headroomAtUpperBox()->isChecked());
        QCOMPARE(other.objective(), out);
    }

    void autoExplanationShownForAuto()
    {
        ObjectivePanel panel;
        const QString why = "auto chose safety-first: the fastest plan leaves only 1.1% headroom";
        panel.setAutoExplanation(why);
        auto* label = panel.findChild<QLabel*>("autoExplanation");
        QVERIFY(label);
        QVERIFY(!label->isVisibleTo(&panel));
        panel.profileButton(WeightProfile::Auto)->click();
        QVERIFY(label->isVisibleTo(&panel));
        QCOMPARE(label->text(), why);
        QCOMPARE(panel.autoExplanation(), why);
    }
};

MEMX_TEST_MAIN(TestObjectivePanel)
}  // namespace tst_objective_panel

#include "tst_objective_panel.moc"
