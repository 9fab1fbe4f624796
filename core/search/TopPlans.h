#pragma once

#include "space/Plan.h"

#include <cstddef>
#include <limits>
#include <vector>

namespace memx {

// The K plans with the smallest score; ties go to the smaller key, so the
// result does not depend on arrival order or thread count.
class TopPlans {
public:
    explicit TopPlans(std::size_t k = 10);

    bool accepts(double score, std::uint64_t key) const;
    void insert(double score, Plan plan);
    void merge(const TopPlans& other);
    // Score a plan must beat to enter (infinity until K plans are held).
    double threshold() const;

    std::vector<Plan> sorted() const;
    const std::vector<std::pair<double, Plan>>& entries() const { return heap_; }
    std::size_t size() const { return heap_.size(); }

private:
    std::size_t k_;
    std::vector<std::pair<double, Plan>> heap_;  // max-heap on (score, key)
};

}  // namespace memx
