// Over 600 lines: the argument dumps of Megatron-LM (2020-2026), Megatron-DeepSpeed and NeMo, and how each argument
// maps onto a run.
#include "measure/MegatronArguments.h"

#include "io/InputError.h"
#include "model/AttentionKind.h"
#include "model/Dropout.h"
#include "io/LogText.h"
#include "megatron/PipelineLayout.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace memx {

namespace {

using sv = std::string_view;
using T = LogText;

// "------------------------ arguments ------------------------" (and the
// 2020 form with 20 dashes): dashes, the title, dashes.
bool isBanner(sv line, sv title)
{
    const sv t = T::trim(line);
    size_t a = 0;
    while (a < t.size() && t[a] == '-')
        ++a;
    size_t b = t.size();
    while (b > a && t[b - 1] == '-')
        --b;
    return a >= 3 && t.size() - b >= 3 && T::trim(t.substr(a, b - a)) == title;
}

std::string unquote(sv v)
{
    v = T::trim(v);
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
    return std::string(v);
}

// Dots pad names to 48 characters (32 in 2020); a name that long gets none.
constexpr size_t kShortestUnpaddedName = 32;

}  // namespace

MegatronArguments::MegatronArguments(std::string file, int startLine)
    : file_(std::move(file))
    , startLine_(startLine) { }

bool MegatronArguments::isStartBanner(std::string_view line) { return isBanner(line, "arguments"); }

bool MegatronArguments::isEndBanner(std::string_view line) { return isBanner(line, "end of arguments"); }

bool MegatronArguments::addLine(std::string_view line, int lineNo)
{
    const sv t = T::rtrim(T::ltrim(line));
    size_t n = 0;
    while (n < t.size() && T::isIdentifier(t[n]))
        ++n;
    if (n == 0 || T::isDigit(t[0]) || n >= t.size() || t[n] != ' ')
        return false;
    size_t i = n + 1;
    const size_t dotsFrom = i;
    while (i < t.size() && t[i] == '.')
        ++i;
    const size_t dots = i - dotsFrom;
    if (dots == 0 && n < kShortestUnpaddedName)
        return false;
    if (i < t.size()) {
        if (t[i] != ' ')
            return false;
        ++i;
    } else if (dots == 0) {
        return false;
    }
    const std::string name(t.substr(0, n));
    entries_[name] = Entry{std::string(t.substr(i)), lineNo};
    lastName_ = name;
    lastLine_ = lineNo;
    return true;
}

int MegatronArguments::line(const std::string& name) const
{
    const auto it = entries_.find(name);
    return it == entries_.end() ? 0 : it->second.line;
}

std::optional<std::string> MegatronArguments::raw(const std::string& name) const
{
    const auto it = entries_.find(name);
    if (it == entries_.end())
        return std::nullopt;
    return it->second.value;
}

namespace {

std::string fieldOf(const MegatronArguments& a, const std::string& name)
{
    const int at = a.line(name);
    return at > 0 ? "line " + std::to_string(at) + ", argument " + name
                  : "argument " + name + " (not in the dump at line " + std::to_string(a.startLine()) + ")";
}

}  // namespace

void MegatronArguments::fail(const std::string& name, const std::string& reason) const
{
    throw InputError(file_, fieldOf(*this, name), reason);
}

void MegatronArguments::failMissing(const std::string& name, const std::string& reason) const
{
    throw MissingArgument(file_, fieldOf(*this, name), reason);
}

std::optional<std::string> MegatronArguments::text(const std::string& name) const
{
    const auto v = raw(name);
    if (!v || *v == "None")
        return std::nullopt;
    return unquote(*v);
}

std::optional<long long> MegatronArguments::integer(const std::string& name) const
{
    const auto v = text(name);
    if (!v)
        return std::nullopt;
    long long n = 0;
    if (!T::toInt(*v, n))
        fail(name, "expected a whole number, got \"" + *v + "\"");
    return n;
}

