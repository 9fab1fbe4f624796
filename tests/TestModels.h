#pragma once

#include "model/ModelSpec.h"

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

}  // namespace memx::test
