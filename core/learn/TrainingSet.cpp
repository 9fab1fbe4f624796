#include "learn/TrainingSet.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "measure/RunPlacement.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace memx {

TrainingSet TrainingSet::build(const std::vector<Measurement>& measurements, const std::string& file,
                               const GpuCatalog& catalog, RunPlacement* placement,
                               std::shared_ptr<const AnalyticPredictor> prior)
{
    TrainingSet set;
    set.file = file;
    set.prior = prior;
    RunPlacement synthetic;
    RunPlacement& place = placement ? *placement : synthetic;
    std::vector<MeasuredRun> all = MeasuredRun::group(measurements, file, &set.skipped);
    for (MeasuredRun& run : all) {
        std::optional<RunPrediction> predicted = place.predict(run, file, catalog, prior, set.skipped);
        if (!predicted)
            continue;
        std::vector<std::string> types;
        for (const MeasuredStage& s : run.stages)
            types.push_back(s.gpuType);
        set.topology.add(place.clusterOf(run, file).get(), types);
        RunPrediction pred = std::move(*predicted);
        const int runIndex = static_cast<int>(set.runs.size());
        const Plan& plan = pred.plan;
        const int P = static_cast<int>(plan.stages.size());
        const int G = std::max(1, plan.microBatchCount);

        // Time factor from the iteration time, for stages without their own time.
        const double runFactor
            = run.iterationTimeMs && plan.iterationMs > 0 ? *run.iterationTimeMs / plan.iterationMs : 0;
        int peakStage = 0;
        for (int i = 1; i < P; ++i)
            if (plan.stages[i].memory.totalMiB() > plan.stages[peakStage].memory.totalMiB())
                peakStage = i;

        for (int i = 0; i < P; ++i) {
            const MeasuredStage& ms = run.stages[i];
            const StagePlan& sp = plan.stages[i];
            TrainingRow row;
            row.query = pred.queries[i];
            row.analytic.timeMs = sp.timeMs;
            row.analytic.memory = sp.memory;
            row.run = runIndex;
            if (ms.stageTimeMs && sp.timeMs > 0) {
                row.timeLabel = std::log(*ms.stageTimeMs / G / sp.timeMs);
                row.hasTime = true;
            } else if (runFactor > 0) {
                row.timeLabel = std::log(runFactor);
                row.hasTime = true;
            }
            // The label compares like with like (allocated, reserved or device).
            const double am = sp.memory.ofKind(run.config.peakMemKind);
            if (ms.peakMemMiB && am > 0) {
                row.memoryLabel = std::log(*ms.peakMemMiB / am);
                row.hasMemory = true;
            } else if (run.runPeakMemMiB && i == peakStage && am > 0) {
                row.memoryLabel = std::log(*run.runPeakMemMiB / am);
                row.hasMemory = true;
            }
            if (row.hasTime || row.hasMemory)
                set.rows.push_back(row);
        }
        set.runs.push_back(std::move(run));
        set.analytic.push_back(std::move(pred));
    }
    return set;
}

std::vector<std::size_t> TrainingSet::rowsOfRuns(const std::vector<int>& runSubset) const
{
    std::vector<std::size_t> out;
    const std::set<int> wanted(runSubset.begin(), runSubset.end());
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (runSubset.empty() || wanted.count(rows[r].run))
            out.push_back(r);
    return out;
}

void TrainingSet::targets(const std::vector<std::size_t>& rowSubset, std::vector<StageQuery>& queries,
                          std::vector<double>& timeMs, std::vector<double>& memoryMiB) const
{
    double sumT = 0, sumM = 0;
    int nT = 0, nM = 0;
    for (std::size_t r : rowSubset) {
        if (rows[r].hasTime) {
            sumT += rows[r].timeLabel;
            ++nT;
        }
        if (rows[r].hasMemory) {
            sumM += rows[r].memoryLabel;
            ++nM;
        }
    }
    const double meanT = nT ? sumT / nT : 0, meanM = nM ? sumM / nM : 0;
    queries.clear();
    timeMs.clear();
    memoryMiB.clear();
    for (std::size_t r : rowSubset) {
        const TrainingRow& row = rows[r];
        queries.push_back(row.query);
        timeMs.push_back(row.analytic.timeMs * std::exp(row.hasTime ? row.timeLabel : meanT));
        memoryMiB.push_back(row.analytic.memoryMiB() * std::exp(row.hasMemory ? row.memoryLabel : meanM));
    }
}

std::size_t TrainingSet::timeLabels() const
{
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const TrainingRow& r) { return r.hasTime; }));
}

std::size_t TrainingSet::memoryLabels() const
{
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const TrainingRow& r) { return r.hasMemory; }));
}

}  // namespace memx

namespace memx {

PredictorMetadata TrainingSet::metadata() const
{
    PredictorMetadata m;
    std::set<std::string> types;
    std::set<int> mbs, seqs, gbs, tps;
    int lo = 0, hi = 0;
    for (const MeasuredRun& run : runs) {
        const Measurement& c = run.config;
        const PredictorMetadata::ModelShape shape{c.hidden, c.heads, c.ffnHidden, c.vocab, c.mlp, c.style};
        if (std::find(m.models.begin(), m.models.end(), shape) == m.models.end())
            m.models.push_back(shape);
        mbs.insert(c.mbs);
        seqs.insert(c.seqLen);
        gbs.insert(c.gbs);
        tps.insert(c.tp);
        if (c.source == MeasurementSource::Interpolated)
            ++m.interpolatedRows;
        for (const MeasuredStage& s : run.stages) {
            types.insert(s.gpuType);
            lo = lo == 0 ? s.layers : std::min(lo, s.layers);
            hi = std::max(hi, s.layers);
        }
    }
    m.gpuTypes.assign(types.begin(), types.end());
    m.microBatchSizes.assign(mbs.begin(), mbs.end());
    m.seqLens.assign(seqs.begin(), seqs.end());
    m.globalBatches.assign(gbs.begin(), gbs.end());
    m.tensorParallel.assign(tps.begin(), tps.end());
    m.minStageLayers = lo;
    m.maxStageLayers = hi;
    m.runs = runs.size();
    m.rows = rows.size();
    m.timeLabels = timeLabels();
    m.memoryLabels = memoryLabels();
    m.topology = topology;
    return m;
}

}  // namespace memx