std::optional<bool> MegatronArguments::flag(const std::string& name) const
{
    const auto v = text(name);
    if (!v)
        return std::nullopt;
    if (*v == "True")
        return true;
    if (*v == "False")
        return false;
    fail(name, "expected True or False, got \"" + *v + "\"");
}

std::optional<std::vector<std::string>> MegatronArguments::list(const std::string& name) const
{
    const auto v = raw(name);
    if (!v || *v == "None")
        return std::nullopt;
    const sv s = T::trim(*v);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']')
        return std::vector<std::string>{unquote(s)};
    std::vector<std::string> out;
    sv rest = s.substr(1, s.size() - 2);
    while (!T::trim(rest).empty()) {
        const size_t comma = rest.find(',');
        out.push_back(unquote(rest.substr(0, comma)));
        rest = comma == sv::npos ? sv() : rest.substr(comma + 1);
    }
    return out;
}

const std::vector<std::string>& MegatronArguments::runArgumentNames()
{
    static const std::vector<std::string> names = {"tensor_model_parallel_size",
                                                   "model_parallel_size",
                                                   "pipeline_model_parallel_size",
                                                   "context_parallel_size",
                                                   "world_size",
                                                   "data_parallel_size",
                                                   "num_moe_experts",
                                                   "num_experts",
                                                   "expert_model_parallel_size",
                                                   "use_tp_pp_dp_mapping",
                                                   "micro_batch_size",
                                                   "batch_size",
                                                   "global_batch_size",
                                                   "rampup_batch_size",
                                                   "seq_length",
                                                   "num_layers",
                                                   "hidden_size",
                                                   "num_attention_heads",
                                                   "ffn_hidden_size",
                                                   "swiglu",
                                                   "untie_embeddings_and_output_weights",
                                                   "attention_backend",
                                                   "transformer_impl",
                                                   "use_flash_attn",
                                                   "use_flash_attn_v1",
                                                   "use_flash_attn_v2",
                                                   "use_flash_attn_triton",
                                                   "attention_dropout",
                                                   "hidden_dropout",
                                                   "group_query_attention",
                                                   "num_query_groups",
                                                   "padded_vocab_size",
                                                   "vocab_size",
                                                   "virtual_pipeline_model_parallel_size",
                                                   "num_virtual_stages_per_pipeline_rank",
                                                   "num_layers_per_virtual_pipeline_stage",
                                                   "pipeline_model_parallel_layout",
                                                   "decoder_first_pipeline_num_layers",
                                                   "decoder_last_pipeline_num_layers",
                                                   "account_for_embedding_in_pipeline_split",
                                                   "account_for_loss_in_pipeline_split",
                                                   "standalone_embedding_stage",
                                                   "recompute_granularity",
                                                   "recompute_activations",
                                                   "checkpoint_activations",
                                                   "recompute_method",
                                                   "activations_checkpoint_method",
                                                   "recompute_num_layers",
                                                   "activations_checkpoint_num_layers",
                                                   "checkpoint_num_layers",
                                                   "recompute_modules",
                                                   "params_dtype",
                                                   "bf16",
                                                   "fp16",
                                                   "sequence_parallel",
                                                   "use_distributed_optimizer",
                                                   "zero_stage",
                                                   "overlap_grad_reduce",
                                                   "overlap_param_gather",
                                                   "position_embedding_type",
                                                   "use_rotary_position_embeddings",
                                                   "normalization",
                                                   "add_bias_linear",
                                                   "log_interval"};
    return names;
}

std::string MegatronArguments::firstDifference(const MegatronArguments& other) const
{
    for (const std::string& name : runArgumentNames())
        if (raw(name) != other.raw(name))
            return name;
    return {};
}

std::string DumpedRun::where(const std::string& column) const
{
    const auto it = sources.find(column);
    if (it == sources.end())
        return file + ": " + column;
    const ArgumentSource& s = it->second;
    if (s.line == 0)
        return file + ": argument " + s.argument + " (absent from the dump)";
    return file + ": line " + std::to_string(s.line) + ", argument " + s.argument + " = " + s.value;
}

