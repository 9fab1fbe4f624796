#pragma once

#include "measure/MegatronArguments.h"
#include "measure/MegatronLog.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memx {

// Reads single lines of a training log (launcher prefixes already removed,
// see LogLinePrefixes). Stateless; MegatronLogParser strings them together.
class MegatronLogLine {
public:
    enum class Kind {
        None,  // not this kind of line
        Record,  // read into `out`
        Damaged,  // this kind of line, but cut or garbled: `problem` says how ("...; skipped")
    };

    // Megatron-LM / Megatron-DeepSpeed / Megatron-Bridge:
    // " [2026-03-02 10:14:05.118204] iteration       10/     200 | consumed samples: ... |
    //   elapsed time per iteration (ms): 2411.8 | ... |" (one physical line,
    // ending in '|'). On Damaged, out.iteration still holds N when it was read.
    static Kind iteration(std::string_view content, IterationRecord& out, std::string& problem);

    // NeMo: a line with "train_step_timing in s", either Lightning's progress
    // bar "Epoch 0: : 10/100 [..., reduced_train_loss=3.2, global_step=9.000,
    // consumed_samples=80.0, train_step_timing in s=1.23]" or NeMo 2's
    // "Training epoch 0, iteration 9/99 | lr: ... | global_step: 9 | ... |
    // train_step_timing in s: 1.234". The step is global_step + 1 (NeMo's
    // global_step counts completed steps before this one), else the bar's n.
    static Kind nemoStep(std::string_view content, IterationRecord& out, std::string& problem);

    // "[Rank R] (after N iterations) memory (MB) | allocated: ... | max allocated: ... | reserved: ... |
    // max reserved: ...", the 2020 form without rank (and with cached / max
    // cached), and Megatron-Bridge's "memory (GB) | mem-allocated-gigabytes: ... |".
    static Kind memory(std::string_view content, MemoryRecord& out, std::string& problem);

    // " > padded vocab (size: 50257) with 175 dummy tokens (new size: 50432)".
    static std::optional<PaddedVocabLine> paddedVocab(std::string_view content, int line);

    // A line Megatron prints when training (re)starts, before the first
    // iteration: "training ..." / "Training ...", "[before the start of
    // training step] datetime: ...", "loading checkpoint from ... at
    // iteration N", "successfully loaded checkpoint from ...", and
    // "[after training is done] ..." (whatever follows is another start).
    static bool marksStart(std::string_view content);

    // A line that begins a record of its own (iteration, memory, timer block,
    // argument banner, start marker), so it cannot continue a wrapped line.
    static bool beginsRecord(std::string_view content);

    // The trimmed "key: value" pieces between '|' separators; a piece without
    // a key (no ':', or nothing before it) goes to `bad`.
    struct Fields {
        std::vector<std::pair<std::string, std::string>> kv;
        std::vector<std::string> bad;
    };
    static Fields fields(std::string_view rest);
};

}  // namespace memx
