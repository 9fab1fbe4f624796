#include "search/SearchSample.h"
#include "io/Statistics.h"

#include "search/Objective.h"

#include <algorithm>
#include <cmath>

namespace memx {

void SearchSample::append(const SearchSample& other)
{
    entries_.insert(entries_.end(), other.entries_.begin(), other.entries_.end());
}

double SearchSample::weightedMedian(double Entry::*field) const
{
    if (entries_.empty())
        return 0;
    if (uniformWeights()) {
        // Every candidate counted once (or with one weight): the plain
        // median, in linear time.
        std::vector<double> v;
        v.reserve(entries_.size());
        for (const auto& e : entries_)
            v.push_back(e.*field);
        return Statistics::median(std::move(v));
    }
    std::vector<std::pair<double, double>> vw;
    vw.reserve(entries_.size());
    for (const auto& e : entries_)
        vw.emplace_back(e.*field, e.weight);
    std::sort(vw.begin(), vw.end());
    // Summed in sorted order: the workers' samples arrive in an order that
    // depends on the threads, and a total summed in that order differs in
    // its last bits, which moved the median when the cumulative weight came
    // within a rounding error of half (tst_search_exactness, seed 3, three
    // threads, seen under the sanitizer build).
    double total = 0;
    for (const auto& [value, weight] : vw)
        total += weight;
    // The value where the cumulative weight crosses half; when it lands
    // exactly on half (even count of unit weights) average the two
    // neighbours, which is the ordinary median.
    double acc = 0;
    for (std::size_t i = 0; i < vw.size(); ++i) {
        acc += vw[i].second;
        if (acc > total / 2)
            return vw[i].first;
        if (acc == total / 2 && i + 1 < vw.size())
            return 0.5 * (vw[i].first + vw[i + 1].first);
    }
    return vw.back().first;
}

double SearchSample::medianT() const { return weightedMedian(&Entry::t); }
double SearchSample::medianM() const { return weightedMedian(&Entry::m); }
double SearchSample::medianV() const { return weightedMedian(&Entry::v); }

bool SearchSample::uniformWeights() const
{
    return std::all_of(entries_.begin(), entries_.end(),
                       [&](const Entry& e) { return e.weight == entries_.front().weight; });
}

SearchSample::Ranker::Ranker(std::vector<std::pair<double, double>> vw)
{
    // Ties share one rank whatever their order; sorting by weight too makes
    // the cumulative sums, and so the ranks, the same bits whatever order
    // the threads delivered the sample in.
    std::sort(vw.begin(), vw.end());
    double acc = 0;
    cumulative_.push_back(0);
    for (const auto& [v, w] : vw) {
        values_.push_back(v);
        acc += w;
        cumulative_.push_back(acc);
    }
}

std::uint64_t SearchSample::Ranker::rankOf(double x) const
{
    const auto i = static_cast<std::size_t>(std::lower_bound(values_.begin(), values_.end(), x) - values_.begin());
    return static_cast<std::uint64_t>(std::llround(cumulative_[i])) + 1;
}

}  // namespace memx