std::vector<std::string> DumpedRun::unmodelledSetup() const
{
    std::vector<std::string> out;
    const bool full = std::find(stageRecompute.begin(), stageRecompute.end(), Recompute::Full) != stageRecompute.end();
    if (full && recomputeChunkLayers > 1)
        out.push_back(where("recompute") + ": full recomputation in chunks of " + std::to_string(recomputeChunkLayers)
                      + " layers keeps fewer layer inputs than the planner's full recomputation (one per layer)");
    return out;
}

namespace {

// Reads what the measurement format needs from a dump, one group of
// arguments at a time, noting where each value came from.
class RunReader {
public:
    RunReader(const MegatronArguments& a, const std::optional<PaddedVocabLine>& vocab) : a_(a), vocabLine_(vocab)
    {
        run_.file = a.file();
    }

    DumpedRun read()
    {
        parallelism();
        experts();
        batch();
        model();
        vocab();
        stages();
        recompute();
        setup();
        return std::move(run_);
    }

private:
    const MegatronArguments& a_;
    const std::optional<PaddedVocabLine>& vocabLine_;
    DumpedRun run_;
    Measurement& c_ = run_.config;

    void note(const std::string& column, const std::string& name)
    {
        run_.sources[column] = ArgumentSource{name, a_.raw(name).value_or(""), a_.line(name)};
    }
    // The first of `names` the dump has (the newer spelling first).
    const char* spelling(std::initializer_list<const char*> names) const
    {
        for (const char* n : names)
            if (a_.has(n))
                return n;
        return *names.begin();
    }
    int positive(const std::string& name, std::optional<long long> v, std::optional<int> fallback = std::nullopt)
    {
        if (!v && fallback)
            return *fallback;
        if (!v)
            a_.failMissing(name, a_.has(name) ? "is None; the measurement needs it" : "missing from the argument dump");
        if (*v < 1 || *v > 1000000000)
            a_.fail(name, "must be a positive number, got " + std::to_string(*v));
        return static_cast<int>(*v);
    }
    int required(const std::string& column, const std::string& name)
    {
        note(column, name);
        return positive(name, a_.integer(name));
    }

    void parallelism()
    {
        c_.tp = required("tp", spelling({"tensor_model_parallel_size", "model_parallel_size"}));
        c_.pp = positive("pipeline_model_parallel_size", a_.integer("pipeline_model_parallel_size"), 1);
        note("pp", "pipeline_model_parallel_size");
        run_.cp = positive("context_parallel_size", a_.integer("context_parallel_size"), 1);
        if (run_.cp > 1)
            a_.fail("context_parallel_size",
                    "context parallelism (CP " + std::to_string(run_.cp)
                        + ") is not modelled by the planner or the measurement format");
        const long long mesh = static_cast<long long>(c_.tp) * c_.pp * run_.cp;
        const auto world = a_.integer("world_size");
        const auto dp = a_.integer("data_parallel_size");
        if (!world) {
            c_.dp = required("dp", "data_parallel_size");
            run_.worldSize = static_cast<int>(c_.dp * mesh);
        } else {
            if (*world < 1 || *world % mesh != 0)
                a_.fail("world_size",
                        std::to_string(*world) + " GPUs is not a multiple of TP x PP x CP = " + std::to_string(mesh));
            run_.worldSize = static_cast<int>(*world);
            c_.dp = static_cast<int>(*world / mesh);
            note("dp", "world_size");
            if (dp && *dp != c_.dp)
                a_.fail("data_parallel_size",
                        "is " + std::to_string(*dp) + " but world_size " + std::to_string(*world)
                            + " / (TP x PP x CP = " + std::to_string(mesh) + ") is " + std::to_string(c_.dp));
        }
        run_.tpPpDpMapping = a_.flag("use_tp_pp_dp_mapping").value_or(false);
        c_.numGpus = c_.tp * c_.pp * c_.dp;
    }

