#pragma once

#include "export/LaunchFiles.h"
#include "model/Recompute.h"

#include <string>
#include <vector>

namespace memx {

struct PlanDocument;

// One FlagScale process mesh: (tp, cp, ep, dp, pp) on one device type.
struct HeteroMesh {
    int tp = 1, cp = 1, ep = 1, dp = 1, pp = 1;
    std::string deviceType;
};

// The heterogeneous part of a FlagScale training config, as FlagScale's
// argument validation sees it (flagscale/train/arguments.py @ da4935e).
struct HeteroConfig {
    int numLayers = 0;
    int pipelineParallel = 0;  // global --pipeline-model-parallel-size
    int microBatch = 1;
    int globalBatch = 1;
    int virtualStages = 1;  // FlagScale hetero: must stay 1
    bool standaloneEmbeddingStage = false;
    bool tiedEmbeddings = false;
    bool distributedOptimizer = true;
    bool partialReduceSharedEmbedding = false;
    std::vector<HeteroMesh> meshes;
    std::vector<int> layerSplit;  // per pipeline stage
    std::vector<std::string> deviceTypes;
    std::string currentDeviceType;
    std::vector<Recompute> stageRecompute;  // per pipeline stage
};

// FlagScale heterogeneous-training export: conf/train_hetero.yaml (the
// experiment: torchrun runner, static rendezvous, hostfile, per-type
// environment), conf/train/memx_plan.yaml (system/model/data with the hetero
// block and per-stage recompute lists), and a hostfile with type= per host.
class FlagScaleExport {
public:
    // Every FlagScale rule the config breaks, one sentence each (empty: valid):
    // sum of mesh PP = PP, equal CP, (dp0 x mbs) % dp_i == 0, split of length
    // PP summing to num_layers, no virtual pipeline, no standalone embedding
    // stage, tied embeddings need equal first/last TP (and partial reduce when
    // DPs differ with the distributed optimizer), one device type per mesh,
    // current type among them, per-stage recompute none or full.
    static std::vector<std::string> validate(const HeteroConfig& c);

    // The config of a plan. Throws InputError (file = the plan file, field
    // "--target flagscale") when FlagScale cannot place the plan: a GPU type
    // hosting two separate runs of stages, a host with two GPU types, an
    // interleaved schedule, or any rule of validate().
    static HeteroConfig configFor(const PlanDocument& doc, const LaunchLayout& layout);

    // FlagScale has no per-stage selective recomputation: a plan that mixes
    // selective with other levels runs with full instead of selective on those
    // stages (the nearest expressible plan). Uniform plans are kept.
    static std::vector<Recompute> expressibleRecompute(const std::vector<Recompute>& levels);

    // "[[n_stages, n_microbatches, value], ...]" for one per-stage list;
    // consecutive stages with the same value share one entry.
    enum class RecomputeList { Granularity, Method, NumLayers };
    static std::string perStageList(const std::vector<Recompute>& levels, int microBatchCount, RecomputeList which);

    // `destination`: the folder the files go to, so that the launcher names
    // the hostfile by its absolute path (empty: "hostfile", relative to where
    // run.py starts, with a note).
    static std::vector<ExportedFile> files(const PlanDocument& doc, const std::string& destination = {});
};

}  // namespace memx
