// Over 600 lines: the memx-measurements/1 schema in one place, its column table, strict reader and writer, so that each
// column is spelt and checked once.
#include "measure/MeasurementCsv.h"

#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/InputFile.h"
#include "io/Ranges.h"
#include "io/Text.h"
#include "model/AttentionKind.h"
#include "model/ModelSpec.h"

#include <algorithm>
#include <set>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

namespace memx {

namespace {

enum Col {
    RunId,
    Source,
    GpuType,
    NumGpus,
    Tp,
    Pp,
    Dp,
    Vp,
    Mbs,
    Gbs,
    SeqLen,
    NumLayers,
    Hidden,
    FfnHidden,
    Heads,
    QueryGroups,
    Vocab,
    RecomputeCol,
    Stage,
    StageLayers,
    IterationTimeMs,
    StageTimeMs,
    PeakMemMiB,
    ProvenanceCol,
    Uncertainty,
    EstimatedGpuHours,
    ClusterCol,
    PrecisionCol,
    PeakMemKindCol,
    MlpCol,
    TiedCol,
    AttentionCol,
    AttentionDropoutCol,
    HiddenDropoutCol,
    SequenceParallelCol,
    DistributedOptimizerCol,
    OverlapGradReduceCol,
    OverlapParamGatherCol,
    PositionEmbeddingCol,
    NormalizationCol,
    BiasLinearCol,
    Fp32MatmulCol,
    ColCount
};

const char* const kNames[ColCount] = {"run_id",
                                      "source",
                                      "gpu_type",
                                      "num_gpus",
                                      "tp",
                                      "pp",
                                      "dp",
                                      "vp",
                                      "mbs",
                                      "gbs",
                                      "seq_len",
                                      "num_layers",
                                      "hidden",
                                      "ffn_hidden",
                                      "heads",
                                      "query_groups",
                                      "vocab",
                                      "recompute",
                                      "stage",
                                      "stage_layers",
                                      "iteration_time_ms",
                                      "stage_time_ms",
                                      "peak_mem_mib",
                                      "provenance",
                                      "uncertainty",
                                      "estimated_gpu_hours",
                                      "cluster",
                                      "precision",
                                      "peak_mem_kind",
                                      "mlp",
                                      "tied_embeddings",
                                      "attention",
                                      "attention_dropout",
                                      "hidden_dropout",
                                      "sequence_parallel",
                                      "distributed_optimizer",
                                      "overlap_grad_reduce",
                                      "overlap_param_gather",
                                      "position_embedding",
                                      "normalization",
                                      "bias_linear",
                                      "fp32_matmul"};

constexpr Col kRequired[] = {RunId, GpuType, NumGpus, Tp, Pp, Dp, Mbs, Gbs, SeqLen, NumLayers, Hidden, Heads, Vocab};

std::string lineField(int line) { return "line " + std::to_string(line); }
std::string cellField(int line, Col c) { return lineField(line) + ", column " + kNames[c]; }
std::string quote(const std::string& s) { return "\"" + s + "\""; }

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string trim(const std::string& s)
{
    size_t b = 0, e = s.size();
    while (b < e && isBlank(s[b]))
        ++b;
    while (e > b && isBlank(s[e - 1]))
        --e;
    return s.substr(b, e - b);
}

// One CSV record (or a comment / blank line) with the line it starts on.
struct Record {
    int line = 0;
    bool skip = false;  // blank or comment line
    std::string comment;
    std::vector<std::string> fields;
};

// RFC 4180 style tokenizer: fields separated by ',', optionally enclosed in
// '"' with "" for a quote (quoted fields may contain commas and newlines);
// spaces around unquoted fields are trimmed; CRLF is accepted.
class Tokenizer {
public:
    Tokenizer(const std::string& text, const std::string& file) : t_(text), file_(file)
    {
        if (t_.size() >= 3 && t_.compare(0, 3, "\xEF\xBB\xBF") == 0)
            pos_ = 3;  // UTF-8 byte order mark
    }

