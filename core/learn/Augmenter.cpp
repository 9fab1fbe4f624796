// Over 600 lines: interpolation augmentation (MemX section 3.2.2): sweeps, gap candidates, the R^2 gate per
// target and the round-robin that keeps every gap represented, with its table.
#include "learn/Augmenter.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace memx {

namespace {

using Axis = Augmenter::Axis;
using Metric = Augmenter::Metric;
using Trend = TrendClassifier::Trend;

bool applies(Axis a, const Measurement& m)
{
    if (a == Axis::StageLayers)
        return m.isStageRow();
    if (a == Axis::NumLayers)
        return !m.isStageRow();
    return true;
}

std::optional<double>& target(Measurement& m, Metric t)
{
    switch (t) {
    case Metric::IterationTimeMs: return m.iterationTimeMs;
    case Metric::StageTimeMs: return m.stageTimeMs;
    case Metric::PeakMemMiB: break;
    }
    return m.peakMemMiB;
}

const std::optional<double>& target(const Measurement& m, Metric t) { return target(const_cast<Measurement&>(m), t); }

// The configuration of a row: every field but run_id and the targets (the
// cluster included).
// num_gpus is left out: on a run row it is tp * pp * dp, on a stage row it
// describes the surrounding run, not the stage. `blank` removes the sweep axis.
using ConfigKey = std::pair<std::string, std::vector<int>>;

ConfigKey configKey(const Measurement& m, std::optional<Axis> blank)
{
    Measurement c = m;
    if (blank)
        Augmenter::setAxis(*blank, c, 0);
    // Runs of another cluster (docs/MEASUREMENTS.md) never share a sweep.
    return {c.cluster.empty() ? c.gpuType : c.gpuType + "@" + c.cluster,
            {static_cast<int>(c.source), c.stage.value_or(-1), c.stageLayers.value_or(-1), c.tp, c.pp, c.dp, c.vp,
             c.mbs, c.gbs, c.seqLen, c.numLayers, c.hidden, c.ffnHidden, c.heads, c.queryGroups, c.vocab,
             static_cast<int>(c.recompute), static_cast<int>(c.mlp), c.tiedEmbeddings ? 1 : 0, c.flashAttention ? 1 : 0,
             static_cast<int>(c.style.code()), static_cast<int>(std::lround(c.attentionDropout * 1e6)),
             static_cast<int>(std::lround(c.hiddenDropout * 1e6)),
             // As MeasuredRun::configurationKey: only TP > 1 and DP > 1 tell them apart.
             c.sequenceParallel && c.tp > 1 ? 1 : 0, c.distributedOptimizer && c.dp > 1 ? 1 : 0,
             c.overlapGradReduce && c.dp > 1 ? 1 : 0, c.overlapParamGather && c.dp > 1 ? 1 : 0}};
}

// The configuration whatever the source: a generated row never repeats one
// already present, measured, simulated or interpolated.
ConfigKey sameConfig(const Measurement& m)
{
    Measurement c = m;
    c.source = MeasurementSource::Measured;
    return configKey(c, std::nullopt);
}

bool powerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

// How much a class restricts the positions of generated rows.
int restrictiveness(Trend t)
{
    switch (t) {
    case Trend::Constant: return 0;
    case Trend::StrongLinear: return 1;
    case Trend::ApproxLinear: return 2;
    case Trend::Superlinear: return 3;
    case Trend::Nonlinear: return 4;
    }
    return 4;
}

// Raw (unrounded) positions inside (x0, x1) where `t` allows a row.
std::vector<double> positions(Trend t, double x0, double x1, int perGap)
{
    std::vector<double> out;
    switch (t) {
    case Trend::StrongLinear:
        for (int k = 1; k <= perGap; ++k)
            out.push_back(x0 + (x1 - x0) * k / (perGap + 1));
        break;
    case Trend::ApproxLinear: out.push_back(0.5 * (x0 + x1)); break;
    case Trend::Superlinear: out.push_back(std::sqrt(x0 * x1)); break;
    case Trend::Nonlinear:
    case Trend::Constant: break;
    }
    return out;
}

// The value of a metric at x between measured neighbours: log-space (power
// law through both points) for a Superlinear metric, linear otherwise.
double valueAt(Trend t, double x, double x0, double y0, double x1, double y1)
{
    if (t == Trend::Superlinear && x0 > 0 && y0 > 0 && y1 > 0) {
        const double p = std::log(y1 / y0) / std::log(x1 / x0);
        return y0 * std::pow(x / x0, p);
    }
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

// The new row at x with `lo` as template, or nothing when x is not a valid
// value of the axis (the rules MeasurementCsv enforces, powers of two for tp
// and query_groups, gbs a multiple of mbs * dp).
std::optional<Measurement> makeRow(Axis a, const Measurement& lo, int x)
{
    // The configuration of the neighbour, field by field: its targets and
    // annotations (which predictor answered, how sure, what it cost) do not
    // describe the new row.
    Measurement r;
    r.runId = lo.runId;
    r.gpuType = lo.gpuType;
    r.numGpus = lo.numGpus;
    r.tp = lo.tp;
    r.pp = lo.pp;
    r.dp = lo.dp;
    r.vp = lo.vp;
    r.mbs = lo.mbs;
    r.gbs = lo.gbs;
    r.seqLen = lo.seqLen;
    r.numLayers = lo.numLayers;
    r.hidden = lo.hidden;
    r.ffnHidden = lo.ffnHidden;
    r.mlp = lo.mlp;
    r.tiedEmbeddings = lo.tiedEmbeddings;
    r.style = lo.style;
    r.flashAttention = lo.flashAttention;
    r.attentionDropout = lo.attentionDropout;
    r.hiddenDropout = lo.hiddenDropout;
    r.sequenceParallel = lo.sequenceParallel;
    r.distributedOptimizer = lo.distributedOptimizer;
    r.overlapGradReduce = lo.overlapGradReduce;
    r.overlapParamGather = lo.overlapParamGather;
    r.heads = lo.heads;
    r.queryGroups = lo.queryGroups;
    r.vocab = lo.vocab;
    r.recompute = lo.recompute;
    r.stage = lo.stage;
    r.stageLayers = lo.stageLayers;
    r.cluster = lo.cluster;  // measured there: placed there
    r.precision = lo.precision;  // trained in it
    r.fp32Matmul = lo.fp32Matmul;
    r.peakMemKind = lo.peakMemKind;  // what its memory counts
    switch (a) {
    case Axis::Mbs:
        if (x < 1 || lo.gbs % (x * lo.dp) != 0)
            return std::nullopt;
        break;
    case Axis::MbsPerMicroBatches:  // setAxis keeps gbs / (mbs * dp)
        if (x < 1)
            return std::nullopt;
        break;
    case Axis::SeqLen:
    case Axis::NumLayers:
        if (x < 1)
            return std::nullopt;
        break;
    case Axis::StageLayers:
        if (x < 1 || x > lo.numLayers)
            return std::nullopt;
        break;
    case Axis::Tp:
        // Megatron-LM: tp divides heads; tp and query_groups divide one another.
        if (!powerOfTwo(x) || lo.heads % x != 0 || (lo.queryGroups % x != 0 && x % lo.queryGroups != 0))
            return std::nullopt;
        // Run row: num_gpus = tp * pp * dp. Stage row: this stage's tp * dp
        // GPUs change, the other stages stay.
        r.numGpus = lo.isStageRow() ? lo.numGpus + (x - lo.tp) * lo.dp : x * lo.pp * lo.dp;
        if (r.numGpus < 1)
            return std::nullopt;
        break;
    case Axis::QueryGroups:
        if (!powerOfTwo(x) || lo.heads % x != 0 || (x % lo.tp != 0 && lo.tp % x != 0))
            return std::nullopt;
        break;
    }
    Augmenter::setAxis(a, r, x);
    r.source = MeasurementSource::Interpolated;
    return r;
}

struct Group {
    Axis axis;
    std::vector<std::size_t> rows;  // input indices, input order
};

struct Candidate {
    Measurement row;
    ConfigKey key;
    std::string baseId;
};

// Run ids taken so far, with what MeasurementCsv::parse checks across the rows of one run.
class IdRegistry {
public:
    void reserve(const std::string& id) { runs_[id].input = true; }

    // base, or base~2, base~3, ... : the first id the row can join.
    std::string assign(const std::string& base, const Measurement& m)
    {
        for (int n = 1;; ++n) {
            std::string id = n == 1 ? base : base + "~" + std::to_string(n);
            auto it = runs_.find(id);
            if (it == runs_.end()) {
                Run& run = runs_[id];
                run.first = m;
                add(run, m);
                return id;
            }
            Run& run = it->second;
            if (!run.input && fits(run, m)) {
                add(run, m);
                return id;
            }
        }
    }

private:
    struct Run {
        bool input = false;
        Measurement first;
        std::set<int> stages;  // -1: the run row
        int stagesSeen = 0;
        int layerSum = 0;
    };

    static auto runFields(const Measurement& m)
    {
        return std::tie(m.source, m.numGpus, m.pp, m.dp, m.vp, m.mbs, m.gbs, m.seqLen, m.numLayers, m.hidden,
                        m.ffnHidden, m.mlp, m.tiedEmbeddings, m.style, m.flashAttention, m.attentionDropout,
                        m.hiddenDropout, m.sequenceParallel, m.distributedOptimizer, m.overlapGradReduce,
                        m.overlapParamGather, m.heads, m.queryGroups, m.vocab, m.cluster);
    }

    static bool fits(const Run& run, const Measurement& m)
    {
        if (runFields(run.first) != runFields(m) || run.stages.count(m.stage.value_or(-1)))
            return false;
        if (!m.stage)
            return true;
        const int sum = run.layerSum + *m.stageLayers;
        const int seen = run.stagesSeen + 1;
        return sum <= m.numLayers && !(seen == m.pp && sum != m.numLayers);
    }

    static void add(Run& run, const Measurement& m)
    {
        run.stages.insert(m.stage.value_or(-1));
        if (m.stage) {
            ++run.stagesSeen;
            run.layerSum += *m.stageLayers;
        }
    }

    std::map<std::string, Run> runs_;
};

}  // namespace

namespace {

// One group of rows as a sweep: its distinct x values, the fit of each
// target present on every row and the rows interpolation would add between
// measured neighbours (`mine`); false when it has too few points or no
// target on every row.
// The fit of each target present on every row of the sweep (values at one
// x averaged over repeats, into `ys`) and the sweep's most restrictive
// trend; false when no target is on every row.
bool fitTargets(const Group& g, const std::vector<Measurement>& rows,
                const std::map<int, std::vector<std::size_t>>& byX, Augmenter::Sweep& s,
                std::vector<std::vector<double>>& ys)
{
    using Metric = Augmenter::Metric;
    using MetricFit = Augmenter::MetricFit;
    for (Metric t : Augmenter::kMetrics) {
        const bool everywhere
            = std::all_of(g.rows.begin(), g.rows.end(), [&](std::size_t i) { return target(rows[i], t).has_value(); });
        if (!everywhere)
            continue;
        std::vector<double> y;
        y.reserve(byX.size());
        for (const auto& [x, is] : byX) {
            double sum = 0;
            for (std::size_t i : is)
                sum += *target(rows[i], t);
            y.push_back(sum / is.size());
        }
        s.fits.push_back({t, TrendClassifier::classify(s.xs, y)});
        ys.push_back(std::move(y));
    }
    if (s.fits.empty())
        return false;
    s.trend = s.fits.front().fit.trend;
    for (const MetricFit& f : s.fits)
        if (restrictiveness(f.fit.trend) > restrictiveness(s.trend))
            s.trend = f.fit.trend;
    return true;
}

// The rows interpolation adds between the sweep's measured neighbours k and
// k + 1, unless a neighbour carries a target the sweep does not fit.
void gapCandidates(const Group& g, const std::vector<Measurement>& rows, const Augmenter::Sweep& s,
                   const std::vector<std::vector<double>>& ys, const std::vector<std::vector<std::size_t>>& at,
                   std::size_t k, Augmenter::Trend placement, int perGap, std::vector<Candidate>& mine)
{
    using Metric = Augmenter::Metric;
    using MetricFit = Augmenter::MetricFit;
    const double x0 = s.xs[k], x1 = s.xs[k + 1];
    // A generated row carries exactly the fitted targets; skip an
    // interval whose neighbours carry another one.
    bool extra = false;
    for (std::size_t side : {k, k + 1})
        for (std::size_t i : at[side])
            for (Metric t : Augmenter::kMetrics) {
                const bool fitted
                    = std::any_of(s.fits.begin(), s.fits.end(), [&](const MetricFit& f) { return f.metric == t; });
                extra = extra || (!fitted && target(rows[i], t).has_value());
            }
    if (extra)
        return;
    const Measurement& lo = rows[at[k].front()];
    std::set<int> done;
    for (double p : positions(placement, x0, x1, perGap)) {
        const long long xr = std::llround(p);
        if (xr <= x0 || xr >= x1 || !done.insert(static_cast<int>(xr)).second)
            continue;
        std::optional<Measurement> r = makeRow(g.axis, lo, static_cast<int>(xr));
        if (!r)
            continue;
        for (std::size_t m = 0; m < s.fits.size(); ++m)
            target(*r, s.fits[m].metric) = valueAt(s.fits[m].fit.trend, double(xr), x0, ys[m][k], x1, ys[m][k + 1]);
        for (std::size_t side : {k, k + 1})
            for (std::size_t i : at[side])
                r->derivedFrom.runIds.push_back(rows[i].runId);
        std::string base = lo.runId + "~" + Augmenter::toString(g.axis) + "=" + std::to_string(xr);
        // A stage-only change (its tp or layers) is not the same
        // interpolated run as the other stages' rows.
        if (lo.isStageRow() && (g.axis == Axis::Tp || g.axis == Axis::StageLayers))
            base += "~stage=" + std::to_string(*lo.stage);
        ConfigKey key = sameConfig(*r);
        mine.push_back({std::move(*r), std::move(key), std::move(base)});
    }
}

bool sweepOf(const Group& g, const std::vector<Measurement>& rows, const AugmentOptions& options, Augmenter::Sweep& s,
             std::vector<Candidate>& mine)
{
    // Distinct x ascending, each with the input rows at it (input order).
    std::map<int, std::vector<std::size_t>> byX;
    for (std::size_t i : g.rows)
        byX[Augmenter::axisValue(g.axis, rows[i])].push_back(i);
    if (static_cast<int>(byX.size()) < options.minPoints)
        return false;
    const Measurement& head = rows[g.rows.front()];
    s.axis = g.axis;
    s.stageRows = head.isStageRow();
    s.stage = head.stage.value_or(-1);
    s.pp = head.pp;
    s.firstRunId = head.runId;
    s.rows = static_cast<int>(g.rows.size());
    s.xs.reserve(byX.size());
    for (const auto& [x, is] : byX)
        s.xs.push_back(x);

    std::vector<std::vector<double>> ys;
    if (!fitTargets(g, rows, byX, s, ys))
        return false;
    Augmenter::Trend placement = s.trend;
    if (placement == Augmenter::Trend::Constant)
        placement = options.interpolateConstant ? Augmenter::Trend::StrongLinear : Augmenter::Trend::Nonlinear;
    std::vector<std::vector<std::size_t>> at;
    at.reserve(byX.size());
    for (const auto& [x, is] : byX)
        at.push_back(is);
    for (std::size_t k = 0; k + 1 < s.xs.size(); ++k)
        gapCandidates(g, rows, s, ys, at, k, placement, options.perGap, mine);
    return true;
}

// Emits round-robin over the sweeps up to the cap, so that every sweep gets
// its share; a configuration already present (input or generated) is
// skipped. The chosen rows get unique run ids and go into result.rows.
void emitRoundRobin(const std::vector<Measurement>& rows, std::vector<std::vector<Candidate>>& candidates,
                    Augmenter::Result& result)
{
    std::set<ConfigKey> seen;
    for (const Measurement& m : rows)
        seen.insert(sameConfig(m));
    std::vector<std::vector<bool>> chosen(candidates.size());
    for (std::size_t s = 0; s < candidates.size(); ++s)
        chosen[s].assign(candidates[s].size(), false);
    std::vector<std::size_t> next(candidates.size(), 0);
    int emitted = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (std::size_t s = 0; s < candidates.size(); ++s) {
            while (next[s] < candidates[s].size() && seen.count(candidates[s][next[s]].key))
                ++next[s];
            if (next[s] == candidates[s].size())
                continue;
            if (emitted >= result.cap) {
                ++result.capped;
                seen.insert(candidates[s][next[s]++].key);
                progress = true;
                continue;
            }
            seen.insert(candidates[s][next[s]].key);
            chosen[s][next[s]++] = true;
            ++emitted;
            progress = true;
        }
    }