    void experts()
    {
        for (const char* name : {"num_moe_experts", "num_experts"}) {
            for (const std::string& e : a_.list(name).value_or(std::vector<std::string>{})) {
                long long n = 0;
                if (!LogText::toInt(e, n))
                    a_.fail(name, "expected a number of experts, got \"" + e + "\"");
                if (n > 1)
                    a_.fail(name,
                            "a mixture-of-experts model (" + e
                                + " experts) is not modelled; the planner's "
                                  "layers are dense");
            }
        }
        if (a_.integer("expert_model_parallel_size").value_or(1) > 1)
            a_.fail("expert_model_parallel_size", "expert parallelism is not modelled");
    }

    void batch()
    {
        c_.mbs = required("mbs", spelling({"micro_batch_size", "batch_size"}));
        if (a_.integer("global_batch_size")) {
            c_.gbs = required("gbs", "global_batch_size");
            if (c_.gbs % (c_.mbs * c_.dp) != 0)
                a_.fail("global_batch_size",
                        "must be a multiple of micro batch x DP = " + std::to_string(c_.mbs * c_.dp));
        } else {
            c_.gbs = c_.mbs * c_.dp;  // Megatron's default
            note("gbs", "global_batch_size");
        }
        if (a_.text("rampup_batch_size"))
            a_.fail("rampup_batch_size",
                    "batch-size ramp-up runs early iterations with smaller global batches; "
                    "a measurement holds one global batch");
        c_.seqLen = required("seq_len", "seq_length");
    }

    void model()
    {
        c_.numLayers = required("num_layers", "num_layers");
        c_.hidden = required("hidden", "hidden_size");
        c_.heads = required("heads", "num_attention_heads");
        // Megatron's MLP is plain (GeLU) unless --swiglu; a dump without the
        // argument ran with the default.
        const bool swiglu = a_.flag("swiglu").value_or(false);
        c_.mlp = swiglu ? MlpKind::SwiGlu : MlpKind::Gelu;
        note("mlp", "swiglu");
        // Megatron shares the output layer with the embedding unless told not to.
        c_.tiedEmbeddings = !a_.flag("untie_embeddings_and_output_weights").value_or(false);
        note("tied_embeddings", "untie_embeddings_and_output_weights");
        layerStyle();
        if (a_.integer("ffn_hidden_size")) {
            c_.ffnHidden = required("ffn_hidden", "ffn_hidden_size");
        } else if (swiglu) {
            a_.failMissing("ffn_hidden_size", "is missing with swiglu; the MLP size cannot be known");
        } else {
            c_.ffnHidden = 4 * c_.hidden;  // Megatron's default
            note("ffn_hidden", "ffn_hidden_size");
        }
        if (a_.flag("group_query_attention").value_or(false)) {
            c_.queryGroups = required("query_groups", "num_query_groups");
        } else {
            c_.queryGroups = c_.heads;
            note("query_groups", "group_query_attention");
        }
    }

    void vocab()
    {
        const auto size = a_.integer("vocab_size");
        if (a_.integer("padded_vocab_size")) {
            c_.vocab = required("vocab", "padded_vocab_size");
        } else if (vocabLine_) {
            c_.vocab = vocabLine_->padded;
            run_.sources["vocab"]
                = ArgumentSource{"\" > padded vocab\" (new size)", std::to_string(c_.vocab), vocabLine_->line};
        } else if (size) {
            c_.vocab = required("vocab", "vocab_size");
        } else {
            a_.failMissing("vocab_size",
                           "no vocabulary size: padded_vocab_size and vocab_size are absent or None and the "
                           "log has no \" > padded vocab (size: V) ... (new size: P)\" line");
        }
        run_.vocabAliases = {c_.vocab};
        if (size)
            run_.vocabAliases.push_back(static_cast<int>(*size));
        if (vocabLine_)
            run_.vocabAliases.push_back(vocabLine_->size);
    }