    bool next(Record& r)
    {
        if (pos_ >= t_.size())
            return false;
        r = Record{};
        r.line = line_;
        // Blank or comment line?
        size_t p = pos_;
        while (p < t_.size() && isBlank(t_[p]))
            ++p;
        if (p >= t_.size() || t_[p] == '\n' || t_[p] == '#') {
            size_t eol = t_.find('\n', p);
            if (eol == std::string::npos)
                eol = t_.size();
            r.skip = true;
            if (p < t_.size() && t_[p] == '#')
                r.comment = trim(t_.substr(p + 1, eol - p - 1));
            pos_ = eol + 1;
            ++line_;
            return true;
        }
        for (;;) {
            std::string field;
            while (pos_ < t_.size() && isBlank(t_[pos_]))
                ++pos_;
            if (pos_ < t_.size() && t_[pos_] == '"') {
                const int startLine = line_;
                ++pos_;
                for (;;) {
                    if (pos_ >= t_.size())
                        throw InputError(file_, lineField(startLine), "unterminated quoted field (missing closing \")");
                    const char c = t_[pos_++];
                    if (c == '"') {
                        if (pos_ < t_.size() && t_[pos_] == '"') {
                            field += '"';
                            ++pos_;
                        } else {
                            break;
                        }
                    } else {
                        if (c == '\n')
                            ++line_;
                        field += c;
                    }
                }
                while (pos_ < t_.size() && isBlank(t_[pos_]))
                    ++pos_;
                if (pos_ < t_.size() && t_[pos_] != ',' && t_[pos_] != '\n')
                    throw InputError(
                        file_, lineField(line_),
                        "unexpected character after a closing quote; a quoted field must be followed by , or "
                        "the end of the line");
            } else {
                while (pos_ < t_.size() && t_[pos_] != ',' && t_[pos_] != '\n') {
                    if (t_[pos_] == '"')
                        throw InputError(file_, lineField(line_),
                                         "quote inside an unquoted field; enclose the whole field in quotes and double "
                                         "the quote (\"\")");
                    field += t_[pos_++];
                }
                field = trim(field);
            }
            r.fields.push_back(std::move(field));
            if (pos_ >= t_.size())
                return true;
            if (t_[pos_++] == '\n') {
                ++line_;
                return true;
            }
        }
    }

private:
    const std::string& t_;
    const std::string& file_;
    size_t pos_ = 0;
    int line_ = 1;
};

class RowParser {
public:
    RowParser(const std::string& file, int line, const std::vector<std::string>& cells, const int (&index)[ColCount])
        : file_(file)
        , line_(line)
        , cells_(cells)
        , index_(index)
    {
    }

    bool present(Col c) const { return index_[c] >= 0 && !cells_[index_[c]].empty(); }
    const std::string& cell(Col c) const
    {
        static const std::string empty;
        return index_[c] >= 0 ? cells_[index_[c]] : empty;
    }
    [[noreturn]] void fail(Col c, const std::string& reason) const
    {
        throw InputError(file_, cellField(line_, c), reason);
    }
    std::string got(Col c) const
    {
        return present(c) ? "got " + quote(cell(c)) + separatorHint(cell(c)) : std::string("got an empty cell");
    }
    // "7,305.2" or "1,024": digits in groups of three joined by commas, as a
    // spreadsheet formats them; the reader takes plain numbers only.
    static std::string separatorHint(const std::string& s)
    {
        const std::size_t dot = s.find('.');
        const std::string whole = s.substr(0, dot);
        if (whole.find(',') == std::string::npos || whole.front() == ',')
            return {};
        std::size_t digits = 0, group = 0;
        bool grouped = false;
        for (char ch : whole) {
            if (ch == ',') {
                if ((grouped && group != 3) || (!grouped && (group < 1 || group > 3)))
                    return {};
                grouped = true;
                group = 0;
            } else if (ch >= '0' && ch <= '9') {
                ++group;
                ++digits;
            } else {
                return {};
            }
        }
        if (group != 3)
            return {};
        std::string plain;
        for (char ch : s)
            if (ch != ',')
                plain += ch;
        return " (a thousands separator: write " + plain + ")";
    }

    std::string text(Col c) const
    {
        if (!present(c))
            fail(c, std::string(kNames[c]) + " must not be empty");
        return name(c);
    }
    // A name cell (run id, GPU type, cluster): one line of text (Text::nameProblem).
    const std::string& name(Col c) const
    {
        if (const std::string why = Text::nameProblem(cell(c)); !why.empty())
            fail(c, std::string(kNames[c]) + " " + why);
        return cell(c);
    }

    // Integer >= lo that fits in an int; `what` describes the valid values.
    int integer(Col c, int lo, const char* what) const
    {
        const long long v = integer64(c, lo, what);
        if (v > INT_MAX)
            fail(c, std::string(kNames[c]) + " " + cell(c) + " is too large (at most " + std::to_string(INT_MAX) + ")");
        return static_cast<int>(v);
    }
    long long integer64(Col c, int lo, const char* what) const
    {
        const std::string& s = cell(c);
        long long v = 0;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < lo)
            fail(c, std::string(kNames[c]) + " must be " + what + ", " + got(c));
        return v;
    }
    // A positive integer within the plausible range `r` (io/Ranges.h).
    int count(Col c, const Range& r) const
    {
        // Range-checked in 64 bits before narrowing.
        const long long v = integer64(c, 1, "a positive integer");
        if (const std::string why = r.whyOutside(static_cast<double>(v), false, false); !why.empty())
            fail(c, std::string(kNames[c]) + ": " + why);
        return static_cast<int>(v);
    }
    int countOr(Col c, const Range& r, int dflt) const { return present(c) ? count(c, r) : dflt; }