    IdRegistry ids;
    for (const Measurement& m : rows)
        ids.reserve(m.runId);
    for (std::size_t s = 0; s < candidates.size(); ++s)
        for (std::size_t c = 0; c < candidates[s].size(); ++c) {
            if (!chosen[s][c])
                continue;
            Measurement r = std::move(candidates[s][c].row);
            r.runId = ids.assign(candidates[s][c].baseId, r);
            result.rows.push_back(std::move(r));
            ++result.sweeps[s].generated;
        }
}

// 4. The Table 2 summary per (axis, metric).
std::vector<Augmenter::TableEntry> tableOf(const std::vector<Augmenter::Sweep>& sweeps)
{
    using Trend = Augmenter::Trend;
    std::vector<Augmenter::TableEntry> table;
    for (Augmenter::Axis axis : Augmenter::kAxes)
        for (Augmenter::Metric t : Augmenter::kMetrics) {
            Augmenter::TableEntry e;
            e.axis = axis;
            e.metric = t;
            double r2 = 0;
            for (const Augmenter::Sweep& s : sweeps) {
                if (s.axis != axis)
                    continue;
                for (const Augmenter::MetricFit& f : s.fits) {
                    if (f.metric != t)
                        continue;
                    ++e.sweeps;
                    ++e.byTrend[static_cast<int>(f.fit.trend)];
                    r2 += f.fit.r2;
                    e.rowsGenerated += s.generated;
                }
            }
            if (e.sweeps == 0)
                continue;
            e.meanR2 = r2 / e.sweeps;
            int best = -1;
            for (int c = 0; c < 5; ++c) {
                const Trend tc = static_cast<Trend>(c);
                if (e.byTrend[c] == 0)
                    continue;
                if (best < 0 || e.byTrend[c] > e.byTrend[best]
                    || (e.byTrend[c] == e.byTrend[best]
                        && restrictiveness(tc) > restrictiveness(static_cast<Trend>(best))))
                    best = c;
            }
            e.representative = static_cast<Trend>(best);
            table.push_back(e);
        }
    return table;
}

}  // namespace

