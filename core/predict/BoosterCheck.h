#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>

namespace memx {

// A learned model's booster (XGBoost's JSON model) checked before XGBoost
// reads it, so that a damaged or hand-edited file is refused with a message
// naming the tree and node instead of crashing or mispredicting:
//   - the tree count agrees with gbtree_model_param and tree_info, and the
//     feature count with the schema the predictor was built for;
//   - every per-node array of a tree has num_nodes entries;
//   - children are -1 (leaf, both) or nodes of the tree, every node but the
//     root is the child of exactly one node, and a walk from the root reaches
//     every node once (no cycle, nothing detached);
//   - split features lie within the schema, split values and leaf weights
//     are finite numbers.
// The predictor file also carries a checksum of the booster (checksum()),
// which the loader compares when present.
struct BoosterCheck {
    // Throws InputError(file, "booster/.../trees/<i>/<array>", "tree i, node k: ...").
    static void validate(const nlohmann::json& booster, std::size_t features, const std::string& file);
    // "fnv1a64:<16 hex digits>" of the booster's compact JSON text.
    static std::string checksum(const nlohmann::json& booster);
};

}  // namespace memx