    // Empty, or a positive number within `r`.
    std::optional<double> target(Col c, const Range& r) const
    {
        if (!present(c))
            return std::nullopt;
        const std::string& s = cell(c);
        double v = 0;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v) || v <= 0)
            fail(c, std::string(kNames[c]) + " must be empty or a positive number, " + got(c));
        if (const std::string why = r.whyOutside(v, false, false); !why.empty())
            fail(c, std::string(kNames[c]) + ": " + why);
        return v;
    }

    // Empty (0) or a dropout rate in [0, 1).
    double rate(Col c) const
    {
        if (!present(c))
            return 0.0;
        const std::string& s = cell(c);
        double v = -1;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || ptr != s.data() + s.size() || !(v >= 0 && v < 1))
            fail(c, std::string(kNames[c]) + " must be empty (0) or a dropout rate in [0, 1), " + got(c));
        return v;
    }

private:
    const std::string& file_;
    int line_;
    const std::vector<std::string>& cells_;
    const int (&index_)[ColCount];
};

// Columns precision and fp32_matmul: tf32 is one spelling in memory
// (precision tf32), so a row reads back as it was written; ieee is an fp32
// run that says so.
void parsePrecisionColumns(const RowParser& p, Measurement& m)
{
    if (p.present(PrecisionCol) && !parsePrecision(p.cell(PrecisionCol), m.precision))
        p.fail(PrecisionCol,
               std::string("precision must be empty (bf16) or one of ") + precisionChoices() + ", "
                   + p.got(PrecisionCol));
    if (p.present(Fp32MatmulCol)) {
        Fp32Matmul mode = Fp32Matmul::Unstated;
        if (!parseFp32Matmul(p.cell(Fp32MatmulCol), mode))
            p.fail(Fp32MatmulCol,
                   "fp32_matmul must be empty (as NVIDIA's PyTorch containers run fp32: TF32 where the GPU has it), "
                   "tf32 or ieee, "
                       + p.got(Fp32MatmulCol));
        if (!storesFp32(m.precision))
            p.fail(Fp32MatmulCol,
                   std::string("fp32_matmul says how an fp32 run's matmuls ran, and this run trains in ")
                       + toString(m.precision) + "; leave it empty");
        if (m.precision == Precision::Tf32 && mode == Fp32Matmul::Ieee)
            p.fail(Fp32MatmulCol, "precision tf32 means TF32 matmuls, and fp32_matmul says ieee; say one of them");
        if (mode == Fp32Matmul::Tf32)
            m.precision = Precision::Tf32;
        else
            m.fp32Matmul = mode;
    }
}

// The training setup's columns: embeddings, parallel options, layer style,
// overlaps (with Megatron's rules between them), attention and dropout.
void parseTrainingColumns(const RowParser& p, Measurement& m)
{
    // true|false columns; `fallback` when empty.
    const auto flag = [&](Col c, bool fallback) {
        if (!p.present(c))
            return fallback;
        const std::string& t = p.cell(c);
        if (t != "true" && t != "false")
            p.fail(c,
                   std::string(kNames[c]) + " must be empty (" + (fallback ? "true" : "false") + ") or true|false, "
                       + p.got(c));
        return t == "true";
    };
    m.tiedEmbeddings = flag(TiedCol, false);
    m.sequenceParallel = flag(SequenceParallelCol, true);
    m.distributedOptimizer = flag(DistributedOptimizerCol, true);
    m.overlapGradReduce = flag(OverlapGradReduceCol, false);
    if (p.present(PositionEmbeddingCol) && !parsePositionEmbedding(p.cell(PositionEmbeddingCol), m.style.position))
        p.fail(PositionEmbeddingCol,
               "position_embedding must be empty (rope) or rope|learned_absolute|none, " + p.got(PositionEmbeddingCol));
    if (p.present(NormalizationCol) && !parseNormalization(p.cell(NormalizationCol), m.style.norm))
        p.fail(NormalizationCol,
               "normalization must be empty (rmsnorm) or rmsnorm|layernorm, " + p.got(NormalizationCol));
    m.style.linearBias = flag(BiasLinearCol, false);
    m.overlapParamGather = flag(OverlapParamGatherCol, false);
    if (m.overlapParamGather && !m.distributedOptimizer)
        p.fail(OverlapParamGatherCol,
               "overlap_param_gather needs distributed_optimizer true (Megatron: "
               "--overlap-param-gather only supported with distributed optimizer)");
    if (m.overlapParamGather && !m.overlapGradReduce)
        p.fail(OverlapParamGatherCol,
               "overlap_param_gather needs overlap_grad_reduce true (Megatron: "
               "--overlap-grad-reduce should be turned on when using --overlap-param-gather)");
    if (p.present(AttentionCol) && !parseAttentionName(p.cell(AttentionCol), m.flashAttention))
        p.fail(AttentionCol,
               "attention must be empty (flash) or flash|unfused (Megatron's fused, auto and local "
               "are read too), "
                   + p.got(AttentionCol));
    m.attentionDropout = p.rate(AttentionDropoutCol);
    m.hiddenDropout = p.rate(HiddenDropoutCol);
}

