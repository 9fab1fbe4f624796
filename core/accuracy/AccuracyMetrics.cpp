#include "accuracy/AccuracyMetrics.h"
#include "io/NumericConstants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace memx {

namespace {

void requireSameSize(std::size_t a, std::size_t b, const char* what)
{
    if (a != b)
        throw std::invalid_argument(std::string(what) + ": size mismatch (" + std::to_string(a) + " vs "
                                    + std::to_string(b) + ")");
}

void requireNoNaN(const std::vector<double>& v, const char* what)
{
    for (double x : v)
        if (std::isnan(x))
            throw std::invalid_argument(std::string(what) + ": NaN in input");
}

void requireRankable(const std::vector<double>& a, const std::vector<double>& b, const char* what)
{
    requireSameSize(a.size(), b.size(), what);
    if (a.size() < 2)
        throw std::invalid_argument(std::string(what) + ": needs at least 2 pairs");
    requireNoNaN(a, what);
    requireNoNaN(b, what);
}

}  // namespace

AccuracyMetrics::ErrorSummary AccuracyMetrics::errors(const std::vector<double>& predicted,
                                                      const std::vector<double>& measured)
{
    requireSameSize(predicted.size(), measured.size(), "AccuracyMetrics::errors");
    ErrorSummary s;
    std::vector<double> e;
    e.reserve(measured.size());
    for (std::size_t i = 0; i < measured.size(); ++i) {
        const double m = measured[i];
        const double p = predicted[i];
        if (!std::isfinite(m) || m <= 0 || !std::isfinite(p)) {
            ++s.skipped;
            continue;
        }
        e.push_back(100.0 * std::abs(p - m) / m);
    }
    s.n = e.size();
    if (e.empty()) {
        s.mape = s.goodShare = s.severeShare = s.maxAbsPct = s.medianAbsPct = kNaN;
        return s;
    }
    const double n = static_cast<double>(e.size());
    std::size_t good = 0, severe = 0;
    double sum = 0;
    for (double x : e) {
        sum += x;
        good += x < kGoodPct ? 1 : 0;
        severe += x > kSeverePct ? 1 : 0;
    }
    s.mape = sum / n;
    s.goodShare = static_cast<double>(good) / n;
    s.severeShare = static_cast<double>(severe) / n;
    std::sort(e.begin(), e.end());
    s.maxAbsPct = e.back();
    const std::size_t mid = e.size() / 2;
    s.medianAbsPct = e.size() % 2 ? e[mid] : 0.5 * (e[mid - 1] + e[mid]);
    return s;
}

std::vector<double> AccuracyMetrics::averageRanks(const std::vector<double>& v)
{
    requireNoNaN(v, "AccuracyMetrics::averageRanks");
    std::vector<std::size_t> idx(v.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < idx.size();) {
        std::size_t j = i;
        while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]])
            ++j;
        // Positions i..j (0-based) share ranks i+1..j+1: their average.
        const double avg = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j + 1));
        for (std::size_t k = i; k <= j; ++k)
            r[idx[k]] = avg;
        i = j + 1;
    }
    return r;
}

double AccuracyMetrics::spearman(const std::vector<double>& a, const std::vector<double>& b)
{
    requireRankable(a, b, "AccuracyMetrics::spearman");
    const std::vector<double> ra = averageRanks(a);
    const std::vector<double> rb = averageRanks(b);
    // Both rank vectors have mean (n+1)/2.
    const double mean = 0.5 * (static_cast<double>(a.size()) + 1.0);
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        const double da = ra[i] - mean, db = rb[i] - mean;
        sab += da * db;
        saa += da * da;
        sbb += db * db;
    }
    if (saa <= 0 || sbb <= 0)
        return kNaN;
    return sab / std::sqrt(saa * sbb);
}

namespace {

long long pairsOf(long long t) { return t * (t - 1) / 2; }

// Pairs tied in a run of equal values of the sorted `v`.
long long tiedPairs(const std::vector<double>& v)
{
    long long tied = 0;
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j < v.size() && v[j] == v[i])
            ++j;
        tied += pairsOf(static_cast<long long>(j - i));
        i = j;
    }
    return tied;
}

