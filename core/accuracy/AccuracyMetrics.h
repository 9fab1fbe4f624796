#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <vector>

namespace memx {

// The accuracy metrics of the MemX paper (Tables 6-8): how far the predicted
// iteration time / peak memory of each configuration is from the measured
// one, and how well the predicted ranking of configurations agrees with the
// true ranking. Pure functions on plain vectors; no I/O.
struct AccuracyMetrics {
    // Per-row relative error, in percent:
    //     e_i = 100 * |p_i - m_i| / m_i
    // over the n usable pairs (m_i finite and > 0, p_i finite); the others
    // are not scored and are counted in `skipped`.
    struct ErrorSummary {
        std::size_t n = 0;  // pairs scored
        std::size_t skipped = 0;  // pairs dropped: m <= 0, m or p NaN/infinite
        double mape = 0;  // (1/n) * sum e_i, percent
        double goodShare = 0;  // #{e_i < 20} / n, a fraction in [0, 1] ("good")
        double severeShare = 0;  // #{e_i > 50} / n, a fraction in [0, 1] ("severe")
        double maxAbsPct = 0;  // max e_i, percent
        double medianAbsPct = 0;  // median of e_i (mean of the two middle values when n is even), percent
    };

    static constexpr double kGoodPct = 20.0;  // strictly below: good
    static constexpr double kSeverePct = 50.0;  // strictly above: severe

    // Throws std::invalid_argument when the sizes differ. With no usable pair
    // (n == 0) every statistic is NaN.
    static ErrorSummary errors(const std::vector<double>& predicted, const std::vector<double>& measured);

    // Spearman's rank correlation: the Pearson correlation of the ranks,
    //     rho = sum (r_i - rbar)(s_i - sbar) / sqrt(sum (r_i - rbar)^2 * sum (s_i - sbar)^2)
    // where r, s are the ranks of a, b (1 = smallest) and tied values get the
    // average of the ranks they span (the "fractional" ranking). Exact with
    // ties (unlike 1 - 6 sum d^2 / (n(n^2-1))). NaN when either side is
    // constant. Throws std::invalid_argument when the sizes differ, n < 2, or
    // a value is NaN.
    static double spearman(const std::vector<double>& a, const std::vector<double>& b);

    // Kendall's tau-b over all n0 = n(n-1)/2 pairs i < j:
    //     tau_b = (nc - nd) / sqrt((n0 - n1) * (n0 - n2))
    // nc: concordant pairs (a and b move the same way), nd: discordant pairs,
    // n1: pairs tied in a, n2: pairs tied in b (a pair tied in both counts in
    // n1 and n2). NaN when either side is constant. O(n log n) (Knight's
    // merge-sort count of discordant pairs). Throws
    // std::invalid_argument when the sizes differ, n < 2, or a value is NaN.
    static double kendallTau(const std::vector<double>& a, const std::vector<double>& b);

    // Top-k hit (lower score = better, e.g. time or Phi): is the truly best
    // configuration among the k best by prediction? With t* = min trueScore,
    // B = { i : trueScore_i == t* } (the truly best rows) and b the row of B
    // with the lowest predicted score,
    //     hit  <=>  #{ j not in B : predicted_j <= predicted_b } < k
    // i.e. a worse row predicted as good as b counts against the hit
    // (pessimistic tie rule); rows that are truly best as well never do.
    // k > n is a hit. Throws std::invalid_argument
    // when the sizes differ, the input is empty, k < 1, or a value is NaN.
    static bool topKHit(const std::vector<double>& predictedScore, const std::vector<double>& trueScore, int k);

    // topKHit for each k: {k -> hit}.
    static std::map<int, bool> topKHits(const std::vector<double>& predictedScore, const std::vector<double>& trueScore,
                                        std::initializer_list<int> ks = {1, 3, 5, 10});
    static std::map<int, bool> topKHits(const std::vector<double>& predictedScore, const std::vector<double>& trueScore,
                                        const std::vector<int>& ks);

    // The average (fractional) ranks, 1-based, used by spearman(); exposed for tests.
    static std::vector<double> averageRanks(const std::vector<double>& v);
};

}  // namespace memx