// What a row says about itself: provenance, uncertainty, cost, cluster.
void parseAnnotations(const RowParser& p, Measurement& m)
{
    if (p.present(ProvenanceCol)) {
        m.provenance = p.name(ProvenanceCol);
        static const char* const known[] = {"analytic", "learned", "cached", "extrapolated"};
        if (std::find(std::begin(known), std::end(known), m.provenance) == std::end(known))
            p.fail(ProvenanceCol,
                   "provenance must be empty or analytic|learned|cached|extrapolated, " + p.got(ProvenanceCol));
    }
    if (p.present(Uncertainty)) {
        const std::string& s = p.cell(Uncertainty);
        double v = -1;
        const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v) || v < 0)
            p.fail(Uncertainty,
                   "uncertainty must be empty or a relative error >= 0 (0.1 = 10%), " + p.got(Uncertainty));
        m.uncertainty = v;
    }
    m.estimatedGpuHours = p.target(EstimatedGpuHours, ranges::gpuHours);
    if (p.present(ClusterCol))
        m.cluster = p.name(ClusterCol);
}

// Consistency within the row.
void checkRow(const RowParser& p, const Measurement& m)
{
    // Products of sizes in 64 bits: tp * pp * dp of three ints overflows int.
    const auto n = [](long long v) { return std::to_string(v); };
    const auto ll = [](int v) { return static_cast<long long>(v); };
    if (m.hidden % m.heads != 0)
        p.fail(Heads, "heads must divide hidden (" + n(m.hidden) + "), got " + n(m.heads));
    if (m.heads % m.queryGroups != 0)
        p.fail(QueryGroups, "query_groups must divide heads (" + n(m.heads) + "), got " + n(m.queryGroups));
    // Megatron-LM (transformer_config.py): heads % TP == 0, and query groups
    // and TP divide one another (TP > groups replicates the KV heads).
    if (m.heads % m.tp != 0 || (m.queryGroups % m.tp != 0 && m.tp % m.queryGroups != 0))
        p.fail(Tp,
               "tp must divide heads (" + n(m.heads) + ") and divide or be a multiple of query_groups ("
                   + n(m.queryGroups) + "), got " + n(m.tp));
    if (ll(m.gbs) % (ll(m.mbs) * m.dp) != 0)
        p.fail(Gbs, "gbs must be a multiple of mbs * dp (" + n(ll(m.mbs) * m.dp) + "), got " + n(m.gbs));
    if (m.vp > 1 && m.pp < 2)
        p.fail(Vp, "vp > 1 (interleaved schedule) needs pp >= 2, got pp " + n(m.pp));
    if (m.stage && !m.stageLayers)
        p.fail(StageLayers, "stage given without stage_layers; a stage row needs both, a run row neither");
    if (m.stageLayers && !m.stage)
        p.fail(Stage, "stage_layers given without stage; a stage row needs both, a run row neither");
    if (m.stage) {
        if (*m.stage >= m.pp)
            p.fail(Stage, "stage must be in 0..pp-1 (pp " + n(m.pp) + "), got " + n(*m.stage));
        if (*m.stageLayers > m.numLayers)
            p.fail(StageLayers,
                   "stage_layers must be at most num_layers (" + n(m.numLayers) + "), got " + n(*m.stageLayers));
    } else {
        if (m.numGpus != ll(m.tp) * m.pp * m.dp)
            p.fail(NumGpus,
                   "num_gpus of a run row must equal tp * pp * dp (" + n(ll(m.tp) * m.pp * m.dp) + "), got "
                       + n(m.numGpus));
        if (m.stageTimeMs)
            p.fail(StageTimeMs, "stage_time_ms belongs to a stage row; this is a run row (stage empty)");
    }
}

