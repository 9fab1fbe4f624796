#include "predict/PredictorFile.h"

#include "predict/BoosterCheck.h"

#include "io/Text.h"

#include "hardware/Cluster.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"
#include "model/ModelSpec.h"
#include "predict/StageFeatures.h"
#include "space/Problem.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <limits>
#include <cstdio>
#include <set>

namespace memx {

namespace {

nlohmann::json floats(const std::vector<float>& v)
{
    nlohmann::json a = nlohmann::json::array();
    for (float x : v) {
        if (std::isnan(x))
            a.push_back(nullptr);
        else
            a.push_back(x);
    }
    return a;
}

std::vector<float> readFloats(const JsonReader& r, const std::string& key, std::size_t n)
{
    const JsonReader a = r.at(key);
    if (!a.node().is_array() || a.node().size() != n)
        a.fail("expected an array of " + std::to_string(n) + " numbers (one per feature)");
    std::vector<float> out;
    for (const JsonReader& x : a.items()) {
        if (x.node().is_null()) {
            out.push_back(std::numeric_limits<float>::quiet_NaN());
            continue;
        }
        const double v = x.asNumber();
        if (std::fabs(v) > std::numeric_limits<float>::max())
            x.fail("expected a number that fits in a float, or null");
        out.push_back(static_cast<float>(v));
    }
    return out;
}

std::vector<int> readInts(const JsonReader& r, const std::string& key)
{
    std::vector<int> out;
    if (!r.has(key))
        return out;
    for (const JsonReader& x : r.at(key).items()) {
        const long long v = x.asInteger();  // range-checked before narrowing
        if (v < 0 || v > INT_MAX)
            x.fail("must be between 0 and " + std::to_string(INT_MAX));
        out.push_back(static_cast<int>(v));
    }
    return out;
}

bool inRange(int v, const std::vector<int>& seen) { return seen.empty() || (v >= seen.front() && v <= seen.back()); }

}  // namespace

std::string PredictorMetadata::ModelShape::toString() const
{
    std::string text = "hidden " + std::to_string(hidden) + ", heads " + std::to_string(heads) + ", ffn "
        + std::to_string(ffnHidden) + " " + memx::toString(mlp) + ", vocab " + std::to_string(vocab);
    if (!(style == LayerStyle{}))
        text += ", " + describe(style);
    return text;
}

std::string PredictorMetadata::hashText(const std::string& text)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[24];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
    return buf;
}

nlohmann::json PredictorFile::toJson(const LearnedPredictor& predictor, const PredictorMetadata& m)
{
    nlohmann::json doc;
    doc["format"] = kFormat;
    doc["tool_version"] = m.toolVersion.empty() ? std::string(MEMX_VERSION) : m.toolVersion;
    doc["feature_schema"] = StageFeatures::kSchema;
    doc["feature_names"] = StageFeatures::names();
    doc["targets"]
        = {"log(measured / analytic) of stage micro-batch time", "log(measured / analytic) of stage peak memory"};
    nlohmann::json trained;
    trained["gpu_types"] = m.gpuTypes;
    nlohmann::json models = nlohmann::json::array();
    for (const auto& s : m.models)
        models.push_back({{"hidden", s.hidden},
                          {"heads", s.heads},
                          {"ffn_hidden", s.ffnHidden},
                          {"vocab", s.vocab},
                          {"mlp", memx::toString(s.mlp)},
                          {"position_embedding", memx::toString(s.style.position)},
                          {"normalization", memx::toString(s.style.norm)},
                          {"bias_linear", s.style.linearBias}});
    trained["models"] = models;
    trained["micro_batches"] = m.microBatchSizes;
    trained["seq_lens"] = m.seqLens;
    trained["global_batches"] = m.globalBatches;
    trained["tensor_parallel"] = m.tensorParallel;
    trained["stage_layers"] = {m.minStageLayers, m.maxStageLayers};
    trained["data_hash"] = m.dataHash;
    trained["sources"] = m.sources;
    trained["runs"] = m.runs;
    trained["rows"] = m.rows;
    trained["time_labels"] = m.timeLabels;
    trained["memory_labels"] = m.memoryLabels;
    trained["interpolated_rows"] = m.interpolatedRows;
    trained["topology"] = m.topology.toJson();
    doc["trained_on"] = trained;
    doc["training"] = m.training.is_null() ? nlohmann::json::object() : m.training;
    doc["uncertainty"] = {{"in_range", predictor.params().inRangeUncertainty},
                          {"out_of_range", predictor.params().outOfRangeUncertainty}};
    doc["label_offset"] = {{"time", predictor.params().timeOffset}, {"memory", predictor.params().memoryOffset}};
    doc["corrections"] = {{"time", predictor.params().timeCorrection}, {"memory", predictor.params().memoryCorrection}};
    doc["iteration_terms"] = predictor.params().iteration.toJson();
    doc["calibration"] = nlohmann::json::array();
    for (const GpuParamsFit& f : predictor.analytic().calibration())
        doc["calibration"].push_back(f.toJson());
    doc["feature_min"] = floats(predictor.featureMin());
    doc["feature_max"] = floats(predictor.featureMax());
    doc["booster"] = nlohmann::json::parse(predictor.model().saveJson());
    doc["booster_checksum"] = BoosterCheck::checksum(doc["booster"]);
    return doc;
}

