#include "PipelineSchedule.h"

#include <algorithm>
#include <numeric>

namespace memx {

namespace {

// The 1F1B op order of one stage, before timing.
std::vector<PipelineOp> stageOrder(int stage, int stages, int g)
{
    std::vector<PipelineOp> order;
    order.reserve(2 * static_cast<std::size_t>(g));
    const int warmup = std::min(stages - stage - 1, g);
    int nextF = 0, nextB = 0;
    for (; nextF < warmup; ++nextF)
        order.push_back({PipelineOp::Kind::Forward, nextF, 0, 0});
    while (nextF < g) {
        order.push_back({PipelineOp::Kind::Forward, nextF++, 0, 0});
        order.push_back({PipelineOp::Kind::Backward, nextB++, 0, 0});
    }
    while (nextB < g)
        order.push_back({PipelineOp::Kind::Backward, nextB++, 0, 0});
    return order;
}

}  // namespace

PipelineSchedule PipelineSchedule::oneFOneB(const std::vector<double>& stageMs, const std::vector<double>& hopMs,
                                            int microBatchCount)
{
    PipelineSchedule s;
    const int p = static_cast<int>(stageMs.size());
    const int g = std::max(1, microBatchCount);
    s.microBatchCount_ = g;
    if (p == 0)
        return s;
    auto hop = [&](int i) { return i >= 0 && i < static_cast<int>(hopMs.size()) ? hopMs[i] : 0.0; };

    s.ops_.resize(p);
    // End times of F(m) and B(m) per stage; < 0: not yet scheduled.
    std::vector<std::vector<double>> fEnd(p, std::vector<double>(g, -1)), bEnd(p, std::vector<double>(g, -1));
    std::vector<std::vector<PipelineOp>> order(p);
    std::vector<std::size_t> next(p, 0);
    std::vector<double> freeAt(p, 0);
    for (int i = 0; i < p; ++i)
        order[i] = stageOrder(i, p, g);

    // Dependencies are acyclic and 1F1B never deadlocks, so sweeping the
    // stages until none can advance schedules every op.
    bool progressed = true;
    while (progressed) {
        progressed = false;
        for (int i = 0; i < p; ++i) {
            while (next[i] < order[i].size()) {
                PipelineOp op = order[i][next[i]];
                const int m = op.microBatch;
                double ready = 0;
                if (op.kind == PipelineOp::Kind::Forward) {
                    if (i > 0) {
                        if (fEnd[i - 1][m] < 0)
                            break;
                        ready = fEnd[i - 1][m] + hop(i - 1);
                    }
                } else if (i < p - 1) {
                    if (bEnd[i + 1][m] < 0)
                        break;
                    ready = bEnd[i + 1][m] + hop(i);
                } else {
                    ready = fEnd[i][m];  // already scheduled: F(m) precedes B(m) on a stage
                }
                const double dur = op.kind == PipelineOp::Kind::Forward ? stageMs[i] / 3.0 : stageMs[i] * 2.0 / 3.0;
                op.startMs = std::max(ready, freeAt[i]);
                op.endMs = op.startMs + dur;
                freeAt[i] = op.endMs;
                (op.kind == PipelineOp::Kind::Forward ? fEnd : bEnd)[i][m] = op.endMs;
                s.ops_[i].push_back(op);
                ++next[i];
                progressed = true;
            }
        }
    }
    for (int i = 0; i < p; ++i)
        s.makespanMs_ = std::max(s.makespanMs_, freeAt[i]);
    return s;
}

double PipelineSchedule::busyMs(int stage) const
{
    double busy = 0;
    for (const auto& op : ops_[stage])
        busy += op.endMs - op.startMs;
    return busy;
}

double PipelineSchedule::idleMs(int stage) const { return makespanMs_ - busyMs(stage); }

double PipelineSchedule::bubbleFraction(int stage) const { return makespanMs_ > 0 ? idleMs(stage) / makespanMs_ : 0.0; }

double PipelineSchedule::eq3Ms(const std::vector<double>& stageMs, const std::vector<double>& hopMs,
                               int microBatchCount)
{
    if (stageMs.empty())
        return 0;
    const double mx = *std::max_element(stageMs.begin(), stageMs.end());
    const double sum = std::accumulate(stageMs.begin(), stageMs.end(), 0.0);
    const double hops = std::accumulate(hopMs.begin(), hopMs.end(), 0.0);
    return (std::max(1, microBatchCount) - 1) * mx + sum + 2.0 * hops;
}

}  // namespace memx
