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

TopPlans::TopPlans(std::size_t k)
    : k_(k)
{
}

double TopPlans::threshold() const
{
    return heap_.size() < k_ ? std::numeric_limits<double>::infinity() : heap_.front().first;
}

bool TopPlans::accepts(double score, std::uint64_t key) const
{
    if (k_ == 0)
        return false;
    if (heap_.size() < k_)
        return true;
    const auto& worst = heap_.front();
    return score < worst.first || (score == worst.first && key < worst.second.key);
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
