#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace memx {

class JsonReader;

// A LLaMA-style decoder-only transformer: RMSNorm, GQA attention, SwiGLU MLP,
// untied input embedding and output layer.
struct ModelSpec {
    std::string name;
    int numLayers = 0;
    int hidden = 0;       // h
    int heads = 0;        // a
    int headDim = 0;      // d (a * d is usually h)
    int queryGroups = 0;  // g, KV heads; g == a is plain multi-head attention
    int ffnHidden = 0;    // f, SwiGLU inner size
    int vocab = 0;        // V
    int seqLen = 0;       // default training sequence length
    bool tiedEmbeddings = false;
    std::string source;

    static const std::vector<ModelSpec>& presets();
    static const ModelSpec* findPreset(const std::string& name);
    // A preset name, or a path to a memx-model/1 JSON file.
    static ModelSpec resolve(const std::string& nameOrFile);
    static ModelSpec fromJson(const JsonReader& json);
    nlohmann::json toJson() const;

    // SwiGLU sizing used by LLaMA when a custom model omits ffn_hidden:
    // 2/3 * 4h rounded up to a multiple of 256.
    static int defaultFfn(int hidden);
};

}  // namespace memx