Measurement parseRow(const RowParser& p, int line, const std::string& file, MeasurementCsv::Kind kind)
{
    Measurement m;
    m.runId = p.text(RunId);
    if (p.present(Source) && !parseMeasurementSource(p.cell(Source), m.source))
        p.fail(Source, "source must be measured|simulated|interpolated, " + p.got(Source));
    m.gpuType = p.text(GpuType);
    m.numGpus = p.count(NumGpus, ranges::gpusPerCluster);
    m.tp = p.count(Tp, ranges::tensorParallel);
    m.pp = p.count(Pp, ranges::pipelineStages);
    m.dp = p.count(Dp, ranges::dataParallel);
    m.vp = p.countOr(Vp, ranges::pipelineStages, 1);
    m.mbs = p.count(Mbs, ranges::batch);
    m.gbs = p.count(Gbs, ranges::batch);
    m.seqLen = p.count(SeqLen, ranges::seqLen);
    m.numLayers = p.count(NumLayers, ranges::numLayers);
    m.hidden = p.count(Hidden, ranges::hidden);
    if (p.present(MlpCol) && !parseMlpKind(p.cell(MlpCol), m.mlp))
        p.fail(MlpCol, "mlp must be empty (swiglu) or swiglu|gelu, " + p.got(MlpCol));
    m.ffnHidden = p.countOr(FfnHidden, ranges::ffnHidden, ModelSpec::defaultFfn(m.hidden, m.mlp));
    parseTrainingColumns(p, m);
    m.heads = p.count(Heads, ranges::heads);
    m.queryGroups = p.countOr(QueryGroups, ranges::queryGroups, m.heads);
    m.vocab = p.count(Vocab, ranges::vocab);
    if (p.present(RecomputeCol) && !parseRecompute(p.cell(RecomputeCol), m.recompute))
        p.fail(RecomputeCol, "recompute must be none|selective|full, " + p.got(RecomputeCol));
    if (p.present(Stage))
        m.stage = p.integer(Stage, 0, "a non-negative integer (0-based pipeline stage)");
    if (p.present(StageLayers))
        m.stageLayers = p.count(StageLayers, ranges::numLayers);
    m.iterationTimeMs = p.target(IterationTimeMs, ranges::timeMs);
    m.stageTimeMs = p.target(StageTimeMs, ranges::timeMs);
    m.peakMemMiB = p.target(PeakMemMiB, ranges::memoryMiB);
    parseAnnotations(p, m);
    parsePrecisionColumns(p, m);
    if (p.present(PeakMemKindCol) && !parseMemoryKind(p.cell(PeakMemKindCol), m.peakMemKind))
        p.fail(PeakMemKindCol,
               "peak_mem_kind must be empty (allocated) or allocated|reserved|device, " + p.got(PeakMemKindCol));

    checkRow(p, m);
    if (kind == MeasurementCsv::Kind::Measurements && !m.hasTarget())
        throw InputError(file, lineField(line),
                         "a row needs at least one of iteration_time_ms, stage_time_ms, peak_mem_mib");
    return m;
}

// Fields every row of one run must agree on (stage rows may differ in
// gpu_type, tp, recompute, stage and the targets).
constexpr Col kRunFields[] = {Source,
                              NumGpus,
                              Pp,
                              Dp,
                              Vp,
                              Mbs,
                              Gbs,
                              SeqLen,
                              NumLayers,
                              Hidden,
                              FfnHidden,
                              Heads,
                              QueryGroups,
                              Vocab,
                              ClusterCol,
                              PrecisionCol,
                              PeakMemKindCol,
                              MlpCol,
                              TiedCol,
                              AttentionCol,
                              AttentionDropoutCol,
                              HiddenDropoutCol,
                              SequenceParallelCol,
                              DistributedOptimizerCol,
                              OverlapGradReduceCol,
                              OverlapParamGatherCol,
                              PositionEmbeddingCol,
                              NormalizationCol,
                              BiasLinearCol,
                              Fp32MatmulCol};

std::string runValue(const Measurement& m, Col c)
{
    switch (c) {
    case Source: return toString(m.source);
    case NumGpus: return std::to_string(m.numGpus);
    case Pp: return std::to_string(m.pp);
    case Dp: return std::to_string(m.dp);
    case Vp: return std::to_string(m.vp);
    case Mbs: return std::to_string(m.mbs);
    case Gbs: return std::to_string(m.gbs);
    case SeqLen: return std::to_string(m.seqLen);
    case NumLayers: return std::to_string(m.numLayers);
    case Hidden: return std::to_string(m.hidden);
    case FfnHidden: return std::to_string(m.ffnHidden);
    case Heads: return std::to_string(m.heads);
    case QueryGroups: return std::to_string(m.queryGroups);
    case Vocab: return std::to_string(m.vocab);
    case ClusterCol: return quote(m.cluster);
    case PrecisionCol: return toString(m.precision);
    case PeakMemKindCol: return toString(m.peakMemKind);
    case MlpCol: return toString(m.mlp);
    case TiedCol: return m.tiedEmbeddings ? "true" : "false";
    case AttentionCol: return attentionName(m.flashAttention);
    case AttentionDropoutCol: return Text::shortest(m.attentionDropout);
    case HiddenDropoutCol: return Text::shortest(m.hiddenDropout);
    case SequenceParallelCol: return m.sequenceParallel ? "true" : "false";
    case DistributedOptimizerCol: return m.distributedOptimizer ? "true" : "false";
    case OverlapGradReduceCol: return m.overlapGradReduce ? "true" : "false";
    case OverlapParamGatherCol: return m.overlapParamGather ? "true" : "false";
    case PositionEmbeddingCol: return toString(m.style.position);
    case NormalizationCol: return toString(m.style.norm);
    case BiasLinearCol: return m.style.linearBias ? "true" : "false";
    case Fp32MatmulCol: return toString(m.fp32Matmul);
    default: return {};
    }
}

