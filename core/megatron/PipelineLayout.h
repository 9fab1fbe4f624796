#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace memx {

// Decoder layers per pipeline stage as Megatron-LM splits them, from the
// arguments a run was started with. Every function throws
// std::invalid_argument with the reason when Megatron would refuse the split.
//
// Source: NVIDIA/Megatron-LM main @ d98e8a6 (reference/EXPORT_AND_LOGS.md
// section 1): parse_str_to_list in core/transformer/pipeline_parallel_layer_layout.py,
// get_num_layers_to_build in core/transformer/transformer_block.py, and the
// divisibility rules of arguments.py:926-998.
class PipelineLayout {
public:
    // --pipeline-model-parallel-layout, e.g. "Et*10|t*8|t*8|t*6L" or
    // "Et*4|(t*4|)*6,t*4L": commas removed, "(...)*n" expanded, then "x*n",
    // split on '|'; 't' is a decoder layer, 'E' (embedding), 'L' (loss) and
    // 'm' (MTP) are not. Returns the decoder layers of each of the P*v
    // entries; entry vpp*P + pp belongs to pipeline stage pp.
    static std::vector<int> entries(std::string_view layout);

    // Decoder layers per pipeline stage (the sum over its virtual chunks) of
    // a layout with pp stages; also the virtual stages per stage (entries / pp).
    static std::vector<int> stageLayers(const std::vector<int>& entries, int pp, int& virtualStages);

    // --decoder-first/last-pipeline-num-layers: the given stage(s) take that
    // many, the middle stages share the rest evenly.
    static std::vector<int> firstLast(int layers, int pp, std::optional<int> first, std::optional<int> last);

    // No layout flags: an even split; with --account-for-embedding/loss-in-
    // pipeline-split the embedding (loss) counts as one layer of the first
    // (last) stage.
    static std::vector<int> even(int layers, int pp, bool embeddingCounts, bool lossCounts);
};

}  // namespace memx