void PredictorFile::save(const std::string& file, const LearnedPredictor& predictor, const PredictorMetadata& metadata)
{
    writeFileAtomically(file, toJson(predictor, metadata).dump(1) + "\n");
}

PredictorFile::Loaded PredictorFile::load(const std::string& file)
{
    return fromJson(JsonReader::parseFile(file), file);
}

namespace {

// One model of "trained_on"/"models".
PredictorMetadata::ModelShape modelShapeOf(const JsonReader& s)
{
    PredictorMetadata::ModelShape shape{s.integerInRange("hidden", ranges::hidden),
                                        s.integerInRange("heads", ranges::heads),
                                        s.integerInRange("ffn_hidden", ranges::ffnHidden),
                                        s.integerInRange("vocab", ranges::vocab),
                                        MlpKind::SwiGlu,
                                        LayerStyle{}};  // both read below
    // Files written before the MLP kind existed were SwiGLU models.
    const std::string mlp = s.string("mlp", "swiglu");
    if (!parseMlpKind(mlp, shape.mlp))
        s.fail("mlp must be swiglu or gelu, got \"" + mlp + "\"", "mlp");
    // Files written before the layer style existed were LLaMA-style models.
    const std::string position = s.string("position_embedding", "rope");
    if (!parsePositionEmbedding(position, shape.style.position))
        s.fail("position_embedding must be rope, learned_absolute or none, got \"" + position + "\"",
               "position_embedding");
    const std::string norm = s.string("normalization", "rmsnorm");
    if (!parseNormalization(norm, shape.style.norm))
        s.fail("normalization must be rmsnorm or layernorm, got \"" + norm + "\"", "normalization");
    shape.style.linearBias = s.boolean("bias_linear", false);
    return shape;
}

// "trained_on": what the predictor was trained on.
void readTrainedOn(const JsonReader& t, PredictorMetadata& m)
{
    for (const JsonReader& g : t.at("gpu_types").items())
        m.gpuTypes.push_back(g.asString());
    for (const JsonReader& s : t.at("models").items())
        m.models.push_back(modelShapeOf(s));
    m.microBatchSizes = readInts(t, "micro_batches");
    m.seqLens = readInts(t, "seq_lens");
    m.globalBatches = readInts(t, "global_batches");
    m.tensorParallel = readInts(t, "tensor_parallel");
    const std::vector<int> sl = readInts(t, "stage_layers");
    if (sl.size() == 2) {
        m.minStageLayers = sl[0];
        m.maxStageLayers = sl[1];
    }
    m.dataHash = t.string("data_hash", "");
    for (const JsonReader& s : t.at("sources").items())
        m.sources.push_back(s.asString());
    const auto tally = [&](const char* key) {
        const long long v = t.integer(key, 0);
        if (v < 0)
            t.fail("must not be negative (got " + std::to_string(v) + ")", key);
        return static_cast<std::size_t>(v);
    };
    m.runs = tally("runs");
    m.rows = tally("rows");
    m.timeLabels = tally("time_labels");
    m.memoryLabels = tally("memory_labels");
    m.interpolatedRows = tally("interpolated_rows");
    m.topology = TrainedTopology::fromJson(t);
}

// Uncertainty, label offsets, the correction gates and run-level term scales.
LearnedPredictorParams paramsOf(const JsonReader& r)
{
    LearnedPredictorParams params;
    const JsonReader u = r.at("uncertainty");
    params.inRangeUncertainty = u.number("in_range");
    params.outOfRangeUncertainty = u.number("out_of_range");
    const JsonReader off = r.at("label_offset");
    params.timeOffset = off.number("time");
    params.memoryOffset = off.number("memory");
    if (r.has("corrections")) {  // files before the correction gate apply both
        const JsonReader c = r.at("corrections");
        params.timeCorrection = c.boolean("time", true);
        params.memoryCorrection = c.boolean("memory", true);
    }
    if (r.has("iteration_terms"))  // files before the run-level correction have none: scales 1
        params.iteration = IterationTerms::fromJson(r.at("iteration_terms"));
    return params;
}

// The calibration the analytic prior carries (files before calibration have none).
AnalyticPredictor calibratedPrior(const JsonReader& r)
{
    std::vector<GpuParamsFit> fits;
    if (r.has("calibration")) {
        const JsonReader list = r.at("calibration");
        if (!list.node().is_array())
            list.fail("expected a list of fitted GPU types");
        for (const auto& item : list.items())
            fits.push_back(GpuParamsFit::fromJson(item));
    }
    AnalyticPredictor analytic;
    analytic.setCalibration(std::move(fits));
    return analytic;
}

}  // namespace

