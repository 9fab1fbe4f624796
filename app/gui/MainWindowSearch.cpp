// Over 600 lines: MainWindow's searches and their results: running the search and the what-ifs as jobs of the tracker,
// showing the finished result in every view, staleness, and the selected plan.
#include "MainWindow.h"
#include "StdText.h"
#include "JobTracker.h"
#include "ProjectSession.h"
#include "CountText.h"
#include "ClusterDocument.h"
#include "MemoryBars.h"
#include "ObjectivePanel.h"
#include "ParetoPlot.h"
#include "PipelineView.h"
#include "PlanFilterProxy.h"
#include "WhyNotShapePanel.h"
#include "PlanTableModel.h"
#include "PredictorPanel.h"
#include "ProfileComparisonView.h"
#include "BandwidthWhatIfPanel.h"
#include "NodeChoicePanel.h"
#include "NodeLossPanel.h"
#include "BaselinesView.h"
#include "SimplexMapView.h"
#include "SearchController.h"
#include "SetupPanel.h"
#include "StaleBanner.h"
#include "StaleOverlay.h"
#include "NoticeBanner.h"
#include "export/PlanJson.h"
#include "predict/PredictionStore.h"
#include "search/BandwidthWhatIf.h"
#include "search/NodeChoice.h"
#include "search/NodeLossWhatIf.h"
#include "search/KneeRanking.h"
#include "search/PlanExplanation.h"
#include "search/PlanPlausibility.h"
#include "export/SearchReport.h"
#include "search/RecomputeAblation.h"
#include "search/RequestChanges.h"
#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <limits>

