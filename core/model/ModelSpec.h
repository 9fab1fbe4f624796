#pragma once

#include "model/LayerStyle.h"
#include "model/MlpKind.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace memx {

class JsonReader;

// A decoder-only transformer: GQA attention, a SwiGLU (LLaMA) or GeLU (GPT)
// MLP, its layer style (rotary or learned positions, RMSNorm or LayerNorm,
// linear biases or not), tied or untied input embedding and output layer.
struct ModelSpec {
    std::string name;
    int numLayers = 0;
    int hidden = 0;  // h
    int heads = 0;  // a
    int headDim = 0;  // d (a * d is usually h)
    int queryGroups = 0;  // g, KV heads; g == a is plain multi-head attention
    int ffnHidden = 0;  // f, the MLP's inner size (each of gate and up for SwiGLU)
    MlpKind mlp = MlpKind::SwiGlu;
    int vocab = 0;  // V
    int seqLen = 0;  // default training sequence length
    bool tiedEmbeddings = false;
    LayerStyle style;  // LLaMA's unless the model says otherwise
    std::string source;

    static const std::vector<ModelSpec>& presets();
    static const ModelSpec* findPreset(const std::string& name);
    // A preset name, or a path to a memx-model/1 JSON file.
    static ModelSpec resolve(const std::string& nameOrFile);
    static ModelSpec fromJson(const JsonReader& json);
    nlohmann::json toJson() const;

    // The inner size when a model omits ffn_hidden: SwiGLU as LLaMA sizes
    // it, 2/3 * 4h rounded up to a multiple of 256; GeLU as Megatron-LM's
    // default, 4h.
    static int defaultFfn(int hidden, MlpKind mlp = MlpKind::SwiGlu);
    // ffnHidden, or the default of the model's MLP kind where it is unset.
    int ffn() const { return ffnHidden > 0 ? ffnHidden : defaultFfn(hidden, mlp); }
};

}  // namespace memx
