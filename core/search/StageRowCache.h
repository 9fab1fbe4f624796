#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace memx {

struct StageRow;

// Everything one stage's row of SkeletonTables depends on beyond the search
// itself (model, setup, predictor and cluster are fixed for a search).
struct StageRowKey {
    int type = 0, tp = 1, dp = 1, microBatch = 1, seq = 0, queryGroups = 0, virtualStages = 1, maxLayers = 0;
    bool first = false, last = false;
    double inflight = 1;
    double tpBandwidthGBps = 0, tpLatencyUs = 0, dpBandwidthGBps = 0, dpLatencyUs = 0;
    bool operator==(const StageRowKey&) const = default;
};

// Rows of one worker's searches, shared by every skeleton whose stage has
// the same key: a per-type search has hundreds of thousands of skeletons
// made of a few thousand distinct stages. A full cache starts over empty
// (rows in use stay alive through their tables). Not thread-safe.
class StageRowCache {
public:
    explicit StageRowCache(std::size_t capacityBytes = kDefaultBytes) : capacity_(capacityBytes) { }
    static constexpr std::size_t kDefaultBytes = std::size_t{48} << 20;

    // 0: no limit. Takes effect at the next insert.
    void setCapacity(std::size_t bytes) { capacity_ = bytes; }
    std::size_t capacity() const { return capacity_; }

    std::shared_ptr<const StageRow> find(const StageRowKey& key);
    void insert(const StageRowKey& key, std::shared_ptr<const StageRow> row);

    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return misses_; }
    std::uint64_t resets() const { return resets_; }
    std::size_t size() const { return rows_.size(); }

private:
    struct Hash {
        std::size_t operator()(const StageRowKey& k) const;
    };
    std::unordered_map<StageRowKey, std::shared_ptr<const StageRow>, Hash> rows_;
    std::size_t capacity_ = 0, bytes_ = 0;
    std::uint64_t hits_ = 0, misses_ = 0, resets_ = 0;
};

}  // namespace memx
