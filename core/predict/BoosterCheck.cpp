#include "predict/BoosterCheck.h"

#include "io/InputError.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace memx {

namespace {

const char* kTrees = "booster/learner/gradient_booster/model/trees";

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& why)
{
    throw InputError(file, field, why);
}

const nlohmann::json& member(const nlohmann::json& j, const char* key, const std::string& file, const std::string& path)
{
    if (!j.is_object() || !j.contains(key))
        fail(file, path, std::string("missing \"") + key + "\"");
    return j.at(key);
}

// XGBoost writes counts as strings ("21") in its parameter objects.
long long count(const nlohmann::json& v, const std::string& file, const std::string& path)
{
    try {
        if (v.is_number_integer())
            return v.get<long long>();
        if (v.is_string()) {
            std::size_t used = 0;
            const long long n = std::stoll(v.get<std::string>(), &used);
            if (used == v.get<std::string>().size())
                return n;
        }
    } catch (const std::exception&) {
    }
    fail(file, path, "expected a whole number, got " + v.dump());
}

// One tree of the booster, checked in the order XGBoost's loader would trip.
class TreeCheck {
public:
    TreeCheck(const nlohmann::json& tree, std::size_t index, std::size_t features, const std::string& file)
        : tree_(tree)
        , features_(features)
        , file_(file)
        , path_(std::string(kTrees) + "/" + std::to_string(index))
        , name_("tree " + std::to_string(index))
    {
    }

    void run()
    {
        n_ = count(member(member(tree_, "tree_param", file_, path_), "num_nodes", file_, path_ + "/tree_param"), file_,
                   path_ + "/tree_param/num_nodes");
        if (n_ < 1 || n_ > 100000000)
            fail(file_, path_ + "/tree_param/num_nodes", name_ + ": " + std::to_string(n_) + " nodes");
        nodes_ = static_cast<std::size_t>(n_);
        listSizes();
        eachNode();
        parents();
        reachable();
    }

private:
    std::string nodeName(std::size_t k) const { return name_ + ", node " + std::to_string(k); }

    // Every per-node list XGBoost's RegTree::LoadModel indexes by node: one
    // short list (split_type, say) makes it read past the end and crash.
    void listSizes() const
    {
        for (const char* key : {"left_children", "right_children", "parents", "split_indices", "split_conditions",
                                "default_left", "base_weights", "loss_changes", "sum_hessian", "split_type"}) {
            const nlohmann::json& a = member(tree_, key, file_, path_);
            if (!a.is_array() || a.size() != nodes_)
                fail(file_, path_ + "/" + key,
                     name_ + ": " + (a.is_array() ? std::to_string(a.size()) + " entries" : std::string("not a list"))
                         + " for " + std::to_string(nodes_) + " nodes");
        }
    }

    long long child(const char* key, std::size_t k) const
    {
        const nlohmann::json& v = tree_.at(key)[k];
        if (!v.is_number_integer())
            fail(file_, path_ + "/" + key, nodeName(k) + ": child " + v.dump() + " is not a node");
        const long long c = v.get<long long>();
        if (c != -1 && (c < 1 || c >= n_))
            fail(file_, path_ + "/" + key,
                 nodeName(k) + ": child " + std::to_string(c) + " outside the tree's " + std::to_string(n_) + " nodes");
        return c;
    }

    // A finite number at tree[key][k], or the message `what` names.
    void finite(const char* key, std::size_t k, const char* what) const
    {
        const nlohmann::json& v = tree_.at(key)[k];
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            fail(file_, path_ + "/" + key, nodeName(k) + ": " + what + " " + v.dump() + " is not a finite number");
    }

    // Children, split types, weights, split features and values.
    void eachNode()
    {
        referenced_.assign(nodes_, 0);
        const nlohmann::json& split = tree_.at("split_indices");
        for (std::size_t k = 0; k < nodes_; ++k) {
            const long long l = child("left_children", k), r = child("right_children", k);
            if ((l == -1) != (r == -1))
                fail(file_, path_ + "/left_children", nodeName(k) + ": one child only");
            // MemX's features are all numerical: a categorical split (1) would send
            // XGBoost into the categories lists, which no MemX model has.
            const nlohmann::json& st = tree_.at("split_type")[k];
            if (!st.is_number_integer() || st.get<long long>() != 0)
                fail(file_, path_ + "/split_type",
                     nodeName(k) + ": split type " + st.dump() + " (MemX models split numerically: 0)");
            finite("base_weights", k, "weight");
            if (l == -1)
                continue;
            ++referenced_[static_cast<std::size_t>(l)];
            ++referenced_[static_cast<std::size_t>(r)];
            const nlohmann::json& f = split[k];
            if (!f.is_number_integer() || f.get<long long>() < 0
                || static_cast<std::size_t>(f.get<long long>()) >= features_)
                fail(file_, path_ + "/split_indices",
                     nodeName(k) + ": split feature " + f.dump() + " outside the " + std::to_string(features_)
                         + " features of the schema");
            finite("split_conditions", k, "split value");
        }
    }

