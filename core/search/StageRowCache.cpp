#include "search/StageRowCache.h"

#include "search/SkeletonTables.h"

#include <bit>

namespace memx {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h;
}

}  // namespace

std::size_t StageRowCache::Hash::operator()(const StageRowKey& k) const
{
    std::uint64_t h = 0;
    for (int v : {k.type, k.tp, k.dp, k.microBatch, k.seq, k.queryGroups, k.virtualStages, k.maxLayers})
        h = mix(h, static_cast<std::uint64_t>(static_cast<std::uint32_t>(v)));
    h = mix(h, (k.first ? 1u : 0u) | (k.last ? 2u : 0u));
    for (double v : {k.inflight, k.tpBandwidthGBps, k.tpLatencyUs, k.dpBandwidthGBps, k.dpLatencyUs})
        h = mix(h, std::bit_cast<std::uint64_t>(v));
    return static_cast<std::size_t>(h);
}

std::shared_ptr<const StageRow> StageRowCache::find(const StageRowKey& key)
{
    auto it = rows_.find(key);
    if (it == rows_.end()) {
        ++misses_;
        return nullptr;
    }
    ++hits_;
    return it->second;
}

void StageRowCache::insert(const StageRowKey& key, std::shared_ptr<const StageRow> row)
{
    const std::size_t bytes = row->bytes() + sizeof(StageRowKey) + 64;
    if (capacity_ > 0 && bytes_ + bytes > capacity_) {
        rows_.clear();
        bytes_ = 0;
        ++resets_;
    }
    if (rows_.emplace(key, std::move(row)).second)
        bytes_ += bytes;
}

}  // namespace memx