std::string number(double v) { return Text::shortest(v); }

std::string csvText(const std::string& s)
{
    bool needs = s.empty() || s.front() == '#' || isBlank(s.front()) || isBlank(s.back());
    for (char c : s)
        needs = needs || c == ',' || c == '"' || c == '\n' || c == '\r';
    if (!needs)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

}  // namespace

const std::vector<std::string>& MeasurementCsv::columns()
{
    static const std::vector<std::string> cols(std::begin(kNames), std::end(kNames));
    return cols;
}

MeasurementSet MeasurementCsv::read(const std::string& file, Kind kind)
{
    return parse(InputFile::read(file, InputFile::kMaxCsvBytes, "a measurement file"), file, kind);
}

// One run's rows so far, for the checks across its rows.
struct RunInfo {
    size_t firstRow;
    int firstLine;
    int stagesSeen = 0;
    int layerSum = 0;
};

// The header row: each known column's index (unknown ones warned about in
// `warnings`), the required ones present and, for measurements, a target;
// returns the number of fields every row must have.
size_t readHeader(const Record& rec, const std::string& file, MeasurementCsv::Kind kind, int (&index)[ColCount],
                  std::vector<std::string>& warnings)
{
    std::set<std::string> unknownSeen;  // n log n: a header may have very many columns
    std::vector<std::string> unknown;  // in header order
    for (size_t i = 0; i < rec.fields.size(); ++i) {
        const std::string& name = rec.fields[i];
        int c = 0;
        while (c < ColCount && name != kNames[c])
            ++c;
        if (c == ColCount) {
            if (name.empty())
                throw InputError(file, lineField(rec.line) + ", column " + std::to_string(i + 1),
                                 "empty column name in the header");
            if (!unknownSeen.insert(name).second)
                throw InputError(file, lineField(rec.line) + ", column " + name, "column given twice in the header");
            unknown.push_back(name);
            continue;
        }
        if (index[c] >= 0)
            throw InputError(file, cellField(rec.line, static_cast<Col>(c)), "column given twice in the header");
        index[c] = static_cast<int>(i);
    }
    for (Col c : kRequired)
        if (index[c] < 0) {
            std::string all;
            for (Col r : kRequired)
                all += std::string(all.empty() ? "" : ", ") + kNames[r];
            throw InputError(file, cellField(rec.line, c),
                             "required column missing from the header; required columns: " + all);
        }
    if (kind == MeasurementCsv::Kind::Measurements && index[IterationTimeMs] < 0 && index[StageTimeMs] < 0
        && index[PeakMemMiB] < 0)
        throw InputError(file, lineField(rec.line),
                         "the header has no target column; give at least one of iteration_time_ms, "
                         "stage_time_ms, peak_mem_mib");
    if (!unknown.empty()) {
        std::string list;
        for (std::size_t u = 0; u < unknown.size() && u < 20; ++u)
            list += (list.empty() ? "" : ", ") + unknown[u];
        if (unknown.size() > 20)
            list += " and " + std::to_string(unknown.size() - 20) + " more";
        warnings.push_back((file.empty() ? std::string("<input>") : file) + ": " + lineField(rec.line)
                           + ": ignoring unknown column" + (unknown.size() > 1 ? "s " : " ") + list);
    }
    return rec.fields.size();
}

void checkUtf8(const Record& rec, const int (&index)[ColCount], const std::string& file)
{
    // Text goes into JSON (predictor files, reports): refuse bytes that
    // are not UTF-8 here, where the line and column are known.
    for (size_t i = 0; i < rec.fields.size(); ++i)
        if (const size_t bad = Text::invalidUtf8(rec.fields[i]); bad != std::string::npos) {
            std::string column;
            for (int c = 0; c < ColCount; ++c)
                if (index[c] == static_cast<int>(i))
                    column = kNames[c];
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(rec.fields[i][bad]));
            throw InputError(file,
                             lineField(rec.line) + ", column " + (column.empty() ? std::to_string(i + 1) : column),
                             std::string("invalid UTF-8: byte ") + hex + " at character " + std::to_string(bad + 1)
                                 + " of the cell; save the file as UTF-8");
        }
}