    int virtualStages()
    {
        for (const char* name : {"virtual_pipeline_model_parallel_size", "num_virtual_stages_per_pipeline_rank"})
            if (a_.integer(name)) {
                note("vp", name);
                return positive(name, a_.integer(name));
            }
        const char* perStage = "num_layers_per_virtual_pipeline_stage";
        if (!a_.integer(perStage))
            return 1;
        const int n = positive(perStage, a_.integer(perStage));
        if (c_.numLayers % (c_.pp * n) != 0)
            a_.fail(perStage,
                    std::to_string(c_.numLayers) + " layers over PP " + std::to_string(c_.pp)
                        + " do not make chunks of " + std::to_string(n));
        note("vp", perStage);
        return c_.numLayers / (c_.pp * n);
    }

    void stages()
    {
        int vp = virtualStages();
        const auto layout = a_.text("pipeline_model_parallel_layout");
        const auto first = a_.integer("decoder_first_pipeline_num_layers");
        const auto last = a_.integer("decoder_last_pipeline_num_layers");
        const char* from = layout ? "pipeline_model_parallel_layout"
            : first               ? "decoder_first_pipeline_num_layers"
            : last                ? "decoder_last_pipeline_num_layers"
                                  : "num_layers";
        if (!layout && !first && !last && a_.flag("standalone_embedding_stage").value_or(false))
            a_.fail("standalone_embedding_stage", "a stage holding only the embedding is not modelled");
        try {
            if (layout) {
                int inferred = 1;
                run_.stageLayers = PipelineLayout::stageLayers(PipelineLayout::entries(*layout), c_.pp, inferred);
                if (vp > 1 && inferred != vp)
                    throw std::invalid_argument(std::to_string(inferred) + " virtual stages per stage, but "
                                                + std::to_string(vp) + " elsewhere in the dump");
                vp = inferred;
            } else if (first || last) {
                run_.stageLayers = PipelineLayout::firstLast(c_.numLayers, c_.pp, first, last);
            } else {
                run_.stageLayers
                    = PipelineLayout::even(c_.numLayers, c_.pp,
                                           a_.flag("account_for_embedding_in_pipeline_split").value_or(false),
                                           a_.flag("account_for_loss_in_pipeline_split").value_or(false));
            }
        } catch (const std::invalid_argument& e) {
            a_.fail(from, e.what());
        }
        int total = 0;
        for (const int l : run_.stageLayers)
            total += l;
        if (total != c_.numLayers)
            a_.fail(from,
                    "the stages hold " + std::to_string(total) + " layers, but num_layers is "
                        + std::to_string(c_.numLayers));
        for (size_t s = 0; s < run_.stageLayers.size(); ++s)
            if (run_.stageLayers[s] < 1 || run_.stageLayers[s] % vp != 0)
                a_.fail(from,
                        "stage " + std::to_string(s) + " gets " + std::to_string(run_.stageLayers[s])
                            + " layers; every stage needs a positive multiple of the " + std::to_string(vp)
                            + " virtual stage(s)");
        if (vp > 1 && c_.pp < 2)
            a_.fail(from, "interleaving (" + std::to_string(vp) + " virtual stages) needs PP >= 2");
        c_.vp = vp;
        note("stage_layers", from);
    }

    void recompute()
    {
        const char* granularityName = "recompute_granularity";
        std::string granularity = a_.text(granularityName).value_or("");
        if (granularity.empty() && a_.flag("recompute_activations").value_or(false)) {
            granularity = "selective";
            granularityName = "recompute_activations";
        } else if (granularity.empty() && a_.flag("checkpoint_activations").value_or(false)) {
            granularity = "full";
            granularityName = "checkpoint_activations";
        }
        note("recompute", granularityName);
        run_.stageRecompute.assign(run_.stageLayers.size(), Recompute::None);
        if (granularity == "selective")
            selective();
        else if (granularity == "full")
            full();
        else if (!granularity.empty())
            a_.fail(granularityName, "expected full or selective, got \"" + granularity + "\"");
        c_.recompute = run_.stageRecompute.front();
    }