Augmenter::Result Augmenter::augment(const std::vector<Measurement>& rows, const Options& options)
{
    if (options.minPoints < 3)
        throw std::invalid_argument("minPoints must be at least 3, got " + std::to_string(options.minPoints));
    if (options.perGap < 1)
        throw std::invalid_argument("perGap must be at least 1, got " + std::to_string(options.perGap));
    if (!(options.maxRatio >= 0))
        throw std::invalid_argument("maxRatio must be >= 0");

    Result result;
    result.perGap = options.perGap;
    std::vector<std::size_t> used;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].source != MeasurementSource::Interpolated)
            used.push_back(i);
    result.inputRows = static_cast<int>(used.size());
    const double capD = std::floor(options.maxRatio * result.inputRows);
    result.cap = capD >= static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int>(capD);

    // 1. Sweeps: per axis, rows equal in every configuration field but the axis.
    std::vector<Group> groups;
    for (Axis axis : kAxes) {
        std::map<ConfigKey, std::size_t> index;
        for (std::size_t i : used) {
            if (!applies(axis, rows[i]))
                continue;
            auto [it, fresh] = index.try_emplace(configKey(rows[i], axis), groups.size());
            if (fresh)
                groups.push_back({axis, {}});
            groups[it->second].rows.push_back(i);
        }
    }

    // 2 and 3: classify each sweep, collect its candidate rows.
    std::vector<std::vector<Candidate>> candidates;
    for (const Group& g : groups) {
        Sweep s;
        std::vector<Candidate> mine;
        if (!sweepOf(g, rows, options, s, mine))
            continue;
        s.candidates = static_cast<int>(mine.size());
        result.sweeps.push_back(std::move(s));
        candidates.push_back(std::move(mine));
    }

    emitRoundRobin(rows, candidates, result);
    result.table = tableOf(result.sweeps);
    return result;
}

