#pragma once

#include "search/SearchResult.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace memx {

// Node-loss what-if (issue #32 item 5): what a finished search's plan 1
// becomes when a node of the cluster fails, and which plan to choose when a
// node may fail.
//
// Every scenario removes one node (Cluster::withoutNodes) and searches the
// rest again with the same request. Nodes whose loss is the same problem
// (same GPUs, same links within, the same kinds of links to the same kinds of
// nodes) are one scenario, named by the first of them; `alike` lists the
// others. PerType: only each GPU type's first node (cluster order).
//
// Robust ranking (`--robust node-loss`): after a node is lost a job restarts
// from its checkpoint. A plan the node was idle in keeps running as it is. A
// plan that used the node restarts with the same TP degrees (of every mesh),
// micro-batch size, sequence length and query groups: the layout inside each
// node and the per-GPU batch stay, so each layer's kernels and memory stay
// as predicted; the pipeline (PP, layer split, placement) and DP are chosen
// again on the GPUs left (the best such plan under the request's objective;
// Megatron-LM's distributed checkpoints, --ckpt-format torch_dist, load into
// another PP and DP). A plan's worst case is its slowest time over the
// scenarios; it cannot restart when no such plan fits. Plans are ranked by
// Phi with the worst time and their own M and V.
struct NodeLossWhatIf {
    enum class Which { EachNode, PerType };
    struct Options {
        Which which = Which::EachNode;
        bool robust = false;
        std::size_t topK = 10;  // robust plans reported
    };

    struct Scenario {
        int node = -1;  // the node removed (index in the cluster)
        std::string name;  // its name
        std::vector<std::string> alike;  // nodes whose loss is the same scenario
        std::string gpus;  // "8 x H100-SXM"
        bool plan1Idle = false;  // plan 1 does not use the node: it keeps running
        Plan plan;  // best plan of the cluster without the node
        double slowdown = 0;  // best.iterationMs / plan 1's - 1
        double tokensPerS = 0;  // of `best`
        std::string error;  // no plan fits without the node, and why
    };
    struct RobustPlan {
        Plan plan;  // as planned on the whole cluster
        std::vector<double> scenarioMs;  // per scenario: its time after the loss; < 0: cannot resume
        std::vector<bool> resumed;  // per scenario: re-laid out (the node was in use)
        double worstMs = 0;  // slowest over the scenarios
        double worstPhi = 0;  // Phi with T = worstMs
        std::size_t worst = 0;  // the scenario of worstMs
    };
    struct Result {
        Which which = Which::EachNode;
        double plan1Ms = 0;
        double plan1TokensPerS = 0;
        std::vector<Scenario> scenarios;
        bool robust = false;
        std::vector<RobustPlan> robustPlans;  // best first; plans that cannot resume somewhere are left out
        std::size_t candidates = 0;  // kept plans tried
        std::size_t cannotResume = 0;  // of them, left out
        std::string error;  // nothing could be said, and why
        bool cancelled = false;  // stopped by the caller: the scenarios searched so far, no robust ranking
    };

    // `cancelled` is polled before each scenario and inside its search (the
    // workbench drops a job a newer search made stale).
    static Result run(const SearchRequest& request, const SearchResult& result, const Options& options,
                      const std::function<bool()>& cancelled = {});

    // The scenarios' nodes: per scenario, the nodes whose loss it stands for
    // (the first one is removed). Exposed for tests.
    static std::vector<std::vector<int>> scenarioNodes(const Cluster& cluster, Which which);

    static const char* toString(Which w);
    static bool parse(const std::string& text, Which& out);
};

}  // namespace memx