// Rows of one run agree on the run-level fields, and its stages' layers add
// up to the model's.
void checkRun(const RowParser& p, const Measurement& m, const std::vector<Measurement>& rows,
              std::map<std::string, RunInfo>& runs, int line)
{
    auto [it, fresh] = runs.try_emplace(m.runId, RunInfo{rows.size(), line});
    RunInfo& run = it->second;
    if (!fresh) {
        const Measurement& first = rows[run.firstRow];
        for (Col c : kRunFields)
            if (runValue(m, c) != runValue(first, c))
                p.fail(c,
                       std::string(kNames[c]) + " " + runValue(m, c) + " differs from " + runValue(first, c)
                           + " on line " + std::to_string(run.firstLine) + " of the same run " + quote(m.runId)
                           + "; rows of one run must agree on it");
    }
    if (m.stage) {
        ++run.stagesSeen;
        run.layerSum += *m.stageLayers;
        if (run.layerSum > m.numLayers || (run.stagesSeen == m.pp && run.layerSum != m.numLayers))
            p.fail(StageLayers,
                   "stage_layers of run " + quote(m.runId) + " add up to " + std::to_string(run.layerSum) + " over "
                       + std::to_string(run.stagesSeen) + " stage(s), but num_layers is "
                       + std::to_string(m.numLayers));
    }
}

MeasurementSet MeasurementCsv::parse(const std::string& text, const std::string& file, Kind kind)
{
    // Lines that end in a bare carriage return (classic Mac OS) would read as
    // one line whose header repeats every column: say what it is instead.
    if (const std::size_t cr = text.find('\r');
        cr != std::string::npos && (cr + 1 == text.size() || text[cr + 1] != '\n') && cr < text.find('\n'))
        throw InputError(file, "line 1",
                         "lines end in a bare carriage return (CR, classic Mac OS line endings); save the file with "
                         "LF or CRLF line endings");
    MeasurementSet set;
    Tokenizer tok(text, file);
    Record rec;
    int index[ColCount];
    for (int& i : index)
        i = -1;
    size_t headerSize = 0;
    bool haveHeader = false;

    std::map<std::string, RunInfo> runs;
    std::map<std::pair<std::string, int>, int> keys;  // (run_id, stage or -1) -> line

    while (tok.next(rec)) {
        if (rec.skip) {
            const std::string tag = "format:";
            if (rec.comment.compare(0, tag.size(), tag) == 0) {
                const std::string fmt = trim(rec.comment.substr(tag.size()));
                if (fmt != kMeasurementFormat)
                    throw InputError(file, lineField(rec.line),
                                     "unsupported format " + quote(fmt) + "; this reader knows " + kMeasurementFormat);
            }
            continue;
        }
        if (!haveHeader) {
            haveHeader = true;
            headerSize = readHeader(rec, file, kind, index, set.warnings);
            continue;
        }
        if (rec.fields.size() != headerSize)
            throw InputError(file, lineField(rec.line),
                             "expected " + std::to_string(headerSize) + " fields as in the header, found "
                                 + std::to_string(rec.fields.size()));
        checkUtf8(rec, index, file);
        const RowParser p(file, rec.line, rec.fields, index);
        Measurement m = parseRow(p, rec.line, file, kind);

        // Uniqueness of (run_id, stage).
        const auto key = std::make_pair(m.runId, m.stage.value_or(-1));
        if (const auto it = keys.find(key); it != keys.end())
            p.fail(m.stage ? Stage : RunId,
                   "duplicate (run_id, stage) = (" + m.runId + ", " + (m.stage ? std::to_string(*m.stage) : "run row")
                       + "); first given on line " + std::to_string(it->second));
        keys.emplace(key, rec.line);

        checkRun(p, m, set.rows, runs, rec.line);
        set.rows.push_back(std::move(m));
    }
    if (!haveHeader) {
        std::string all;
        for (const char* c : kNames)
            all += std::string(all.empty() ? "" : ",") + c;
        throw InputError(file, lineField(1),
                         "no header row; a measurement file starts with the column names, e.g. " + all);
    }
    return set;
}