// Sorts `v` by a bottom-up merge sort; returns the exchanges it made (the
// pairs out of order).
long long mergeSortSwaps(std::vector<double>& v)
{
    const std::size_t n = v.size();
    std::vector<double> tmp(n);
    long long swaps = 0;
    for (std::size_t width = 1; width < n; width *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
            std::size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (v[i] <= v[j]) {
                    tmp[k++] = v[i++];
                } else {
                    swaps += static_cast<long long>(mid - i);
                    tmp[k++] = v[j++];
                }
            }
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        v.swap(tmp);
    }
    return swaps;
}

}  // namespace

double AccuracyMetrics::kendallTau(const std::vector<double>& a, const std::vector<double>& b)
{
    requireRankable(a, b, "AccuracyMetrics::kendallTau");
    // Knight's O(n log n) algorithm (1966): sort by (a, b), count the pairs
    // tied in a and in both, then merge-sort by b counting exchanges: each
    // is a discordant pair (one tied in a is already in b's order, one tied
    // in b is never exchanged).
    const std::size_t n = a.size();
    std::vector<std::size_t> idx(n);
    for (std::size_t i = 0; i < n; ++i)
        idx[i] = i;
    std::sort(idx.begin(), idx.end(),
              [&](std::size_t x, std::size_t y) { return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]); });
    long long n1 = 0, n3 = 0;  // tied in a; tied in a and b
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && a[idx[j]] == a[idx[i]])
            ++j;
        n1 += pairsOf(static_cast<long long>(j - i));
        std::vector<double> run;
        for (std::size_t k = i; k < j; ++k)
            run.push_back(b[idx[k]]);
        n3 += tiedPairs(run);  // b is sorted within a run of equal a
        i = j;
    }
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = b[idx[i]];
    const long long nd = mergeSortSwaps(v);
    const long long n2 = tiedPairs(v);  // tied in b
    const long long total = pairsOf(static_cast<long long>(n));
    const long long nc = total - n1 - n2 + n3 - nd;
    const double n0 = static_cast<double>(total);
    const double denom = (n0 - static_cast<double>(n1)) * (n0 - static_cast<double>(n2));
    if (denom <= 0)
        return kNaN;
    return static_cast<double>(nc - nd) / std::sqrt(denom);
}

bool AccuracyMetrics::topKHit(const std::vector<double>& predictedScore, const std::vector<double>& trueScore, int k)
{
    requireSameSize(predictedScore.size(), trueScore.size(), "AccuracyMetrics::topKHit");
    if (trueScore.empty())
        throw std::invalid_argument("AccuracyMetrics::topKHit: empty input");
    if (k < 1)
        throw std::invalid_argument("AccuracyMetrics::topKHit: k must be >= 1");
    requireNoNaN(predictedScore, "AccuracyMetrics::topKHit");
    requireNoNaN(trueScore, "AccuracyMetrics::topKHit");

    const double bestTrue = *std::min_element(trueScore.begin(), trueScore.end());
    // Among the truly best rows, the one the prediction ranks highest.
    std::size_t best = trueScore.size();
    for (std::size_t i = 0; i < trueScore.size(); ++i)
        if (trueScore[i] == bestTrue && (best == trueScore.size() || predictedScore[i] < predictedScore[best]))
            best = i;
    std::size_t ahead = 0;
    for (std::size_t j = 0; j < predictedScore.size(); ++j)
        if (trueScore[j] != bestTrue && predictedScore[j] <= predictedScore[best])
            ++ahead;
    return ahead < static_cast<std::size_t>(k);
}

std::map<int, bool> AccuracyMetrics::topKHits(const std::vector<double>& predictedScore,
                                              const std::vector<double>& trueScore, const std::vector<int>& ks)
{
    std::map<int, bool> out;
    for (int k : ks)
        out[k] = topKHit(predictedScore, trueScore, k);
    return out;
}

std::map<int, bool> AccuracyMetrics::topKHits(const std::vector<double>& predictedScore,
                                              const std::vector<double>& trueScore, std::initializer_list<int> ks)
{
    return topKHits(predictedScore, trueScore, std::vector<int>(ks));
}

}  // namespace memx
