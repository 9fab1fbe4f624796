#pragma once

#include "hardware/GpuCatalog.h"
#include "model/ModelSpec.h"
#include "predict/StageQuery.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace memx::test {

// A built-in catalog type or model preset a test relies on; a missing one
// stops the test program, naming it.
inline const GpuType& catalogType(const std::string& name)
{
    const GpuType* g = GpuCatalog::builtin().find(name);
    if (!g) {
        std::fprintf(stderr, "%s missing from the built-in catalog\n", name.c_str());
        std::abort();
    }
    return *g;
}

inline const ModelSpec& presetModel(const std::string& name)
{
    const ModelSpec* m = ModelSpec::findPreset(name);
    if (!m) {
        std::fprintf(stderr, "%s missing from the model presets\n", name.c_str());
        std::abort();
    }
    return *m;
}

// Made-up models whose formulas can be checked with pencil and paper.

// h=64, a=4, d=16, g=2 (gd = 32), f=128, V=1000, L=2, s=8.
inline ModelSpec tinyModel()
{
    ModelSpec m;
    m.name = "tiny";
    m.numLayers = 2;
    m.hidden = 64;
    m.heads = 4;
    m.headDim = 16;
    m.queryGroups = 2;
    m.ffnHidden = 128;
    m.vocab = 1000;
    m.seqLen = 8;
    return m;
}

// A stage of `layers` layers of `m` on `gpu`, micro-batch b of s tokens;
// everything else at StageQuery's defaults.
inline StageQuery stageOf(const ModelSpec& m, const GpuType* gpu, int layers, int b, int s)
{
    StageQuery q;
    q.gpu = gpu;
    q.layers = layers;
    q.microBatch = b;
    q.seqLen = s;
    q.hidden = m.hidden;
    q.heads = m.heads;
    q.headDim = m.headDim;
    q.queryGroups = m.queryGroups;
    q.ffnHidden = m.ffnHidden;
    q.mlp = m.mlp;
    q.style = m.style;
    q.tiedEmbeddings = m.tiedEmbeddings;
    q.vocab = m.vocab;
    return q;
}

}  // namespace memx::test
