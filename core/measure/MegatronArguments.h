#pragma once

#include "io/InputError.h"
#include "model/Recompute.h"
#include "measure/Measurement.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memx {

// " > padded vocab (size: 50257) with 175 dummy tokens (new size: 50432)",
// printed by the tokenizer builder after the argument dump.
struct PaddedVocabLine {
    int size = 0;  // the tokenizer's vocabulary
    int padded = 0;  // what the embedding is built with
    int line = 0;
};

// Thrown by MegatronArguments::toRun when the dump lacks a value the
// measurement needs (absent or None), as opposed to a value that is wrong or
// describes what is not modelled: with a run list to take the value from, the
// log is still usable.
class MissingArgument : public InputError {
public:
    using InputError::InputError;
};

// Where a value of a DumpedRun comes from.
struct ArgumentSource {
    std::string argument;  // e.g. "tensor_model_parallel_size", or "world_size / (TP x PP x CP)"
    std::string value;  // as printed in the dump ("" when defaulted)
    int line = 0;  // 0: absent from the dump, Megatron's default applies
};

// The run an argument dump describes, in the measurement format's terms.
struct DumpedRun {
    std::string file;
    Measurement config;  // run-level fields; runId, gpuType, numGpus and targets are left empty
    std::vector<int> stageLayers;  // decoder layers per pipeline stage, pipeline order
    std::vector<Recompute> stageRecompute;  // per pipeline stage
    int cp = 1;
    int worldSize = 0;
    int logInterval = 0;  // --log-interval; 0 when the dump does not say
    std::vector<int> vocabAliases;  // every vocabulary size the run is known by (padded and not)
    bool tpPpDpMapping = false;  // --use-tp-pp-dp-mapping (rank order)
    std::string precision = "fp32";  // bf16 | fp16 | fp32
    bool sequenceParallel = false;
    bool distributedOptimizer = false;  // --use-distributed-optimizer, or DeepSpeed ZeRO stage >= 1
    int recomputeChunkLayers = 1;  // --recompute-num-layers with --recompute-method uniform
    // Measurement column (tp, pp, dp, vp, mbs, gbs, seq_len, num_layers,
    // hidden, ffn_hidden, heads, query_groups, vocab, recompute, stage_layers)
    // or setting (precision, sequence_parallel, distributed_optimizer) -> its source.
    std::map<std::string, ArgumentSource> sources;

    // What the planner's model assumes and this run does not, one message
    // per difference ("file: line N, argument X = V: why"): bf16/fp16 mixed
    // precision, optimizer state sharded over DP (DP > 1), sequence
    // parallelism (TP > 1), full recomputation keeping every layer's input.
    std::vector<std::string> unmodelledSetup() const;
    // "file: line N, argument X" (or "file: argument X (absent)") for a column or setting.
    std::string where(const std::string& column) const;
};

// The argument dump every Megatron-LM / Megatron-DeepSpeed run prints at start
// (rank 0, arguments.py _print_args):
//   ------------------------ arguments ------------------------
//     accumulate_allreduce_grads_in_fp32 .............. False
//     ...                                                (sorted, case-insensitive)
//   -------------------- end of arguments ---------------------
// Each line is "  " + name + " " + dots + " " + str(value), the dots padding
// the name to 48 characters (32 in 2020, with 20/16-dash banners); a name of
// 48 or more characters gets no dots. Values are Python's str(): None, True,
// False, 8, 1e-05, torch.bfloat16, bare strings, and reprs inside lists
// (['core_attn'], [1, 2]); quotes around a whole value are accepted too.
class MegatronArguments {
public:
    MegatronArguments() = default;
    MegatronArguments(std::string file, int startLine);

    static bool isStartBanner(std::string_view line);  // trimmed or not
    static bool isEndBanner(std::string_view line);
    // Reads one "name ..... value" line; false (nothing added) for any other line.
    bool addLine(std::string_view line, int lineNo);
    void finish(int endLine) { endLine_ = endLine; }

    const std::string& file() const { return file_; }
    int startLine() const { return startLine_; }
    int endLine() const { return endLine_; }  // 0: no end banner (the dump is cut)
    bool complete() const { return endLine_ > 0; }
    std::size_t size() const { return entries_.size(); }
    const std::string& lastArgument() const { return lastName_; }  // the last one read, for a cut dump
    int lastLine() const { return lastLine_; }

    bool has(const std::string& name) const { return entries_.count(name) > 0; }
    int line(const std::string& name) const;  // 0 when absent
    std::optional<std::string> raw(const std::string& name) const;  // as printed
    // Typed values: nullopt when absent or None. Throw InputError(file,
    // "line N, argument NAME", reason) when the value is not of that type.
    std::optional<std::string> text(const std::string& name) const;  // quotes around it removed
    std::optional<long long> integer(const std::string& name) const;
    std::optional<bool> flag(const std::string& name) const;
    std::optional<std::vector<std::string>>
    list(const std::string& name) const;  // "[a, 'b']"; a scalar is a list of one

    // The run the dump describes. Throws InputError naming the file, the line
    // and the argument that is missing (MissingArgument, with the banner's
    // line), contradicts another, or describes what the measurement format
    // cannot hold (MoE, context parallelism, batch-size ramp-up, partial
    // recomputation). The
    // padded vocabulary line, when the log has one, stands in for a
    // padded_vocab_size the dump lacks (it is set after the dump is printed).
    DumpedRun toRun(const std::optional<PaddedVocabLine>& paddedVocab = {}) const;

    // The first argument toRun reads whose printed value differs between the
    // two dumps (two starts of one log); empty when they agree.
    std::string firstDifference(const MegatronArguments& other) const;
    // Every argument name toRun reads.
    static const std::vector<std::string>& runArgumentNames();

    // Throw InputError (MissingArgument) naming the file, the argument's line (or the banner's) and the argument.
    [[noreturn]] void fail(const std::string& name, const std::string& reason) const;
    [[noreturn]] void failMissing(const std::string& name, const std::string& reason) const;

private:
    struct Entry {
        std::string value;
        int line = 0;
    };
    std::string file_;
    int startLine_ = 0;
    int endLine_ = 0;
    std::map<std::string, Entry> entries_;
    std::string lastName_;
    int lastLine_ = 0;
};

}  // namespace memx
