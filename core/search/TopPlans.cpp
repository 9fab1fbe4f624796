#include "search/TopPlans.h"

#include <algorithm>

namespace memx {

namespace {
bool less(const std::pair<double, Plan>& a, const std::pair<double, Plan>& b)
{
    if (a.first != b.first)
        return a.first < b.first;
    return a.second.key < b.second.key;
}
}  // namespace

TopPlans::TopPlans(std::size_t k) : k_(k) { }

double TopPlans::threshold() const
{
    return heap_.size() < k_ ? std::numeric_limits<double>::infinity() : heap_.front().first;
}

bool TopPlans::accepts(double score, std::uint64_t key) const
{
    if (k_ == 0)
        return false;
    if (heap_.size() >= k_) {
        const auto& worst = heap_.front();
        if (!(score < worst.first || (score == worst.first && key < worst.second.key)))
            return false;
    }
    // A plan offered again (searched for another aim) is not a second entry.
    return std::none_of(heap_.begin(), heap_.end(),
                        [&](const std::pair<double, Plan>& e) { return e.second.key == key && e.first == score; });
}

void TopPlans::insert(double score, Plan plan)
{
    if (!accepts(score, plan.key))
        return;
    heap_.emplace_back(score, std::move(plan));
    std::push_heap(heap_.begin(), heap_.end(), less);
    if (heap_.size() > k_) {
        std::pop_heap(heap_.begin(), heap_.end(), less);
        heap_.pop_back();
    }
}

void TopPlans::merge(const TopPlans& other)
{
    for (const auto& [score, plan] : other.heap_)
        insert(score, plan);
}

std::vector<Plan> TopPlans::sorted() const
{
    auto copy = heap_;
    std::sort(copy.begin(), copy.end(), less);
    std::vector<Plan> out;
    for (auto& e : copy)
        out.push_back(std::move(e.second));
    return out;
}

}  // namespace memx
