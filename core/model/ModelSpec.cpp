#include "model/ModelSpec.h"

#include "io/EmbeddedResources.h"
#include "io/InputError.h"
#include "io/JsonReader.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace memx {

int ModelSpec::defaultFfn(int hidden)
{
    int f = (8 * hidden) / 3;
    return (f + 255) / 256 * 256;
}

ModelSpec ModelSpec::fromJson(const JsonReader& json)
{
    ModelSpec m;
    m.name = json.string("name", "custom");
    auto count = [&](const char* key, long long lo, long long hi) {
        long long v = json.integer(key);
        if (v < lo || v > hi)
            json.fail("must be between " + std::to_string(lo) + " and " + std::to_string(hi), key);
        return static_cast<int>(v);
    };
    m.numLayers = count("num_layers", 1, 1024);
    m.hidden = count("hidden", 64, 131072);
    m.heads = count("heads", 1, 4096);
    m.headDim = json.has("head_dim") ? count("head_dim", 8, 1024) : m.hidden / m.heads;
    if (!json.has("head_dim") && m.hidden % m.heads != 0)
        json.fail("hidden is not divisible by heads; give head_dim explicitly", "heads");
    m.queryGroups = json.has("query_groups") ? count("query_groups", 1, 4096) : m.heads;
    if (m.heads % m.queryGroups != 0)
        json.fail("heads (" + std::to_string(m.heads) + ") must be a multiple of query_groups", "query_groups");
    m.ffnHidden = json.has("ffn_hidden") ? count("ffn_hidden", 1, 1 << 20) : defaultFfn(m.hidden);
    m.vocab = count("vocab", 1, 1 << 22);
    m.seqLen = json.has("seq_len") ? count("seq_len", 16, 1 << 22) : 4096;
    m.tiedEmbeddings = json.boolean("tied_embeddings", false);
    m.source = json.string("source", "");
    return m;
}

nlohmann::json ModelSpec::toJson() const
{
    return {{"format", "memx-model/1"}, {"name", name},          {"num_layers", numLayers},
            {"hidden", hidden},         {"heads", heads},        {"head_dim", headDim},
            {"query_groups", queryGroups}, {"ffn_hidden", ffnHidden}, {"vocab", vocab},
            {"seq_len", seqLen},        {"tied_embeddings", tiedEmbeddings}};
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
