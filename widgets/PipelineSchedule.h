#pragma once

#include <vector>

namespace memx {

// One forward or backward pass of one micro-batch on one pipeline stage.
struct PipelineOp {
    enum class Kind { Forward, Backward };
    Kind kind = Kind::Forward;
    int microBatch = 0;  // 0-based
    double startMs = 0;
    double endMs = 0;
};

// The 1F1B (PipeDream-Flush, Narayanan et al. 2021) schedule of one training
// iteration, simulated op by op. Pure arithmetic: no Qt, testable alone.
//
// Stage i (0-based, P stages) runs min(P - i - 1, G) warm-up forwards, then
// alternates one forward and one backward until every forward is issued, then
// drains the remaining backwards. An op starts when its stage is free and its
// input has arrived: F(m) at stage i after F(m) at i - 1 plus hop i - 1;
// B(m) at stage i after B(m) at i + 1 plus hop i (B(m) on the last stage after
// its own F(m)). Forward : backward time is 1 : 2.
//
// Relation to MemX Eq. (3), T_pipe = (G - 1) * max_i t_i + sum_i t_i
// (+ 2 * sum hops): with equal stage times and zero hops the simulated makespan
// equals it exactly, (G + P - 1) * t. With unequal stages and zero hops it is
// never above Eq. (3) in the cases tested and within ~10% of it: Eq. (3) charges
// the whole t_i of every stage for fill and drain, while in the simulation a
// slow late stage overlaps part of that with the faster stages' warm-up.
// Hops are paid on every forward/backward exchange, not only at fill and
// drain, so with non-zero hops the simulated makespan exceeds Eq. (3).
class PipelineSchedule {
public:
    PipelineSchedule() = default;

    // stageMs: per stage, forward + backward of one micro-batch (ms).
    // hopMs: hop i -> i + 1, one direction (ms); missing entries count as 0.
    // microBatchCount: G >= 1.
    static PipelineSchedule oneFOneB(const std::vector<double>& stageMs, const std::vector<double>& hopMs,
                                     int microBatchCount);

    int stageCount() const { return static_cast<int>(ops_.size()); }
    int microBatchCount() const { return microBatchCount_; }
    const std::vector<PipelineOp>& ops(int stage) const { return ops_[stage]; }  // in execution order

    double makespanMs() const { return makespanMs_; }  // first forward start to last backward end
    double busyMs(int stage) const;  // sum of the stage's op durations
    double idleMs(int stage) const;  // makespan - busy: the stage's bubble
    double bubbleFraction(int stage) const;  // idle / makespan, 0..1

    // Eq. (3) pipeline term for the same inputs: (G-1)*max + sum + 2*sum(hops), ms.
    static double eq3Ms(const std::vector<double>& stageMs, const std::vector<double>& hopMs, int microBatchCount);

private:
    std::vector<std::vector<PipelineOp>> ops_;
    int microBatchCount_ = 0;
    double makespanMs_ = 0;
};

}  // namespace memx