    void selective()
    {
        for (const std::string& m : a_.list("recompute_modules").value_or(std::vector<std::string>{"core_attn"}))
            if (m != "core_attn")
                a_.fail("recompute_modules",
                        "selective recomputation of \"" + m
                            + "\" is not modelled; the planner's selective level recomputes "
                              "the attention core (core_attn) only");
        std::fill(run_.stageRecompute.begin(), run_.stageRecompute.end(), Recompute::Selective);
    }

    void full()
    {
        const char* methodName = spelling({"recompute_method", "activations_checkpoint_method"});
        const std::string method = a_.text(methodName).value_or("uniform");
        const char* layersName
            = spelling({"recompute_num_layers", "activations_checkpoint_num_layers", "checkpoint_num_layers"});
        const int n = static_cast<int>(a_.integer(layersName).value_or(1));
        if (method == "uniform") {
            run_.recomputeChunkLayers = n;
            std::fill(run_.stageRecompute.begin(), run_.stageRecompute.end(), Recompute::Full);
            return;
        }
        if (method != "block")
            a_.fail(methodName, "expected uniform or block, got \"" + method + "\"");
        // block: the first n layers of every virtual chunk of every stage.
        for (size_t s = 0; s < run_.stageLayers.size(); ++s) {
            const int chunk = run_.stageLayers[s] / c_.vp;
            if (n >= chunk)
                run_.stageRecompute[s] = Recompute::Full;
            else if (n > 0)
                a_.fail(layersName,
                        "recompute_method block recomputes " + std::to_string(n) + " of the " + std::to_string(chunk)
                            + " layers in each chunk of stage " + std::to_string(s)
                            + "; the measurement format holds none, selective or full per stage");
        }
    }

    void setup()
    {
        const auto dtype = a_.text("params_dtype");
        if (dtype) {
            note("precision", "params_dtype");
            run_.precision = *dtype == "torch.bfloat16"                 ? "bf16"
                : (*dtype == "torch.float16" || *dtype == "torch.half") ? "fp16"
                                                                        : "fp32";
        } else if (a_.flag("bf16").value_or(false) || a_.flag("fp16").value_or(false)) {
            run_.precision = a_.flag("bf16").value_or(false) ? "bf16" : "fp16";
            note("precision", run_.precision);
        } else {
            note("precision", "bf16");
        }
        if (const auto fp8 = a_.text("fp8"); fp8 && *fp8 != "None" && run_.precision == "bf16") {
            run_.precision = "fp8";  // --fp8-format on top of --bf16: Transformer Engine fp8 GEMMs
            note("precision", "fp8");
        }
        parsePrecision(run_.precision, run_.config.precision);
        run_.sequenceParallel = a_.flag("sequence_parallel").value_or(false);
        note("sequence_parallel", "sequence_parallel");
        run_.distributedOptimizer = a_.flag("use_distributed_optimizer").value_or(false);
        note("distributed_optimizer", "use_distributed_optimizer");
        if (!run_.distributedOptimizer && a_.integer("zero_stage").value_or(0) >= 1) {
            run_.distributedOptimizer = true;  // DeepSpeed ZeRO shards the optimizer state over DP too
            note("distributed_optimizer", "zero_stage");
        }
        run_.config.sequenceParallel = run_.sequenceParallel;
        run_.config.distributedOptimizer = run_.distributedOptimizer;
        // Megatron asserts that --overlap-param-gather comes with both of
        // these; a dump without them (Megatron-FSDP allows that) is read
        // without the gather overlap, which the planner models only with both.
        run_.config.overlapGradReduce = a_.flag("overlap_grad_reduce").value_or(false);
        note("overlap_grad_reduce", "overlap_grad_reduce");
        run_.config.overlapParamGather = a_.flag("overlap_param_gather").value_or(false)
            && run_.config.overlapGradReduce && run_.distributedOptimizer;
        note("overlap_param_gather", "overlap_param_gather");
        run_.logInterval = static_cast<int>(a_.integer("log_interval").value_or(0));
        attention();
        dropout();
    }

