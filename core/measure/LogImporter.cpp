#include "measure/LogImporter.h"

#include "io/Text.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/InputFile.h"
#include "model/AttentionKind.h"
#include "io/LogText.h"
#include "measure/MeasurementCsv.h"
#include "measure/MegatronLogParser.h"
#include "megatron/RankLayout.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memx {

namespace {

namespace fs = std::filesystem;

void checkGpuType(const std::string& type, const std::string& file, const std::string& field)
{
    if (!GpuCatalog::builtin().find(type))
        throw InputError(file, field, "unknown GPU type \"" + type + "\"; `memx-cli gpus` lists the known types");
}

// The dump's problems that make the log unusable: cut, or two starts with other arguments.
void checkDumps(const MegatronLog& log, ImportedLog& out)
{
    for (const MegatronArguments& a : log.arguments)
        if (!a.complete()) {
            std::string what = "the argument dump starting here has no end banner (\"---- end of arguments ----\")";
            if (a.size() > 0)
                what += "; it stops after argument " + a.lastArgument() + " on line " + std::to_string(a.lastLine());
            out.errors.push_back(log.file + ": line " + std::to_string(a.startLine()) + ": " + what);
            return;
        }
    for (size_t i = 1; i < log.arguments.size(); ++i) {
        const MegatronArguments& a = log.arguments.front();
        const MegatronArguments& b = log.arguments[i];
        const std::string name = a.firstDifference(b);
        if (name.empty())
            continue;
        out.errors.push_back(log.file + ": line " + std::to_string(b.line(name)) + ", argument " + name + " = "
                             + b.raw(name).value_or("(absent)") + " differs from " + a.raw(name).value_or("(absent)")
                             + " in the dump at line " + std::to_string(a.startLine())
                             + ": the log holds runs of two configurations");
        return;
    }
}

std::string recomputeList(const std::vector<Recompute>& levels)
{
    std::vector<std::string> names;
    for (const Recompute r : levels)
        names.push_back(toString(r));
    return Text::join(names, ",");
}

}  // namespace

LogImporter::LogImporter(LogImportOptions options) : opt_(std::move(options))
{
    if (!opt_.gpuType.empty())
        checkGpuType(opt_.gpuType, "--gpu-type", "");
    for (const auto& [log, type] : opt_.gpuTypes)
        checkGpuType(type, "--gpu-type-map", log);
    for (const MeasuredRun& r : opt_.runs)
        bySafeName_[Text::safeName(r.runId)] = &r;
}

std::vector<std::string> LogImporter::runsWithoutLog() const
{
    std::vector<std::string> out;
    for (const MeasuredRun& r : opt_.runs)
        if (imported_.count(r.runId) == 0)
            out.push_back(r.runId);
    return out;
}

std::map<std::string, std::string> LogImporter::readGpuTypeMap(const std::string& file)
{
    std::istringstream in(InputFile::read(file, 16ull << 20, "a GPU type map"));
    std::map<std::string, std::string> out;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const std::string_view t = LogText::trim(line);
        if (t.empty() || t.front() == '#')
            continue;
        std::istringstream words{std::string(t)};
        std::string name, type, extra;
        if (!(words >> name >> type) || (words >> extra))
            throw InputError(file, "line " + std::to_string(n),
                             "expected \"log-file-name gpu-type\", got \"" + std::string(t) + "\"");
        if (!out.emplace(name, type).second)
            throw InputError(file, "line " + std::to_string(n), "a second line for " + name);
    }
    return out;
}

std::string LogImporter::gpuTypeOf(const std::string& file) const
{
    const fs::path p(file);
    for (const std::string& key : {p.filename().string(), p.stem().string(), file}) {
        const auto it = opt_.gpuTypes.find(key);
        if (it != opt_.gpuTypes.end())
            return it->second;
    }
    return opt_.gpuType;
}

