#pragma once

#include "model/ModelSpec.h"
#include "predict/StageQuery.h"

// Made-up models whose formulas can be checked with pencil and paper.
namespace memx::test {

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