    // Positions, norm and linear biases (model/LayerStyle.h). A dump
    // without the arguments ran Megatron's defaults, which are GPT's:
    // learned absolute positions, LayerNorm, biases on.
    void layerStyle()
    {
        c_.style = LayerStyle::gpt();
        if (const auto p = a_.text("position_embedding_type"); p && *p != "None") {
            if (!parsePositionEmbedding(*p, c_.style.position))
                a_.fail("position_embedding_type", "is " + *p + "; the planner models rope, learned_absolute and none");
        } else if (a_.flag("use_rotary_position_embeddings").value_or(false)) {
            c_.style.position = PositionEmbedding::Rope;  // Megatron-DeepSpeed's older switch
        }
        note("position_embedding",
             a_.has("position_embedding_type") ? "position_embedding_type" : "use_rotary_position_embeddings");
        if (const auto n = a_.text("normalization"); n && *n != "None") {
            if (!parseNormalization(*n, c_.style.norm))
                a_.fail("normalization", "is " + *n + "; the planner models LayerNorm and RMSNorm");
        }
        note("normalization", "normalization");
        c_.style.linearBias = a_.flag("add_bias_linear").value_or(true);
        note("bias_linear", "add_bias_linear");
    }

    // Which attention ran (model/AttentionKind.h).
    void attention()
    {
        const auto backend = a_.text("attention_backend");  // printed as the enum: AttnBackend.unfused
        const auto impl = a_.text("transformer_impl");
        if (backend) {
            std::string name = *backend;
            if (name.rfind("AttnBackend.", 0) == 0)
                name.erase(0, 12);
            if (!parseAttentionName(name, c_.flashAttention))
                a_.fail("attention_backend", "expected flash, fused, unfused, local or auto, got \"" + *backend + "\"");
            note("attention", "attention_backend");
            // Megatron's local layers run its own DotProductAttention, which
            // materialises the scores whatever the backend says.
            if (impl && *impl == "local" && c_.flashAttention) {
                c_.flashAttention = false;
                note("attention", "transformer_impl");
            }
            return;
        }
        // Megatron before --attention-backend (and Megatron-DeepSpeed):
        // FlashAttention with --use-flash-attn (or its _v1/_v2/_triton
        // variants) in any layer implementation; otherwise Transformer
        // Engine picks a fused kernel and the local layers keep the scores.
        for (const char* name : kFlashFlags)
            if (a_.flag(name).value_or(false)) {
                c_.flashAttention = true;
                note("attention", name);
                return;
            }
        if (impl) {
            c_.flashAttention = *impl == "transformer_engine";
            note("attention", "transformer_impl");
        } else {
            c_.flashAttention = false;
            note("attention", "use_flash_attn");
        }
    }

    static constexpr const char* kFlashFlags[]
        = {"use_flash_attn", "use_flash_attn_v1", "use_flash_attn_v2", "use_flash_attn_triton"};

    void dropout()
    {
        c_.attentionDropout = rate("attention_dropout", "attention_dropout");
        c_.hiddenDropout = rate("hidden_dropout", "hidden_dropout");
    }

    double rate(const std::string& column, const std::string& name)
    {
        note(column, name);
        const auto t = a_.text(name);
        if (!t)
            return kMegatronDefaultDropout;  // absent from the dump: Megatron's default
        double v = -1;
        const auto [ptr, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
        if (ec != std::errc() || ptr != t->data() + t->size() || !(v >= 0 && v < 1))
            a_.fail(name, "expected a dropout rate in [0, 1), got \"" + *t + "\"");
        return v;
    }
};

}  // namespace

DumpedRun MegatronArguments::toRun(const std::optional<PaddedVocabLine>& paddedVocab) const
{
    return RunReader(*this, paddedVocab).read();
}

}  // namespace memx