const MeasuredRun* LogImporter::runOf(const std::string& file, ImportedLog& out) const
{
    const auto it = bySafeName_.find(out.runId);
    if (it == bySafeName_.end()) {
        out.errors.push_back(file + ": file name: no run \"" + out.runId + "\" in " + opt_.runsFile
                             + "; name each log after its run_id (<run_id>.log)");
        return nullptr;
    }
    const MeasuredRun& run = *it->second;
    const std::string type = gpuTypeOf(file);
    for (const MeasuredStage& s : run.stages)
        if (!type.empty() && s.gpuType != type) {
            out.errors.push_back(file + ": GPU type " + type + " given for this log, but run " + run.runId + " in "
                                 + opt_.runsFile + " has " + s.gpuType + " on stage " + std::to_string(s.stage));
            return nullptr;
        }
    out.runId = run.runId;
    return &run;
}

MeasuredRun LogImporter::runFromDump(const DumpedRun& d, ImportedLog& out) const
{
    Measurement base = d.config;
    base.runId = out.runId;
    base.gpuType = gpuTypeOf(out.file);
    base.source = MeasurementSource::Measured;
    if (base.precision == Precision::Fp32 && opt_.fp32Matmul == Fp32Matmul::Tf32)
        base.precision = Precision::Tf32;  // one spelling (MeasurementCsv)
    else if (base.precision == Precision::Fp32)
        base.fp32Matmul = opt_.fp32Matmul;
    std::vector<Measurement> rows{base};
    for (size_t s = 0; s < d.stageLayers.size(); ++s) {
        Measurement st = base;
        st.stage = static_cast<int>(s);
        st.stageLayers = d.stageLayers[s];
        st.recompute = d.stageRecompute[s];
        rows.push_back(st);
    }
    return MeasuredRun::group(rows, out.file).front();
}

void LogImporter::checkAgainstRunList(const DumpedRun& d, const MeasuredRun& run, ImportedLog& out) const
{
    const Measurement& c = run.config;
    const Measurement& g = d.config;
    std::vector<int> runLayers;
    std::vector<Recompute> runRecompute;
    for (const MeasuredStage& s : run.stages) {
        runLayers.push_back(s.layers);
        runRecompute.push_back(s.recompute);
    }
    auto differ = [&](const std::string& column, const std::string& logValue, const std::string& runValue) {
        out.errors.push_back(d.where(column) + " gives " + column + " " + logValue + ", but run " + run.runId + " in "
                             + opt_.runsFile + " has " + runValue);
    };
    const std::pair<const char*, std::pair<int, int>> ints[] = {
        {"tp", {g.tp, c.tp}},
        {"pp", {g.pp, c.pp}},
        {"dp", {g.dp, c.dp}},
        {"vp", {g.vp, c.vp}},
        {"mbs", {g.mbs, c.mbs}},
        {"gbs", {g.gbs, c.gbs}},
        {"seq_len", {g.seqLen, c.seqLen}},
        {"num_layers", {g.numLayers, c.numLayers}},
        {"hidden", {g.hidden, c.hidden}},
        {"ffn_hidden", {g.ffnHidden, c.ffnHidden}},
        {"heads", {g.heads, c.heads}},
        {"query_groups", {g.queryGroups, c.queryGroups}},
    };
    for (const auto& [column, values] : ints)
        if (values.first != values.second)
            differ(column, std::to_string(values.first), std::to_string(values.second));
    if (g.mlp != c.mlp)
        differ("mlp", toString(g.mlp), toString(c.mlp));
    if (g.tiedEmbeddings != c.tiedEmbeddings)
        differ("tied_embeddings", g.tiedEmbeddings ? "true" : "false", c.tiedEmbeddings ? "true" : "false");
    if (g.style.position != c.style.position)
        differ("position_embedding", toString(g.style.position), toString(c.style.position));
    if (g.style.norm != c.style.norm)
        differ("normalization", toString(g.style.norm), toString(c.style.norm));
    if (g.style.linearBias != c.style.linearBias)
        differ("bias_linear", g.style.linearBias ? "true" : "false", c.style.linearBias ? "true" : "false");
    if (g.flashAttention != c.flashAttention)
        differ("attention", attentionName(g.flashAttention), attentionName(c.flashAttention));
    if (g.attentionDropout != c.attentionDropout)
        differ("attention_dropout", Text::shortest(g.attentionDropout), Text::shortest(c.attentionDropout));
    if (g.hiddenDropout != c.hiddenDropout)
        differ("hidden_dropout", Text::shortest(g.hiddenDropout), Text::shortest(c.hiddenDropout));
    if (g.sequenceParallel != c.sequenceParallel && c.tp > 1)
        differ("sequence_parallel", g.sequenceParallel ? "true" : "false", c.sequenceParallel ? "true" : "false");
    if (g.distributedOptimizer != c.distributedOptimizer && c.dp > 1)
        differ("distributed_optimizer", g.distributedOptimizer ? "true" : "false",
               c.distributedOptimizer ? "true" : "false");
    if (g.overlapGradReduce != c.overlapGradReduce && c.dp > 1)
        differ("overlap_grad_reduce", g.overlapGradReduce ? "true" : "false", c.overlapGradReduce ? "true" : "false");
    if (g.overlapParamGather != c.overlapParamGather && c.dp > 1)
        differ("overlap_param_gather", g.overlapParamGather ? "true" : "false",
               c.overlapParamGather ? "true" : "false");
    if (std::find(d.vocabAliases.begin(), d.vocabAliases.end(), c.vocab) == d.vocabAliases.end())
        differ("vocab", std::to_string(g.vocab), std::to_string(c.vocab));
    if (g.pp == c.pp && d.stageLayers != runLayers)
        differ("stage_layers", Text::joinInts(d.stageLayers), Text::joinInts(runLayers));
    if (g.pp == c.pp && d.stageRecompute != runRecompute)
        differ("recompute", recomputeList(d.stageRecompute), recomputeList(runRecompute));
}