    // Parents as XGBoost stores them (it follows them while loading): the
    // root's is 2147483647 (none), every other node's the node whose child it is.
    void parents() const
    {
        const nlohmann::json& left = tree_.at("left_children");
        const nlohmann::json& right = tree_.at("right_children");
        const nlohmann::json& parents = tree_.at("parents");
        std::vector<long long> parentOf(nodes_, -1);
        for (std::size_t k = 0; k < nodes_; ++k)
            if (const long long l = left[k].get<long long>(); l != -1) {
                parentOf[static_cast<std::size_t>(l)] = static_cast<long long>(k);
                parentOf[static_cast<std::size_t>(right[k].get<long long>())] = static_cast<long long>(k);
            }
        for (std::size_t k = 0; k < nodes_; ++k) {
            const long long want = k == 0 ? 2147483647LL : parentOf[k];
            if (!parents[k].is_number_integer() || parents[k].get<long long>() != want)
                fail(file_, path_ + "/parents",
                     nodeName(k) + ": parent " + parents[k].dump() + ", but "
                         + (k == 0 ? std::string("the root has none (2147483647)")
                                   : "it is the child of node " + std::to_string(want)));
        }
        for (std::size_t k = 1; k < nodes_; ++k)
            if (referenced_[k] != 1)
                fail(file_, path_ + "/left_children",
                     nodeName(k) + ": the child of " + std::to_string(referenced_[k])
                         + " nodes (every node but the root has one parent)");
    }

    // Every node has one parent and children point forward or back: a walk
    // from the root must reach all nodes exactly once, else there is a cycle.
    void reachable() const
    {
        const nlohmann::json& left = tree_.at("left_children");
        const nlohmann::json& right = tree_.at("right_children");
        std::vector<char> seen(nodes_, 0);
        std::vector<std::size_t> stack{0};
        std::size_t reached = 0;
        while (!stack.empty()) {
            const std::size_t k = stack.back();
            stack.pop_back();
            if (seen[k])
                fail(file_, path_ + "/left_children", nodeName(k) + ": reached twice (a cycle)");
            seen[k] = 1;
            ++reached;
            const long long l = left[k].get<long long>();
            if (l != -1) {
                stack.push_back(static_cast<std::size_t>(l));
                stack.push_back(static_cast<std::size_t>(right[k].get<long long>()));
            }
        }
        if (reached != nodes_)
            fail(file_, path_ + "/left_children",
                 name_ + ": " + std::to_string(nodes_ - reached) + " node(s) not reachable from the root (a cycle)");
    }

    const nlohmann::json& tree_;
    std::size_t features_;
    const std::string& file_;
    const std::string path_, name_;
    long long n_ = 0;
    std::size_t nodes_ = 0;
    std::vector<int> referenced_;
};

void checkTree(const nlohmann::json& tree, std::size_t index, std::size_t features, const std::string& file)
{
    TreeCheck(tree, index, features, file).run();
}

}  // namespace

void BoosterCheck::validate(const nlohmann::json& booster, std::size_t features, const std::string& file)
{
    const nlohmann::json& learner = member(booster, "learner", file, "booster");
    const nlohmann::json& lmp = member(learner, "learner_model_param", file, "booster/learner");
    const long long nf = count(member(lmp, "num_feature", file, "booster/learner/learner_model_param"), file,
                               "booster/learner/learner_model_param/num_feature");
    if (nf != static_cast<long long>(features))
        fail(file, "booster/learner/learner_model_param/num_feature",
             std::to_string(nf) + " features where the schema has " + std::to_string(features));
    // A MemX booster predicts two targets (time, memory) by regression: one
    // output group per target. XGBoost trusts tree_info; a group outside the
    // outputs corrupted its heap (fuzz_predictor, tree_info [0, 7]).
    const std::string lpath = "booster/learner/learner_model_param";
    const long long targets = lmp.contains("num_target") ? count(lmp.at("num_target"), file, lpath + "/num_target") : 1;
    const long long classes = lmp.contains("num_class") ? count(lmp.at("num_class"), file, lpath + "/num_class") : 0;
    if (targets != 2 || classes != 0)
        fail(file, lpath,
             "num_target " + std::to_string(targets) + ", num_class " + std::to_string(classes)
                 + ": a MemX model predicts two targets (time, memory) by regression (num_target 2, num_class 0)");
    const nlohmann::json& gb = member(learner, "gradient_booster", file, "booster/learner");
    const nlohmann::json& model = member(gb, "model", file, "booster/learner/gradient_booster");
    const std::string mpath = "booster/learner/gradient_booster/model";
    const nlohmann::json& trees = member(model, "trees", file, mpath);
    const nlohmann::json& info = member(model, "tree_info", file, mpath);
    if (!trees.is_array() || !info.is_array() || trees.size() != info.size())
        fail(file, mpath + "/tree_info", "the tree list and tree_info differ in length");
    const long long declared = count(member(member(model, "gbtree_model_param", file, mpath), "num_trees", file,
                                            mpath + "/gbtree_model_param"),
                                     file, mpath + "/gbtree_model_param/num_trees");
    if (declared != static_cast<long long>(trees.size()))
        fail(file, mpath + "/gbtree_model_param/num_trees",
             std::to_string(declared) + " trees declared, " + std::to_string(trees.size()) + " present");
    const nlohmann::json& gmp = model.at("gbtree_model_param");
    if (gmp.contains("num_parallel_tree")
        && count(gmp.at("num_parallel_tree"), file, mpath + "/gbtree_model_param/num_parallel_tree") != 1)
        fail(file, mpath + "/gbtree_model_param/num_parallel_tree",
             "MemX trains one tree per round (1), got " + gmp.at("num_parallel_tree").dump());
    for (std::size_t i = 0; i < info.size(); ++i)
        if (!info[i].is_number_integer() || (info[i].get<long long>() != 0 && info[i].get<long long>() != 1))
            fail(file, mpath + "/tree_info",
                 "tree " + std::to_string(i) + ": output " + info[i].dump() + " (0: time, 1: memory)");
    for (std::size_t i = 0; i < trees.size(); ++i)
        checkTree(trees[i], i, features, file);
}

std::string BoosterCheck::checksum(const nlohmann::json& booster)
{
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : booster.dump()) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
}

}  // namespace memx
