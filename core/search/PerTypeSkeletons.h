#pragma once

#include "search/Skeleton.h"
#include "space/TrainingSetup.h"

#include <array>
#include <cstdint>
#include <queue>
#include <vector>

namespace memx {

// Per-type skeletons (FlagScale's process meshes): every GPU type's stages
// form one mesh of neighbouring stages with its own TP and DP; the first
// mesh's DP is the global DP and each mesh's micro-batch is dp0 x mbs / dp.
// Combinations where every mesh has the same TP and DP are the uniform
// skeletons, enumerated already, and are skipped here.
//
// The space is (type order, each type's TP x DP option, micro-batch size,
// sequence, query groups): 24 x 250^4 x ... at 512 GPUs of four types, of
// which a few million pass the rules. Subtrees that a rule refuses whole
// (a first mesh whose DP does not divide the global batch, a mesh whose
// micro-batch is not whole, more stages than --max-pp) are counted by
// products, not visited. Above the cap (Limits::perTypeMeshes) the kept
// skeletons are those of the lowest time bounds (Limits::perTypeTimeBound),
// else the first ones in enumeration order; the list is in enumeration
// order either way.
class PerTypeSkeletons {
public:
    using TimeBound = std::function<double(const std::vector<MeshTimeBound::Mesh>&, int, int, int)>;
    PerTypeSkeletons(const Problem& problem, const std::vector<int>& seqs, const std::vector<int>& qgs,
                     std::size_t limit, const TimeBound& bound, SkeletonList& list);
    void run();

private:
    // One GPU type's mesh candidate: its TP and DP and the stage slots they cut.
    struct Option {
        int tp = 1, dp = 1;
        std::vector<StageSlot> slots;
        int idle = 0;  // GPUs of the type no slot uses
        int firstSlot = 0;  // index of slots[0] in slots_
        int stages() const { return static_cast<int>(slots.size()); }
    };
    // A kept skeleton: its bound and its place in enumeration order, from
    // which it is rebuilt (type order, each mesh's option in pipeline order,
    // micro-batch, sequence and query groups indices).
    struct Candidate {
        double boundMs = 0;
        std::vector<int> key;
        bool operator<(const Candidate& o) const  // a max-heap: the worst kept on top
        {
            return boundMs != o.boundMs ? boundMs < o.boundMs : key < o.key;
        }
    };
    enum Rule { GlobalBatch, NotWhole, MaxPp, MinPp, Layers, Tied, QueryGroups, RuleCount };

    bool buildOptions();
    const Option& picked(std::size_t k) const { return options_[static_cast<std::size_t>(order_[k])][pick_[k]]; }
    void withOrder();
    // The first mesh's option fixes dp0; each micro-batch size then fixes
    // which options of the other meshes are whole.
    void withFirst(std::size_t option);
    void wholeCounts(int dp0, int mbs);
    // Chooses the option of the mesh at pipeline position k >= 1.
    void choose(std::size_t k, int stages, bool uniform);
    void leaf(int stages);
    void offer(double boundMs, std::size_t seqIdx, std::size_t qgIdx);
    std::vector<int> keyOf(std::size_t seqIdx, std::size_t qgIdx) const;
    void buildKept();
    Skeleton skeletonOf(const std::vector<int>& key) const;
    void report();
    void tally(Rule r, std::uint64_t n) { tallies_[r] = addSaturating(tallies_[r], n); }
    static std::uint64_t addSaturating(std::uint64_t a, std::uint64_t b)
    {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
    }
    static std::uint64_t mulSaturating(std::uint64_t a, std::uint64_t b)
    {
        return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
    }

    const Problem& problem_;
    const TrainingSetup& setup_;
    const ModelSpec& model_;
    const std::vector<int>& seqs_;
    const std::vector<int>& qgs_;
    std::size_t limit_;
    const TimeBound& bound_;
    SkeletonList& list_;

    std::vector<int> types_;  // types with GPUs
    std::vector<std::vector<Option>> options_;  // per type
    // Every option's slots, shared by every skeleton (a skeleton's stages
    // index into it): a set of its own per skeleton took 3-4 KB each.
    std::shared_ptr<StageSlotSet> slots_;
    std::vector<std::vector<int>> orders_;  // every type order, enumeration order
    // The order and choice being enumerated, by pipeline position.
    std::size_t orderIdx_ = 0;
    std::vector<int> order_;
    std::vector<std::size_t> pick_;
    std::size_t mbsIdx_ = 0;
    int dp0_ = 1, mbs_ = 1;
    // Per position k: options in all, whole ones, and the products and least
    // stage counts of positions k.. (suffixes); uniformSuffix_[k] is 1 when
    // every type from k on has an option of the first mesh's TP and DP.
    std::vector<std::uint64_t> total_, whole_, totalSuffix_, wholeSuffix_, uniformSuffix_;
    std::vector<int> leastStagesSuffix_;
    std::vector<MeshTimeBound::Mesh> meshes_;

    std::priority_queue<Candidate> kept_;
    double leftOutMs_ = std::numeric_limits<double>::infinity();
    std::uint64_t beyond_ = 0;  // skeletons the cap left out
    bool capped_ = false;
    std::array<std::uint64_t, RuleCount> tallies_{};
};

}  // namespace memx