PredictorFile::Loaded PredictorFile::fromJson(const nlohmann::json& doc, const std::string& file)
{
    const JsonReader r(doc, file);
    r.requireFormat(kFormat);
    const std::string schema = r.string("feature_schema");
    if (schema != StageFeatures::kSchema)
        r.fail("trained with feature schema " + schema + "; this build uses " + StageFeatures::kSchema
                   + "; retrain with `memx-cli train`",
               "feature_schema");
    std::vector<std::string> names;
    for (const JsonReader& n : r.at("feature_names").items())
        names.push_back(n.asString());
    if (names != StageFeatures::names())
        r.fail("feature names differ from schema " + schema + "; the file was edited or is corrupt", "feature_names");
    Loaded out;
    PredictorMetadata& m = out.metadata;
    m.toolVersion = r.string("tool_version", "");
    readTrainedOn(r.at("trained_on"), m);
    if (r.has("training"))
        m.training = r.at("training").node();

    const LearnedPredictorParams params = paramsOf(r);
    AnalyticPredictor analytic = calibratedPrior(r);
    const std::size_t n = StageFeatures::count();
    std::vector<float> lo = readFloats(r, "feature_min", n), hi = readFloats(r, "feature_max", n);
    if (!r.has("booster") || !doc.at("booster").is_object())
        r.fail("missing or not an object", "booster");
    if (r.has("booster_checksum")  // files before the checksum have none
        && r.string("booster_checksum") != BoosterCheck::checksum(doc.at("booster")))
        r.fail("does not match the booster: the file was changed or damaged after training", "booster_checksum");
    BoosterCheck::validate(doc.at("booster"), n, file);
    try {
        XgboostModel booster = XgboostModel::loadJson(doc.at("booster").dump());
        out.predictor = std::make_shared<LearnedPredictor>(std::move(booster), std::move(lo), std::move(hi),
                                                           std::move(analytic), params);
    } catch (const std::exception& e) {
        throw InputError(file, "booster", std::string("XGBoost cannot load it: ") + e.what());
    }
    return out;
}

void PredictorFile::checkFits(const PredictorMetadata& m, const Problem& problem, std::vector<std::string>& problems,
                              std::vector<std::string>& warnings)
{
    const Cluster& cluster = problem.cluster;
    const ModelSpec& model = problem.model;
    const TrainingSetup& setup = problem.setup;
    std::vector<std::string> missing;
    for (const GpuType& t : cluster.types())
        if (std::find(m.gpuTypes.begin(), m.gpuTypes.end(), t.name) == m.gpuTypes.end())
            missing.push_back(t.name);
    if (!missing.empty())
        problems.push_back("the predictor has no measurement of " + Text::join(missing) + " (trained on "
                           + Text::join(m.gpuTypes)
                           + "); profile those GPU types and retrain, or search with the "
                             "analytic predictor");
    const PredictorMetadata::ModelShape shape{model.hidden, model.heads, model.ffnHidden,
                                              model.vocab,  model.mlp,   model.style};
    if (!m.models.empty() && std::find(m.models.begin(), m.models.end(), shape) == m.models.end()) {
        std::vector<std::string> seen;
        for (const auto& s : m.models)
            seen.push_back(s.toString());
        problems.push_back("model " + model.name + " (" + shape.toString()
                           + ") is not a structure the predictor was trained on (" + Text::join(seen) + ")");
    }
    for (int mbs : setup.microBatchSizes)
        if (!inRange(mbs, m.microBatchSizes)) {
            warnings.push_back("micro-batch " + std::to_string(mbs) + " is outside the trained range ("
                               + Text::joinInts(m.microBatchSizes, ", ") + "): those predictions extrapolate");
            break;
        }
    std::vector<int> seqs = setup.seqLens.empty() ? std::vector<int>{model.seqLen} : setup.seqLens;
    for (int s : seqs)
        if (!inRange(s, m.seqLens)) {
            warnings.push_back("sequence length " + std::to_string(s) + " is outside the trained range ("
                               + Text::joinInts(m.seqLens, ", ") + "): those predictions extrapolate");
            break;
        }
    if (!m.globalBatches.empty()
        && std::find(m.globalBatches.begin(), m.globalBatches.end(), setup.globalBatch) == m.globalBatches.end())
        warnings.push_back("global batch " + std::to_string(setup.globalBatch) + " was not among the measured ones ("
                           + Text::joinInts(m.globalBatches, ", ")
                           + "): in-flight micro-batches and pipeline bubbles differ from what was measured");
}

}  // namespace memx