void LogImporter::checkSetup(const DumpedRun& d, ImportedLog& out) const
{
    if (d.precision == "fp32" && opt_.fp32Matmul == Fp32Matmul::Unstated)  // the log cannot say whether TF32 ran
        out.warnings.push_back(d.where("precision")
                               + ": fp32 training, and a log does not say whether its matmuls ran in TF32; written "
                                 "with fp32_matmul empty, which reads as NVIDIA's PyTorch containers run it (TF32 "
                                 "where the GPU has it: TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 in the image); "
                                 "--fp32-matmul ieee if TF32 was off (stock PyTorch 1.12 or later), "
                                 "--fp32-matmul tf32 to say it ran");
    for (const std::string& m : d.unmodelledSetup()) {
        if (opt_.allowSetupMismatch)
            out.warnings.push_back(m + " (imported anyway: --allow-setup-mismatch)");
        else
            out.errors.push_back(m + "; --allow-setup-mismatch imports it anyway");
    }
}

ImportedLog LogImporter::import(const std::string& file)
{
    ImportedLog out;
    out.file = file;
    out.runId = fs::path(file).stem().string();
    try {
        const MegatronLog log = MegatronLogParser::read(file, MegatronLogParser::Keep::Peaks);
        out.warnings = log.warnings;
        checkDumps(log, out);
        if (log.iterations.empty())
            out.errors.push_back(file + ": no iteration line in its " + std::to_string(log.lineCount)
                                 + " lines (no \"iteration N/ M | ... |\" or NeMo train_step_timing line)");
        const MeasuredRun* listed = opt_.runsFile.empty() ? nullptr : runOf(file, out);
        if (!out.errors.empty())
            return out;
        std::optional<DumpedRun> dump;
        try {
            if (!log.arguments.empty())
                dump = log.arguments.front().toRun(log.paddedVocab);
        } catch (const MissingArgument& e) {
            if (!listed)
                throw;
            out.warnings.push_back(std::string(e.what()) + "; the argument dump is not checked against "
                                   + opt_.runsFile);
        }
        if (!listed && !dump)
            out.errors.push_back(file
                                 + ": no argument dump (\"---- arguments ----\" ... \"---- end of arguments ----\") "
                                   "to read the run from; give --runs with the run list");
        if (!listed && dump && gpuTypeOf(file).empty())
            out.errors.push_back(file + ": no GPU type for this log; give --gpu-type or a line \""
                                 + fs::path(file).filename().string() + " <gpu-type>\" in --gpu-type-map");
        if (listed && dump)
            checkAgainstRunList(*dump, *listed, out);
        if (dump)
            checkSetup(*dump, out);
        if (!out.errors.empty())
            return out;
        const auto seen = imported_.find(out.runId);
        if (seen != imported_.end()) {
            out.errors.push_back(file + ": a second log for run " + out.runId + " (the first: " + seen->second + ")");
            return out;
        }
        const MeasuredRun run = listed ? *listed : runFromDump(*dump, out);
        addRows(log, run, dump && dump->tpPpDpMapping, out);
        if (out.imported())
            validate(out);
        if (out.imported())
            imported_[out.runId] = file;
    } catch (const InputError& e) {
        out.errors.push_back(e.what());
    }
    if (!out.imported())
        out.rows.clear();
    return out;
}