std::string Augmenter::formatTable(const Result& result)
{
    static const Trend kOrder[]
        = {Trend::StrongLinear, Trend::ApproxLinear, Trend::Superlinear, Trend::Nonlinear, Trend::Constant};
    static const char* const kShort[] = {"S", "A", "Sup", "N", "C"};  // in kOrder
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "%-13s %-18s %6s %7s  %-21s %-22s %-24s %s\n", "parameter", "metric", "sweeps",
                  "R^2", "class", "sweeps per class", "interpolation rule", "rows generated");
    out += line;
    for (const TableEntry& e : result.table) {
        std::string per;
        for (int k = 0; k < 5; ++k) {
            const int n = e.byTrend[static_cast<int>(kOrder[k])];
            if (n == 0)
                continue;
            per += (per.empty() ? "" : " ") + std::string(kShort[k]) + ":" + std::to_string(n);
        }
        std::snprintf(line, sizeof line, "%-13s %-18s %6d %7.3f  %-21s %-22s %-24s %d\n", toString(e.axis),
                      toString(e.metric), e.sweeps, e.meanR2, TrendClassifier::toString(e.representative), per.c_str(),
                      rule(e.representative, result.perGap).c_str(), e.rowsGenerated);
        out += line;
    }
    std::snprintf(line, sizeof line, "%d measured rows, %zu interpolated rows (%.1fx)", result.inputRows,
                  result.rows.size(), result.inputRows ? double(result.rows.size()) / result.inputRows : 0.0);
    out += line;
    if (result.capped > 0)
        out += "; " + std::to_string(result.capped) + " more left out by the cap of " + std::to_string(result.cap);
    out += "\nclasses: S strong linear, A approximately linear, Sup superlinear, N nonlinear, C constant; the rows "
           "of a sweep go where its most restrictive metric allows\n";
    return out;
}

