#pragma once

#include <string>

namespace memx {

class Cluster;
struct Problem;
struct SearchResult;

// The human-readable report of a search: the ranked table, the chosen plan
// in detail, the statistics and every policy note.
struct TextReport {
    // "fp16 (auto: no bf16 on V100-32GB, T4)", "bf16 (chosen)".
    static std::string precisionLine(const Problem& problem);
    // "FlashAttention, no dropout"; "unfused (s x s scores kept), dropout
    // attention 0.1 / hidden 0.1 (keeps a mask of the attention scores and
    // two hidden masks per layer)": what the memory assumes.
    static std::string attentionLine(const Problem& problem);
    static std::string table(const Problem& problem, const SearchResult& r, std::size_t top);
    // "eV=...: ..." how Phi's floor under V was chosen (ObjectiveSpec::epsilonRule).
    static std::string epsilonLine(const SearchResult& r);
    // "Constraints (before Phi ranks): ..." when the search had any; else empty.
    static std::string constraintsLine(const SearchResult& r);
    // Plan 1 against the fastest feasible plan: what the recommendation costs.
    static std::string priceLine(const SearchResult& r);
    static std::string stats(const SearchResult& r);
    static std::string planDetail(const Problem& problem, const SearchResult& r);
    // The winners of each compared weight profile against the requested one.
    // Each profile's pick with its tokens per second and, where the cluster's
    // GPU types have prices, its cost (PlanCost).
    // Several training tasks (TaskCompare::PerTask): each task's best plan
    // side by side with its tokens per second; empty for one task.
    static std::string tasks(const SearchResult& r);
    static std::string profileComparison(const SearchResult& r, const Cluster& cluster);
    // SearchOptions::baselines: each baseline planner's pick beside MemX's
    // (T, M, V, Phi, headroom, ranks, whether it fits), and what each searches.
    static std::string baselines(const SearchResult& r);
};

}  // namespace memx
