#include "predict/StageQuery.h"

#include "hardware/GpuType.h"

#include <cstring>
#include <functional>
#include <string>

namespace memx {

bool StageQuery::operator==(const StageQuery& o) const
{
    return gpu == o.gpu && tp == o.tp && dp == o.dp && layers == o.layers && microBatch == o.microBatch
        && seqLen == o.seqLen && hidden == o.hidden && heads == o.heads && headDim == o.headDim
        && queryGroups == o.queryGroups && ffnHidden == o.ffnHidden && mlp == o.mlp && vocab == o.vocab
        && tiedEmbeddings == o.tiedEmbeddings && style == o.style && hasEmbedding == o.hasEmbedding
        && hasOutput == o.hasOutput && distributedOptimizer == o.distributedOptimizer
        && flashAttention == o.flashAttention && dropout == o.dropout && sequenceParallel == o.sequenceParallel
        && recompute == o.recompute && precision == o.precision && inflight == o.inflight && tpLinkGBps == o.tpLinkGBps
        && tpLatencyUs == o.tpLatencyUs && virtualStages == o.virtualStages;
}

namespace {
inline std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
    // splitmix64-style combination.
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h;
}
inline std::uint64_t bits(double d)
{
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
}
}  // namespace

std::uint64_t StageQuery::portableSignature(StageQuery& portable) const
{
    portable = *this;
    portable.gpu = nullptr;
    return portable.signature() ^ (std::hash<std::string>{}(gpu ? gpu->name : std::string()) * 0x9e3779b97f4a7c15ULL);
}

std::uint64_t StageQuery::signature() const
{
    std::uint64_t h = reinterpret_cast<std::uintptr_t>(gpu);
    for (int v :
         {tp, dp, layers, microBatch, seqLen, hidden, heads, headDim, queryGroups, ffnHidden, vocab, virtualStages})
        h = mix(h, static_cast<std::uint64_t>(v));
    h = mix(h,
            (hasEmbedding ? 1u : 0u) | (hasOutput ? 2u : 0u) | (distributedOptimizer ? 4u : 0u)
                | (flashAttention ? 8u : 0u) | (sequenceParallel ? 64u : 0u) | (tiedEmbeddings ? 128u : 0u)
                | (static_cast<unsigned>(recompute) << 4) | (static_cast<unsigned>(precision) << 8)
                | (static_cast<unsigned>(mlp) << 12) | (dropout.attention ? 1u << 16 : 0u)
                | (dropout.hidden ? 1u << 17 : 0u) | (style.code() << 18));
    h = mix(h, bits(inflight));
    h = mix(h, bits(tpLinkGBps));
    h = mix(h, bits(tpLatencyUs));
    return h;
}

}  // namespace memx