const char* Augmenter::toString(Axis a)
{
    switch (a) {
    case Axis::Mbs: return "mbs";
    case Axis::SeqLen: return "seq_len";
    case Axis::StageLayers: return "stage_layers";
    case Axis::NumLayers: return "num_layers";
    case Axis::Tp: return "tp";
    case Axis::QueryGroups: return "query_groups";
    case Axis::MbsPerMicroBatches: return "mbs (G fixed)";
    }
    return "?";
}

const char* Augmenter::toString(Metric m)
{
    switch (m) {
    case Metric::IterationTimeMs: return "iteration_time_ms";
    case Metric::StageTimeMs: return "stage_time_ms";
    case Metric::PeakMemMiB: return "peak_mem_mib";
    }
    return "?";
}

std::string Augmenter::rule(Trend t, int perGap)
{
    switch (t) {
    case Trend::StrongLinear: return "linear, " + std::to_string(perGap) + " per gap";
    case Trend::ApproxLinear: return "linear, midpoints";
    case Trend::Superlinear: return "log-space midpoint";
    case Trend::Nonlinear: return "none";
    case Trend::Constant: return "fixed default";
    }
    return "?";
}

int Augmenter::axisValue(Axis a, const Measurement& m)
{
    switch (a) {
    case Axis::Mbs: return m.mbs;
    case Axis::SeqLen: return m.seqLen;
    case Axis::StageLayers: return m.stageLayers.value_or(0);
    case Axis::NumLayers: return m.numLayers;
    case Axis::Tp: return m.tp;
    case Axis::QueryGroups: return m.queryGroups;
    case Axis::MbsPerMicroBatches: return m.mbs;
    }
    return 0;
}

void Augmenter::setAxis(Axis a, Measurement& m, int v)
{
    switch (a) {
    case Axis::Mbs: m.mbs = v; break;
    case Axis::SeqLen: m.seqLen = v; break;
    case Axis::StageLayers: m.stageLayers = v; break;
    case Axis::NumLayers: m.numLayers = v; break;
    case Axis::Tp: m.tp = v; break;
    case Axis::QueryGroups: m.queryGroups = v; break;
    case Axis::MbsPerMicroBatches: {
        // Keep G = gbs / (mbs * dp); blanking (v = 0) leaves -G in gbs, so
        // that rows of one G share a configuration key and no real gbs
        // collides with it.
        const int G = m.mbs > 0 && m.dp > 0 ? m.gbs / (m.mbs * m.dp) : 0;
        m.mbs = v;
        m.gbs = v > 0 ? G * v * m.dp : -G;
        break;
    }
    }
}

}  // namespace memx