namespace memx {

namespace {

using Job = JobTracker::Job;

// A what-if that re-plans the last search (node loss, node choice): the
// search's request, on a copy of its prediction store (the next search writes
// to its own), run as a job of the tracker; its outcome is shown only if no
// later request or search made it stale.
template <class Run, class Show>
void replanOffThread(JobTracker& jobs, Job job, const SearchController& controller, Run run, Show show)
{
    SearchRequest request = controller.lastRequest();
    request.options.stopEarly = {};
    request.options.background = true;
    if (request.store)
        request.store = std::make_shared<PredictionStore>(*request.store);
    const std::shared_ptr<const SearchResult> result = controller.lastResultShared();
    jobs.start(
        job,
        [request = std::move(request), result, run](const JobTracker::Ticket& ticket) {
            return run(request, *result, ticket);
        },
        show);
}

}  // namespace

Problem MainWindow::currentProblem() const
{
    if (document_->isEmpty())
        throw std::runtime_error(tr("the cluster has no GPUs: add a node").toStdString());
    return Problem{document_->cluster(), setupPanel_->model(), setupPanel_->setup()};
}

QString MainWindow::originOfResult() const
{
    const QString project = session_->file().isEmpty() ? tr("an unsaved project")
                                                       : tr("project %1").arg(QFileInfo(session_->file()).fileName());
    return tr("%1 as it was when searched on %2%3 (cluster %4, model %5)")
        .arg(project, resultTime_.toString(Qt::ISODate),
             resultHadUnsavedChanges_ ? tr(", with unsaved changes") : QString(),
             qs(controller_->lastRequest().problem.cluster.name()), qs(controller_->lastRequest().problem.model.name));
}

const std::vector<Plan>* MainWindow::rankingFor(const ObjectiveSpec& objective) const
{
    if (!controller_->hasResult())
        return nullptr;
    const SearchRequest& last = controller_->lastRequest();
    const SearchResult& r = controller_->lastResult();
    // Only the profile (and custom weights) may differ.
    ObjectiveSpec a = last.objective, b = objective;
    a.profile = b.profile;
    a.custom = b.custom;
    if (!(a == b))
        return nullptr;
    auto sameWeights = [&](const Weights& w) {
        if (objective.profile != WeightProfile::Custom)
            return true;
        try {
            return Objective::normalised(objective.custom) == w;
        } catch (const std::exception&) {
            return false;
        }
    };
    if (objective.profile == last.objective.profile && objective.custom == last.objective.custom)
        return &r.best;
    if (objective.profile == r.profileUsed && objective.profile != WeightProfile::Custom)
        return &r.best;
    for (const auto& pb : r.profilePicks)
        if (pb.kind == objective.profile && !pb.ranking.empty() && sameWeights(pb.weights))
            return &pb.ranking;
    // The balanced pick is the knee of the result's time-variance front: no
    // new search needed (the walk saw it reported as an objective change).
    if (objective.profile == WeightProfile::Balanced && !kneeRanking_.empty())
        return &kneeRanking_;
    return nullptr;
}

void MainWindow::showRanking(const ObjectiveSpec& objective)
{
    const std::vector<Plan>* ranking = rankingFor(objective);
    if (!ranking || ranking == tableRanking_)
        return;
    tableRanking_ = ranking;
    planModel_->setPlans(*ranking, controller_->lastResult().varianceMode);
    planTable_->sortByColumn(0, Qt::AscendingOrder);
    if (!ranking->empty())
        selectPlan(ranking->front().key);
    statusLabel_->setText(tr("Plans ranked under %1 (from the last search)").arg(qs(toString(objective.profile))));
}

void MainWindow::updateStaleness()
{
    std::vector<std::string> changes;
    if (controller_->hasResult()) {
        SearchRequest now;
        try {
            now.problem = currentProblem();
            now.objective = objectivePanel_->objective();
            now.predictor = predictorPanel_->predictor();
            changes = RequestChanges::between(controller_->lastRequest(), now);
            // Another weight profile the search also ranked is not a stale
            // result: the table follows it.
            // Nor is it a change beside another: the banner names only what
            // the result does not cover.
            if (std::ranges::find(changes, "objective") != changes.end() && rankingFor(now.objective)) {
                std::erase(changes, "objective");
                if (changes.empty())
                    showRanking(now.objective);
            }
        } catch (const std::exception&) {
            // The panels hold something that cannot even be searched: an
            // emptied cluster, or a setup a panel refuses.
            changes = {document_->isEmpty() ? "cluster" : "setup"};
        }
    }
    staleChanges_ = changes;
    staleBanner_->setChanges(changes);
    // Dimmed, not hidden: a user may still compare with what they had.
    for (QWidget* view :
         std::initializer_list<QWidget*>{pareto_, bars_, pipeline_, compare_, simplex_, baselines_, planTable_}) {
        StaleOverlay* veil = StaleOverlay::of(view);
        if (!veil)
            veil = new StaleOverlay(view);
        veil->setStale(!changes.empty());
    }
}

void MainWindow::updatePredictorContext()
{
    try {
        predictorPanel_->setContext(currentProblem());
    } catch (const std::exception&) {
        // An invalid setup is reported by its own panel; the fit is checked again at Run.
    }
}

// ---- search ----

void MainWindow::runSearch()
{
    // A field holding a refused value never reaches the search (it would run
    // with the field's last valid value and show that as current).
    if (!setupPanel_->isValid()) {
        const QString why = setupPanel_->errorText();
        statusLabel_->setText(
            tr("Search refused: %1").arg(QString(why).replace(QLatin1Char('\n'), QStringLiteral("; "))));
        setupDock_->show();
        setupDock_->raise();
        setupPanel_->focusFirstInvalid();
        emit searchRefused(why);
        return;
    }
    SearchRequest req;
    try {
        req.problem = currentProblem();
        req.objective = objectivePanel_->objective();
    } catch (const std::exception& e) {
        statusLabel_->setText(tr("Cannot search: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    predictorPanel_->setContext(req.problem);
    const QString refusal = predictorPanel_->refusal();
    if (!refusal.isEmpty()) {
        statusLabel_->setText(tr("Search refused: %1").arg(refusal));
        predictorDock_->show();
        predictorDock_->raise();
        emit searchRefused(refusal);
        return;
    }
    req.predictor = predictorPanel_->predictor();
    searchPredictor_ = req.predictor;
    searchPredictorFile_ = req.predictor ? predictorPanel_->filePath() : QString();
    req.compareProfiles
        = {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst, WeightProfile::Custom};
    req.options.topK = 200;
    req.options.compareTopK = 20;  // the Plans table of each compared profile
    req.options.baselines = true;  // the Baselines tab (a few per cent of the count pass)
    if (jobs_->running(Job::WhatIf) > 0)
        controller_->detachStore();  // a what-if still reads the store: the search writes into a copy
    controller_->start(std::move(req));
}

void MainWindow::onSearchStarted()
{
    ++showGeneration_;  // a result still being shown step by step is superseded
    pareto_->clear();
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelButton_->setVisible(true);
    keepButton_->setVisible(true);
    runAct_->setEnabled(true);  // running again restarts
    cancelAct_->setEnabled(true);
    const QStringList warnings
        = predictorPanel_->choice() == PredictorPanel::Choice::Learned ? predictorPanel_->warnings() : QStringList();
    statusLabel_->setText(warnings.isEmpty() ? tr("Searching...")
                                             : tr("Searching with the learned predictor (extrapolating: %1)...")
                                                   .arg(warnings.join(QStringLiteral("; "))));
}

void MainWindow::onSearchProgress(const SearchProgress& p)
{
    progress_->setValue(p.permille);
    // An estimate under a second while the search still runs says nothing
    // true (the last phase's share is a guess): "finishing" instead of a
    // "0.0 s left" that can stand for seconds.
    const QString left = p.remainingS < 0 ? tr(", estimating time left…")
        : p.remainingS < 1                ? tr(", finishing…")
                           : tr(", about %1 s left").arg(p.remainingS, 0, 'f', p.remainingS < 10 ? 1 : 0);
    statusLabel_->setText(tr("Phase %1: explored %2, pruned %3, feasible %4%5")
                              .arg(p.phase)
                              .arg(CountText::compact(static_cast<std::uint64_t>(p.explored)),
                                   CountText::compact(static_cast<std::uint64_t>(p.pruned)),
                                   CountText::compact(static_cast<std::uint64_t>(p.feasible)), left));
    statusLabel_->setToolTip(
        tr("Explored %1, pruned %2, feasible %3 (exact; explored and pruned depend on how the "
           "threads shared the work)")
            .arg(CountText::exact(p.explored), CountText::exact(p.pruned), CountText::exact(p.feasible)));
    if (!p.liveFront.empty())
        pareto_->setLiveFront(p.liveFront);
}

// The sliders of the What-if Network panel moved: re-time the last search's
// kept plans on the scaled network, off the GUI thread, reading the search's
// prediction store (a search started meanwhile writes into a copy of it).
void MainWindow::runWhatIf()
{
    jobs_->drop(Job::WhatIf);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    if (controller_->isRunning()) {
        BandwidthWhatIf::Result busy;
        busy.error = tr("A search is running: move the slider again when it has finished.").toStdString();
        whatIf_->setOutcome(busy, controller_->lastResult().best.front());
        return;
    }
    SearchRequest request = controller_->lastRequest();
    request.options.stopEarly = {};
    const std::shared_ptr<const SearchResult> result = controller_->lastResultShared();
    BandwidthScenario scenario;
    scenario.name = "the sliders";
    scenario.segments.push_back({0, 1, whatIf_->scales()});
    whatIf_->setBusy();
    jobs_->start(
        Job::WhatIf,
        [request = std::move(request), result, scenario](const JobTracker::Ticket&) {
            BandwidthWhatIf::Options o;
            o.robust = BandwidthWhatIf::Robust::Worst;  // one scenario: its time
            o.topK = 8;
            o.replan = false;  // the kept plans only: fast enough to follow a slider
            // The same call as memx-cli's follow-ups (SearchReport).
            SearchFollowUps asked;
            asked.scenarios = {scenario};
            asked.whatIf = o;
            return SearchReport::of(request, *result, asked).whatIf.value_or(BandwidthWhatIf::Result{});
        },
        [this, result](const BandwidthWhatIf::Result& out) { whatIf_->setOutcome(out, result->best.front()); });
}

// "Re-plan without each node": one search per scenario (replanOffThread).
void MainWindow::runNodeLoss()
{
    jobs_->drop(Job::NodeLoss);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    const NodeLossWhatIf::Options options = nodeLoss_->options();
    nodeLoss_->setBusy();
    replanOffThread(
        *jobs_, Job::NodeLoss, *controller_,
        [options](const SearchRequest& r, const SearchResult& res, const JobTracker::Ticket& ticket) {
            // A stale job stops instead of searching on (its outcome is never shown).
            return NodeLossWhatIf::run(r, res, options, [cancel = ticket.cancel] { return cancel->load(); });
        },
        [this](const NodeLossWhatIf::Result& out) { nodeLoss_->setOutcome(out); });
}

void MainWindow::runNodeChoice()
{
    jobs_->drop(Job::NodeChoice);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    const NodeChoice::Options options = nodeChoice_->options();
    nodeChoice_->setBusy();
    replanOffThread(
        *jobs_, Job::NodeChoice, *controller_,
        [this, options](const SearchRequest& r, const SearchResult& res, const JobTracker::Ticket& ticket) {
            // Each choice is a whole search: say how far it got, and stop
            // when a later request makes the job stale.
            auto progress = [this, generation = ticket.generation](std::size_t done, std::size_t total) {
                QMetaObject::invokeMethod(
                    this,
                    [this, generation, done, total] {
                        if (jobs_->isCurrent(Job::NodeChoice, generation))
                            nodeChoice_->setProgress(done, total);
                    },
                    Qt::QueuedConnection);
            };
            return NodeChoice::run(r, res, options, progress, [cancel = ticket.cancel] { return cancel->load(); });
        },
        [this](const NodeChoice::Result& out) { nodeChoice_->setOutcome(out); });
}

void MainWindow::onSearchFinished()
{
    const SearchResult& r = controller_->lastResult();
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    keepButton_->setVisible(false);
    cancelAct_->setEnabled(false);
    tableRanking_ = nullptr;  // pointed into the previous result
    kneeRanking_ = KneeRanking::of(r, controller_->lastRequest().options.topK).plans;
    updateStaleness();  // current, unless the panels were edited while it ran
    resultTime_ = QDateTime::currentDateTime();
    resultHadUnsavedChanges_ = isDirty();
    pareto_->setResult(controller_->lastResultShared());
    compare_->setResult(r, &controller_->lastRequest().problem.cluster);
    baselines_->setResult(r, controller_->lastRequest().problem.cluster);
    jobs_->dropFollowUps();  // a re-ranking or map of the previous result is no longer wanted
    startSimplex();
    // Why-not answers are about the problem of this search, whatever it found
    // (a search without any plan is where they matter most).
    if (r.error.empty() || !r.invalidRequest) {
        const Plan* shape = r.best.empty() ? nullptr : &r.best.front();
        whyNot_->setProblem(controller_->lastRequest().problem, controller_->lastRequest().predictor,
                            shape ? shape->tp : 1, shape ? shape->pp : 1, shape ? shape->dp : 1);
    }
    if (r.best.empty()) {
        whatIf_->clear();
        nodeLoss_->clear();
        nodeChoice_->clear();
    } else {
        whatIf_->setCluster(controller_->lastRequest().problem.cluster);
        nodeLoss_->setReady();
        nodeChoice_->setReady();
    }
    if (r.profileRequested == WeightProfile::Auto)
        objectivePanel_->setAutoExplanation(
            tr("auto chose %1: %2").arg(qs(toString(r.profileUsed)), qs(r.profileReason)));
    else
        objectivePanel_->setAutoExplanation(QString());
    if (!r.best.empty())
        lastResultSummary_ = {{"best", PlanJson::plan(r.best.front())},
                              {"feasible", r.stats.feasible},
                              {"profile_used", toString(r.profileUsed)},
                              {"predictor", r.predictorName}};
    showFinishedLine(r);
    showNotices(r);
    updateExportActions();
    showResultSteps();
}

// Feasible plans are counted, not visited: the search composes only the ones
// its bounds cannot rule out.
void MainWindow::showFinishedLine(const SearchResult& r)
{
    if (!r.incomplete.empty())
        statusLabel_->setText(tr("Incomplete: the best plans found so far, not necessarily the best of the space (%1)")
                                  .arg(qs(r.incomplete)));
    else if (r.stats.feasible == std::numeric_limits<std::uint64_t>::max())  // saturated: no rate to tell
        statusLabel_->setText(tr("more than 1.8e19 feasible plans covered, %1 composed, in %2 s (%3 predictor)")
                                  .arg(CountText::compact(static_cast<std::uint64_t>(r.stats.explored)))
                                  .arg(r.stats.wallS, 0, 'f', 2)
                                  .arg(predictorLabel(controller_->lastRequest().predictor, r.predictorName)));
    else
        statusLabel_->setText(tr("%1 feasible plans covered, %2 composed, in %3 s (%4 predictor, %5 candidates/s)")
                                  .arg(CountText::compact(static_cast<std::uint64_t>(r.stats.feasible)),
                                       CountText::compact(static_cast<std::uint64_t>(r.stats.explored)))
                                  .arg(r.stats.wallS, 0, 'f', 2)
                                  .arg(predictorLabel(controller_->lastRequest().predictor, r.predictorName),
                                       CountText::compact(r.stats.candidatesPerS)));
    // The exact counts, and which of them a second run of the same search
    // reproduces: the feasible count is counted, the composed one depends on
    // the order the threads met the plans.
    statusLabel_->setToolTip(tr("%1 feasible plans (exact, the same on every run of this search); %2 composed while "
                                "exploring (varies with thread timing from run to run)")
                                 .arg(CountText::exact(r.stats.feasible), CountText::exact(r.stats.explored)));
}

void MainWindow::showNotices(const SearchResult& r)
{
    // A search stopped early (Stop, Keep Best, or its time limit) says so in
    // the strip above the views, not only in a status line that elides: its
    // plans are the best found, not necessarily the best there are.
    QStringList notices;
    if (!r.incomplete.empty())
        notices << tr("Incomplete search: these are the best plans found before it stopped (%1), not necessarily the "
                      "best of the space. Run the search again (F5) to search it to the end.")
                       .arg(qs(r.incomplete));
    if (!r.spaceCut.empty())
        notices << tr("Part of the space: %1. These are the best plans of the part searched. Narrow the search (TP, "
                      "micro-batch sizes, pipeline depth, or uniform meshes) to search all of it.")
                       .arg(qs(r.spaceCut));
    // Valid but likely not meant (a global batch that makes hours per iteration).
    if (!r.best.empty())
        for (const auto& n : PlanPlausibility::warnings(controller_->lastRequest().problem, r.best.front()))
            notices << qs(n);
    noticeBanner_->setNotices(notices);
}

void MainWindow::showResultSteps()
{
    // The plan table and the chosen plan's views follow on later turns of the
    // event loop, each after the previous one has been drawn, so that no turn
    // holds the GUI thread long: a 128-GPU result redraws a plot of thousands
    // of plans, 200 table rows and per-GPU bars (bench_gui_stall measures the
    // longest gap; docs/SCALING.md). A newer result or search drops the steps.
    const quint64 generation = ++showGeneration_;
    QTimer::singleShot(0, this, [this, generation] {
        if (generation != showGeneration_)
            return;
        const SearchResult& res = controller_->lastResult();
        // The requested profile's ranking, or the one the objective was
        // switched to while the search ran (when the search ranked it).
        const std::vector<Plan>* ranking = rankingFor(objectivePanel_->objective());
        tableRanking_ = ranking ? ranking : &res.best;
        planModel_->setPlans(*tableRanking_, res.varianceMode);
        planTable_->sortByColumn(0, Qt::AscendingOrder);
        planTable_->resizeColumnsToContents();
        QTimer::singleShot(0, this, [this, generation] {
            if (generation != showGeneration_)
                return;
            if (!shownFirstResult_) {
                shownFirstResult_ = true;
                tabs_->setCurrentWidget(pareto_);  // a new user sees the plan space first
            }
            if (tableRanking_ && !tableRanking_->empty())
                selectPlan(tableRanking_->front().key);
            announceWhenSettled(generation);
        });
    });
}

void MainWindow::onSearchFailed(const QString& reason)
{
    ++showGeneration_;
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    keepButton_->setVisible(false);
    cancelAct_->setEnabled(false);
    statusLabel_->setText(tr("No feasible plan: %1").arg(reason));
    pareto_->clear();
    bars_->clear();
    pipeline_->clear();
    simplex_->clear();
    baselines_->clear();
    jobs_->dropFollowUps();
    whatIf_->clear();
    nodeLoss_->clear();
    nodeChoice_->clear();
    planInfo_->clear();
    whyLabel_->setText(tr("Run a search (F5); the selected plan is explained here."));
    whyNot_->clear();
    tableRanking_ = nullptr;
    planModel_->setPlans({}, objectivePanel_->objective().variance);
    updateExportActions();
}

const SearchResult* MainWindow::result() const
{
    return controller_->hasResult() ? &controller_->lastResult() : nullptr;
}

const Plan* MainWindow::planByKey(quint64 key) const
{
    const SearchResult* r = result();
    if (!r || key == 0)
        return nullptr;
    for (const auto* list : {&r->best, &r->fastest, &r->plotSample})
        for (const auto& p : *list)
            if (p.key == key)
                return &p;
    for (const auto& pb : r->profilePicks) {
        if (pb.plan.key == key)
            return &pb.plan;
        for (const auto& p : pb.ranking)
            if (p.key == key)
                return &p;
    }
    for (const auto* front : {&r->paretoTimeVariance, &r->paretoTimeMemory})
        for (const auto& pt : front->points())
            if (pt.plan.key == key)
                return &pt.plan;
    return nullptr;
}

void MainWindow::selectPlan(quint64 key)
{
    const Plan* plan = planByKey(key);
    if (!plan)
        return;
    selectedKey_ = key;
    bars_->setPlan(*plan, document_->cluster());
    pipeline_->setPlan(*plan);
    simplex_->setSelectedPlan(key);
    startAblation(*plan);
    planInfo_->setText(planSummary());
    {
        QStringList html;
        // Under the profile whose ranking the table shows.
        const SearchResult& r = *result();
        WeightProfile kind = r.profileUsed;
        Weights weights = r.weights;
        for (const auto& pb : r.profilePicks)
            if (tableRanking_ == &pb.ranking) {
                kind = pb.kind;
                weights = pb.weights;
            }
        if (tableRanking_ == &kneeRanking_) {
            kind = WeightProfile::Balanced;
            weights = weightsOf(WeightProfile::Balanced);  // Phi under the default weights
        }
        for (const std::string& line : PlanExplanation::lines(r, *plan, kind, weights))
            html << QStringLiteral("<p>%1</p>").arg(qs(line).toHtmlEscaped());
        whyLabel_->setText(html.join(QString()));
    }
    pareto_->setSelectedPlan(key);
    int row = planModel_->rowOfKey(key);
    if (row >= 0) {
        QModelIndex idx = planProxy_->mapFromSource(planModel_->index(row, 0));
        if (idx.isValid() && planTable_->currentIndex().row() != idx.row())
            planTable_->setCurrentIndex(idx);
    }
}

QString MainWindow::planSummary() const
{
    const Plan* plan = planByKey(selectedKey_);
    if (!plan)
        return {};
    const double u = std::max(0.0, plan->uncertainty);
    const int pct = qRound(100 * u);
    const QString source = qs(toString(plan->provenance));
    const double gib = plan->maxMemMiB / 1024.0;
    // Seconds, as every other view states iteration times.
    const double s = plan->iterationMs / 1000.0;
    if (u <= 0)
        return tr("%1: %2 s, peak %3 GiB (no uncertainty given)").arg(source).arg(s, 0, 'f', 2).arg(gib, 0, 'f', 1);
    return tr("%1, ±%2%: %3 ± %4 s, peak %5 ± %6 GiB")
        .arg(source)
        .arg(pct)
        .arg(s, 0, 'f', 2)
        .arg(s * u, 0, 'f', 2)
        .arg(gib, 0, 'f', 1)
        .arg(gib * u, 0, 'f', 1);
}

// What per-stage recomputation buys over one level on every stage (three plan
// evaluations): a job, so that a learned predictor never holds the GUI thread.
void MainWindow::startAblation(const Plan& plan)
{
    pipeline_->setAblation({});
    const SearchRequest& req = controller_->lastRequest();
    const VarianceMode variance = result()->varianceMode;
    jobs_->start(
        Job::Ablation,
        [problem = req.problem, predictor = req.predictor, plan, variance](const JobTracker::Ticket&) {
            return RecomputeAblation::line(plan, RecomputeAblation::uniform(problem, plan, predictor, variance),
                                           variance);
        },
        [this](const std::string& line) { pipeline_->setAblation(qs(line).trimmed().split(QLatin1Char('\n'))); });
}

// The weight simplex of the result just shown: which kept plan wins at each
// weighting (231 rankings of the kept candidates).
void MainWindow::startSimplex()
{
    simplex_->setBusy();
    const std::shared_ptr<const SearchResult> r = controller_->lastResultShared();
    jobs_->start(
        Job::Simplex, [r](const JobTracker::Ticket&) { return SimplexMapView::mapOf(*r); },
        [this, r](SimplexMapView::Mapped mapped) {
            simplex_->setMapped(*r, std::move(mapped), &controller_->lastRequest().problem.cluster);
        });
}

// resultShown() once the result's own jobs (the simplex, the best plan's
// ablation) have shown theirs; never for a result superseded meanwhile.
void MainWindow::announceWhenSettled(quint64 generation)
{
    const auto settled = [this] { return !jobs_->isRunning(Job::Simplex) && !jobs_->isRunning(Job::Ablation); };
    if (settled()) {
        emit resultShown();
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(jobs_, &JobTracker::jobFinished, this, [this, connection, generation, settled] {
        if (generation != showGeneration_) {
            disconnect(*connection);
            return;
        }
        if (!settled())
            return;
        disconnect(*connection);
        emit resultShown();
    });
}

}  // namespace memx
