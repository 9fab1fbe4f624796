#include "model/ModelSpec.h"

#include "io/EmbeddedResources.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <filesystem>

namespace memx {

int ModelSpec::defaultFfn(int hidden, MlpKind mlp)
{
    // 64-bit: 8 * hidden overflows int from hidden = 268,435,456 on.
    const long long f = (8LL * hidden) / 3;
    const long long rounded = mlp == MlpKind::Gelu ? 4LL * hidden : (f + 255) / 256 * 256;
    return rounded > INT_MAX ? INT_MAX : static_cast<int>(rounded);
}

ModelSpec ModelSpec::fromJson(const JsonReader& json)
{
    ModelSpec m;
    m.name = json.name("name", "custom");
    auto count = [&](const char* key, const Range& r) { return json.integerInRange(key, r); };
    m.numLayers = count("num_layers", ranges::numLayers);
    m.hidden = count("hidden", ranges::hidden);
    m.heads = count("heads", ranges::heads);
    m.headDim = json.has("head_dim") ? count("head_dim", ranges::headDim) : m.hidden / m.heads;
    if (!json.has("head_dim") && m.hidden % m.heads != 0)
        json.fail("hidden is not divisible by heads; give head_dim explicitly", "heads");
    m.queryGroups = json.has("query_groups") ? count("query_groups", ranges::queryGroups) : m.heads;
    if (m.heads % m.queryGroups != 0)
        json.fail("heads (" + std::to_string(m.heads) + ") must be a multiple of query_groups", "query_groups");
    if (json.has("mlp")) {
        const std::string mlp = json.string("mlp");
        if (!parseMlpKind(mlp, m.mlp))
            json.fail("mlp must be swiglu or gelu, got \"" + mlp + "\"", "mlp");
    }
    m.ffnHidden = json.has("ffn_hidden") ? count("ffn_hidden", ranges::ffnHidden) : defaultFfn(m.hidden, m.mlp);
    m.vocab = count("vocab", ranges::vocab);
    m.seqLen = json.has("seq_len") ? count("seq_len", ranges::seqLen) : 4096;
    m.tiedEmbeddings = json.boolean("tied_embeddings", false);
    // The layer style; a model file without it is LLaMA-style, as every
    // model was before these keys existed.
    if (json.has("position_embedding")) {
        const std::string p = json.string("position_embedding");
        if (!parsePositionEmbedding(p, m.style.position))
            json.fail("position_embedding must be rope, learned_absolute or none, got \"" + p + "\"",
                      "position_embedding");
    }
    if (json.has("normalization")) {
        const std::string n = json.string("normalization");
        if (!parseNormalization(n, m.style.norm))
            json.fail("normalization must be rmsnorm or layernorm, got \"" + n + "\"", "normalization");
    }
    m.style.linearBias = json.boolean("bias_linear", false);
    m.source = json.string("source", "");
    return m;
}

nlohmann::json ModelSpec::toJson() const
{
    nlohmann::json j = {{"format", "memx-model/1"},
                        {"name", name},
                        {"num_layers", numLayers},
                        {"hidden", hidden},
                        {"heads", heads},
                        {"head_dim", headDim},
                        {"query_groups", queryGroups},
                        {"ffn_hidden", ffnHidden},
                        {"mlp", toString(mlp)},
                        {"vocab", vocab},
                        {"seq_len", seqLen},
                        {"tied_embeddings", tiedEmbeddings},
                        {"position_embedding", toString(style.position)},
                        {"normalization", toString(style.norm)},
                        {"bias_linear", style.linearBias}};
    // A model read with "allow_outside_range" keeps it, so that it reads back.
    if (!ranges::numLayers.plausible(numLayers) || !ranges::hidden.plausible(hidden) || !ranges::heads.plausible(heads)
        || !ranges::headDim.plausible(headDim) || !ranges::queryGroups.plausible(queryGroups)
        || !ranges::ffnHidden.plausible(ffnHidden) || !ranges::vocab.plausible(vocab)
        || !ranges::seqLen.plausible(seqLen))
        j["allow_outside_range"] = true;
    return j;
}

const std::vector<ModelSpec>& ModelSpec::presets()
{
    static const std::vector<ModelSpec> list = [] {
        const std::string file = "resources/model_presets.json";
        auto doc = JsonReader::parseText(resources::modelPresetsJson(), file);
        JsonReader root(doc, file);
        root.requireFormat("memx-model-presets/1");
        std::vector<ModelSpec> out;
        for (const auto& m : root.at("models").items())
            out.push_back(fromJson(m));
        return out;
    }();
    return list;
}

const ModelSpec* ModelSpec::findPreset(const std::string& name)
{
    for (const auto& m : presets())
        if (m.name == name)
            return &m;
    return nullptr;
}

ModelSpec ModelSpec::resolve(const std::string& nameOrFile)
{
    if (const ModelSpec* p = findPreset(nameOrFile))
        return *p;
    if (!std::filesystem::exists(nameOrFile)) {
        std::string known;
        for (const auto& m : presets())
            known += (known.empty() ? "" : ", ") + m.name;
        throw InputError("--model", nameOrFile, "neither a preset (" + known + ") nor an existing model file");
    }
    auto doc = JsonReader::parseFile(nameOrFile);
    JsonReader root(doc, nameOrFile);
    root.requireFormat("memx-model/1");
    return fromJson(root);
}

}  // namespace memx
