#include "search/ProgressEstimate.h"

#include <algorithm>
#include <cmath>

namespace memx {

namespace {
constexpr std::size_t kRecent = 16;  // finished items of a class that say what the next costs
constexpr std::size_t kClassMinimum = 3;  // before that, the pass's cost per size
constexpr double kQuietS = 0.5;  // nothing is estimated before this
constexpr double kEstimatingBarShare = 0.25;  // bar share by size while a pass is being estimated
}  // namespace

void ProgressEstimate::beginPass(std::vector<Item> items, const Pass& pass, int threads, double nowS)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (!startS_.empty())
        previousPassS_ = nowS - passStartS_;
    items_ = std::move(items);
    pass_ = pass;
    threads_ = std::max(1, threads);
    passStartS_ = nowS;
    passFromPermille_ = permille_;
    startS_.assign(items_.size(), -1);
    costS_.assign(items_.size(), -1);
    int classes = 0;
    totalSize_ = 0;
    for (const Item& it : items_) {
        classes = std::max(classes, it.cls + 1);
        totalSize_ += it.size;
    }
    recentByClass_.assign(static_cast<std::size_t>(classes), {});
    costPerSize_.clear();
    finished_ = 0;
    finishedSize_ = 0;
}

void ProgressEstimate::started(std::size_t item, double nowS)
{
    std::lock_guard<std::mutex> lock(mutex_);
    startS_[item] = nowS;
}

void ProgressEstimate::finished(std::size_t item, double nowS)
{
    std::lock_guard<std::mutex> lock(mutex_);
    const double cost = std::max(0.0, nowS - startS_[item]);
    costS_[item] = cost;
    const Item& it = items_[item];
    auto& recent = recentByClass_[static_cast<std::size_t>(it.cls)];
    recent.push_back(cost);
    if (recent.size() > kRecent)
        recent.pop_front();
    if (it.size > 0)
        costPerSize_.push_back(cost / it.size);
    ++finished_;
    finishedSize_ += it.size;
}

double ProgressEstimate::rawRemaining(double nowS) const
{
    if (!pass_.estimable)
        return -1;
    const double passElapsed = nowS - passStartS_;
    const std::size_t enough = std::min(items_.size(), std::max<std::size_t>(4, (items_.size() + 99) / 100));
    if (finished_ < enough || costPerSize_.empty()) {
        if (finished_ >= items_.size())
            return 0;
        if (pass_.shareOfPrevious < 0 || previousPassS_ <= 0)
            return -1;
        const double prior = pass_.shareOfPrevious * previousPassS_;
        return std::max(prior - passElapsed, 0.1 * prior) * (1 + pass_.followingShare);
    }
    std::vector<double> ratios = costPerSize_;
    auto mid = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
    std::nth_element(ratios.begin(), mid, ratios.end());
    const double perSize = *mid;
    std::vector<double> classMean(recentByClass_.size(), -1);
    for (std::size_t c = 0; c < recentByClass_.size(); ++c) {
        const auto& r = recentByClass_[c];
        if (r.size() >= kClassMinimum) {
            double sum = 0;
            for (double v : r)
                sum += v;
            classMean[c] = sum / static_cast<double>(r.size());
        }
    }
    double work = 0, longestRunning = 0;
    for (std::size_t i = 0; i < items_.size(); ++i) {
        if (costS_[i] >= 0)
            continue;
        const double m = classMean[static_cast<std::size_t>(items_[i].cls)];
        const double cost = m >= 0 ? m : items_[i].size * perSize;
        if (startS_[i] >= 0) {
            // An item that has run past its expected cost is expected to run
            // half as long again (branch-and-bound items are heavy-tailed:
            // the longer one has run, the more of it is left), not to end now.
            const double ran = nowS - startS_[i];
            const double left = std::max({cost - ran, 0.1 * cost, 0.5 * ran});
            work += left;
            longestRunning = std::max(longestRunning, left);
        } else {
            work += cost;
        }
    }
    const double passLeft = std::max(work / threads_, longestRunning);
    return passLeft + pass_.followingShare * (passElapsed + passLeft);
}

double ProgressEstimate::smoothed(double raw, double nowS)
{
    if (estimateS_ < 0) {
        estimateS_ = raw;
        estimatedAtS_ = firstEstimateS_ = nowS;
        return raw;
    }
    const double dt = std::max(0.0, nowS - estimatedAtS_);
    const double aged = std::max(0.0, estimateS_ - dt);
    // Down towards the new value by 30% per 0.1 s; up by at most 25% + 0.1 s
    // per second: an estimate that grows is the bar going backwards in time,
    // so it would rather stand still a while than jump.
    const double step = 1 - std::pow(0.7, dt / 0.1);
    estimateS_ = std::min(aged + step * (raw - aged), aged + (0.25 * aged + 0.1) * dt);
    estimatedAtS_ = nowS;
    return estimateS_;
}

ProgressEstimate::Reading ProgressEstimate::read(double nowS)
{
    std::lock_guard<std::mutex> lock(mutex_);
    Reading r;
    const double raw = nowS < kQuietS ? -1 : rawRemaining(nowS);
    const double sizeShare = totalSize_ > 0 ? std::min(1.0, finishedSize_ / totalSize_) : 1.0;
    const double estimate = raw < 0 ? -1 : smoothed(raw, nowS);
    double permille;
    if (!pass_.estimable) {
        permille = passFromPermille_ + (pass_.toPermille - passFromPermille_) * sizeShare;
    } else if (estimate < 0 || nowS - firstEstimateS_ < settleS_) {
        permille = passFromPermille_ + (1000 - passFromPermille_) * kEstimatingBarShare * sizeShare;
    } else {
        r.remainingS = estimate;
        const double spent = nowS - passStartS_;
        permille
            = spent + estimate > 0 ? passFromPermille_ + (1000 - passFromPermille_) * spent / (spent + estimate) : 1000;
    }
    permille_ = std::max(permille_, std::min(1000, static_cast<int>(permille)));
    r.permille = permille_;
    return r;
}

}  // namespace memx
