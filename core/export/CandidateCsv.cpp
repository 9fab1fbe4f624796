#include "export/CandidateCsv.h"

#include "search/SearchResult.h"
#include "space/Plan.h"

#include <algorithm>
#include <cstdio>

namespace memx {

std::string CandidateCsv::header()
{
    return "rank_phi,rank_time,phi,iteration_ms,max_mem_mib,mem_variance,tp,pp,dp,micro_batch,global_batch,"
           "seq_len,query_groups,schedule,virtual_stages,stage_order,layers,recompute,stage_peak_mib,min_headroom,"
           "provenance\n";
}

std::string CandidateCsv::row(const Plan& p)
{
    std::string peaks;
    for (const auto& s : p.stages) {
        char b[32];
        std::snprintf(b, sizeof b, "%.0f", s.memory.totalMiB());
        peaks += (peaks.empty() ? "" : ";") + std::string(b);
    }
    auto semi = [](std::string s) {
        std::replace(s.begin(), s.end(), ',', ';');
        return s;
    };
    char buf[512];
    std::snprintf(buf, sizeof buf, "%llu,%llu,%.6f,%.3f,%.1f,%.6g,%d,%d,%d,%d,%d,%d,%d,%s,%d,",
                  static_cast<unsigned long long>(p.rankPhi), static_cast<unsigned long long>(p.rankTime), p.phi,
                  p.iterationMs, p.maxMemMiB, p.varMem, p.tp, p.pp, p.dp, p.microBatch, p.globalBatch, p.seqLen,
                  p.queryGroups, toString(p.schedule), p.virtualStages);
    char tail[64];
    std::snprintf(tail, sizeof tail, ",%.4f,%s\n", p.minHeadroom(), toString(p.provenance));
    return buf + p.orderString() + "," + semi(p.layersString()) + "," + semi(p.recomputeString()) + "," + peaks + tail;
}

std::string CandidateCsv::write(const std::vector<Plan>& plans)
{
    std::string out = header();
    for (const auto& p : plans)
        out += row(p);
    return out;
}

std::string CandidateCsv::write(const SearchResult& r)
{
    std::vector<Plan> rows;
    auto add = [&](const Plan& p) {
        for (const auto& q : rows)
            if (q.key == p.key)
                return;
        rows.push_back(p);
        rows.back().phi = Objective::phi(p.iterationMs, p.maxMemMiB, p.varMem, r.references, r.weights);
    };
    for (const auto& p : r.best)
        add(p);
    for (const auto& p : r.fastest)
        add(p);
    for (const auto& pt : r.paretoTimeVariance.points())
        add(pt.plan);
    for (const auto& pt : r.paretoTimeMemory.points())
        add(pt.plan);
    for (const auto& p : r.plotSample)
        add(p);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Plan& a, const Plan& b) { return a.phi != b.phi ? a.phi < b.phi : a.key < b.key; });
    return write(rows);
}

}  // namespace memx