std::string MeasurementCsv::write(const std::vector<Measurement>& rows)
{
    std::string out = std::string("# format: ") + kMeasurementFormat + "\n";
    // `cluster`, `precision`, `peak_mem_kind`, `mlp`, `tied_embeddings`,
    // `attention`, the dropout rates, `sequence_parallel` and
    // `distributed_optimizer`, the overlap flags and the layer style only
    // when a row needs them, so files without them stay as they were.
    const auto any = [&](auto pred) { return std::any_of(rows.begin(), rows.end(), pred); };
    const bool withMatmul = any([](const Measurement& m) { return m.fp32Matmul != Fp32Matmul::Unstated; });
    const bool withStyle = withMatmul || any([](const Measurement& m) { return !(m.style == LayerStyle{}); });
    const bool withOverlap
        = withStyle || any([](const Measurement& m) { return m.overlapGradReduce || m.overlapParamGather; });
    const bool withParallel
        = withOverlap || any([](const Measurement& m) { return !m.sequenceParallel || !m.distributedOptimizer; });
    const bool withDropout
        = withParallel || any([](const Measurement& m) { return m.attentionDropout > 0 || m.hiddenDropout > 0; });
    const bool withAttention = withDropout || any([](const Measurement& m) { return !m.flashAttention; });
    const bool withTied = withAttention || any([](const Measurement& m) { return m.tiedEmbeddings; });
    const bool withMlp = withTied || any([](const Measurement& m) { return m.mlp != MlpKind::SwiGlu; });
    const bool withKinds = withMlp || any([](const Measurement& m) {
                               return m.precision != Precision::Bf16 || m.peakMemKind != MemoryKind::Allocated;
                           });
    const bool withCluster = withKinds || any([](const Measurement& m) { return !m.cluster.empty(); });
    const int cols = withMatmul ? ColCount
        : withStyle             ? Fp32MatmulCol
        : withOverlap           ? PositionEmbeddingCol
        : withParallel          ? OverlapGradReduceCol
        : withDropout           ? SequenceParallelCol
        : withAttention         ? AttentionDropoutCol
        : withTied              ? AttentionCol
        : withMlp               ? TiedCol
        : withKinds             ? MlpCol
        : withCluster           ? PrecisionCol
                                : ClusterCol;
    for (int c = 0; c < cols; ++c)
        out += std::string(c ? "," : "") + kNames[c];
    out += '\n';
    const auto opt = [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::optional<int>>)
            return v ? std::to_string(*v) : std::string();
        else
            return v ? number(*v) : std::string();
    };
    for (const Measurement& m : rows) {
        const std::string cells[ColCount] = {csvText(m.runId),
                                             toString(m.source),
                                             csvText(m.gpuType),
                                             std::to_string(m.numGpus),
                                             std::to_string(m.tp),
                                             std::to_string(m.pp),
                                             std::to_string(m.dp),
                                             std::to_string(m.vp),
                                             std::to_string(m.mbs),
                                             std::to_string(m.gbs),
                                             std::to_string(m.seqLen),
                                             std::to_string(m.numLayers),
                                             std::to_string(m.hidden),
                                             std::to_string(m.ffnHidden),
                                             std::to_string(m.heads),
                                             std::to_string(m.queryGroups),
                                             std::to_string(m.vocab),
                                             toString(m.recompute),
                                             opt(m.stage),
                                             opt(m.stageLayers),
                                             opt(m.iterationTimeMs),
                                             opt(m.stageTimeMs),
                                             opt(m.peakMemMiB),
                                             m.provenance.empty() ? std::string() : csvText(m.provenance),
                                             opt(m.uncertainty),
                                             opt(m.estimatedGpuHours),
                                             m.cluster.empty() ? std::string() : csvText(m.cluster),
                                             toString(m.precision),
                                             toString(m.peakMemKind),
                                             toString(m.mlp),
                                             m.tiedEmbeddings ? "true" : "false",
                                             attentionName(m.flashAttention),
                                             number(m.attentionDropout),
                                             number(m.hiddenDropout),
                                             m.sequenceParallel ? "true" : "false",
                                             m.distributedOptimizer ? "true" : "false",
                                             m.overlapGradReduce ? "true" : "false",
                                             m.overlapParamGather ? "true" : "false",
                                             toString(m.style.position),
                                             toString(m.style.norm),
                                             m.style.linearBias ? "true" : "false",
                                             toString(m.fp32Matmul)};
        for (int c = 0; c < cols; ++c)
            out += (c ? "," : "") + cells[c];
        out += '\n';
    }
    return out;
}

std::string MeasurementCsv::checkedText(const std::string& file, const std::vector<Measurement>& rows, Kind kind)
{
    std::string text = write(rows);
    parse(text, file, kind);  // never write a file this reader would refuse
    return text;
}

void MeasurementCsv::save(const std::string& file, const std::vector<Measurement>& rows, Kind kind)
{
    writeFileAtomically(file, checkedText(file, rows, kind));
}

}  // namespace memx