void LogImporter::addRows(const MegatronLog& log, const MeasuredRun& run, bool tpPpDp, ImportedLog& out) const
{
    const MegatronLogSummary sum = log.summary(opt_.skipWarmup);
    if (!sum.note.empty())
        out.warnings.push_back(sum.note);
    const RankLayout layout(run.config.tp, run.config.pp, run.config.dp, 1,
                            tpPpDp ? RankLayout::Order::TpCpPpDp : RankLayout::Order::TpCpDpPp);
    const std::vector<double> peaks = MegatronLogParser::stagePeakMiB(log, layout);
    const bool rankless
        = std::any_of(log.memory.begin(), log.memory.end(), [](const MemoryRecord& m) { return m.rank < 0; });
    if (rankless && run.config.pp > 1)
        out.warnings.push_back(log.file
                               + ": memory lines without a rank (2020 format) come from global rank 0; "
                                 "they stand for stage 0 only");
    std::optional<double> time;
    if (!std::isnan(sum.medianIterationMs))
        time = sum.medianIterationMs;
    else
        out.warnings.push_back(log.file + ": no clean iteration line other than iteration 1; no time for run "
                               + run.runId);
    if (time) {
        Measurement r = run.emptyRunRow(MeasurementSource::Measured);
        r.iterationTimeMs = time;
        out.rows.push_back(r);
    }
    std::vector<size_t> without;
    for (size_t i = 0; i < run.stages.size(); ++i) {
        if (std::isnan(peaks[i])) {
            without.push_back(i);
            out.warnings.push_back(log.file + ": no memory line of stage " + std::to_string(i)
                                   + " (ranks of pipeline stage " + std::to_string(i) + ")");
            continue;
        }
        Measurement s = run.emptyStageRow(i, MeasurementSource::Measured);
        s.peakMemMiB = peaks[i];
        out.rows.push_back(s);
    }
    if (out.rows.empty()) {
        out.errors.push_back(log.file + ": neither a usable iteration time nor a memory line; nothing to write");
        return;
    }
    completeStages(run, without, time, out);
}

void LogImporter::completeStages(const MeasuredRun& run, const std::vector<size_t>& without, std::optional<double> time,
                                 ImportedLog& out) const
{
    if (without.empty())
        return;
    // A reader fills the stages without a row from the run row, with an even
    // share of the layers left; when that is not this run, they need rows.
    bool same = false;
    try {
        const MeasuredRun back = MeasuredRun::group(out.rows, out.file).front();
        same = back.stages.size() == run.stages.size();
        for (size_t i = 0; same && i < run.stages.size(); ++i)
            same = back.stages[i].layers == run.stages[i].layers && back.stages[i].recompute == run.stages[i].recompute
                && back.stages[i].gpuType == run.stages[i].gpuType;
    } catch (const InputError&) {
        same = false;
    }
    if (same)
        return;
    if (!time) {
        out.errors.push_back(out.file
                             + ": the stages without a memory line cannot be written without an iteration "
                               "time to stand in their rows (the layers of run "
                             + run.runId + " are not split evenly)");
        return;
    }
    for (const size_t i : without) {
        Measurement s = run.emptyStageRow(i, MeasurementSource::Measured);
        s.iterationTimeMs = time;
        out.rows.push_back(s);
    }
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const Measurement& a, const Measurement& b) {
        return a.stage.value_or(-1) < b.stage.value_or(-1);
    });
}

void LogImporter::validate(ImportedLog& out) const
{
    try {
        MeasurementCsv::parse(MeasurementCsv::write(out.rows), out.file);
    } catch (const InputError& e) {
        out.errors.push_back(out.file + ": the rows for run " + out.runId
                             + " are not valid measurements: " + e.reason());
    }
}

}  // namespace memx
