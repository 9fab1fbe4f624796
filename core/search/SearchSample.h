#pragma once

#include <cstdint>
#include <vector>

namespace memx {

// The (T, M, V) of feasible candidates that the references (medians) and the
// ranks come from. Each entry carries the number of candidates it stands
// for: 1 when every feasible candidate was enumerated (exact medians and
// ranks), count / samples of its skeleton otherwise (a stratified sample).
class SearchSample {
public:
    struct Entry {
        double t, m, v;
        double weight;
    };

    void add(const Entry& e) { entries_.push_back(e); }
    void append(const SearchSample& other);
    std::size_t size() const { return entries_.size(); }
    const std::vector<Entry>& entries() const { return entries_; }

    // Weighted medians (the lower median when the weights split evenly, as
    // Statistics::median does for an even count of unit weights it averages).
    double medianT() const;
    double medianM() const;
    double medianV() const;

    // Sorted values with cumulative weights, for ranks: 1 + weight below x.
    class Ranker {
    public:
        Ranker(std::vector<std::pair<double, double>> valueWeight);
        std::uint64_t rankOf(double x) const;

    private:
        std::vector<double> values_;
        std::vector<double> cumulative_;  // [i]: weight of values_[0..i), size n + 1
    };
    template <class Fn> Ranker ranker(Fn&& value) const
    {
        std::vector<std::pair<double, double>> vw;
        vw.reserve(entries_.size());
        for (const auto& e : entries_)
            vw.emplace_back(value(e), e.weight);
        return Ranker(std::move(vw));
    }

private:
    double weightedMedian(double Entry::*field) const;
    bool uniformWeights() const;
    std::vector<Entry> entries_;
};

}  // namespace memx
