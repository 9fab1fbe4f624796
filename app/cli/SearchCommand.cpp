// Over 600 lines: memx-cli search's fifty options and their binding onto the request; the post-search reports are still
// chained here (issue #34 item 4).
#include "cli/Commands.h"
#include "cli/DropoutOptions.h"
#include "cli/PredictorOption.h"

#include "export/CandidateCsv.h"
#include "export/SearchReport.h"
#include "export/SimplexReport.h"
#include "hardware/BandwidthScenarioFile.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/Text.h"
#include "measure/MeasurementCsv.h"
#include "measure/PlanRuns.h"
#include "predict/PredictionStore.h"
#include "search/BandwidthWhatIf.h"
#include "search/NodeChoice.h"
#include "search/NodeLossWhatIf.h"
#include "search/SearchEngine.h"
#include "search/ShapeExplanation.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

namespace memx::cli {

namespace {

struct SearchArgs {
    std::string cluster;
    std::string model = "llama2-7b";
    int gbs = 128;
    std::vector<int> mbs{1, 2, 4};
    std::vector<int> seq;
    std::vector<int> queryGroups;
    std::vector<int> tp;
    std::vector<int> vp{2};
    int maxPP = 8;
    int minPP = 1;
    std::string schedule = "auto";
    std::string recompute = "policy";
    std::string precision = "auto";
    std::string placement = "contiguous";
    std::string meshes = "per-type";
    long long meshSkeletons = 0;
    bool noDistOpt = false;
    bool overlapGradReduce = false;
    bool overlapParamGather = false;
    bool noFlash = false;
    cli::DropoutRates dropout;
    bool noSeqPar = false;
    bool noIdle = false;
    std::string profile = "default";
    std::string weights;
    std::string variance = "mib";
    std::string ev = "uncertainty";
    std::string compareTasks = "per-task";
    std::string eps;  // empty: --ev decides
    std::string minHeadroom, maxSlowdown;
    bool headroomAtUpper = false;
    // Signed, so that a negative value is refused instead of wrapping to 2^64 - 1.
    long long top = 10;
    long long keep = 200;
    std::string json, csv, report;
    bool stats = false;
    bool quiet = false;
    bool progress = false;
    int threads = 0;
    bool noPrune = false;
    bool compare = false;
    std::string predictor = "analytic";
    std::string runsOut;
    long long runsCount = 40;
    double timeLimit = 0;
    double maxMemory = 0;
    std::string simplex;
    bool baselines = false;
    std::string bandwidthScenarios;
    std::string robust;
    std::string nodeLoss;
    std::string whyNot;
    bool chooseNodes = false;
    std::string objective;
    double maxCostPerHour = -1;
    double minTokensPerS = -1;
};

// "10%" or "0.1" -> 0.1; a negative or unreadable value names the option.
double percentOption(const std::string& option, const std::string& text)
{
    std::string s = text;
    const bool percent = !s.empty() && s.back() == '%';
    if (percent)
        s.pop_back();
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != s.size() || !std::isfinite(v) || v < 0)
        throw InputError(option, text, "expected a fraction such as 0.1 or a percentage such as 10%");
    return percent ? v / 100 : v;
}

// A plain finite number, all of `text`; false otherwise.
bool readNumber(const std::string& text, double& out)
{
    std::size_t used = 0;
    try {
        out = std::stod(text, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used > 0 && used == text.size() && std::isfinite(out);
}

// --ev uncertainty|paper|<number in V's unit> and --eps <fraction>, one of them.
void epsilonOption(const std::string& ev, const std::string& eps, ObjectiveSpec& o)
{
    if (!eps.empty()) {
        if (ev != "uncertainty")
            throw InputError("--eps", eps, "give eV once: --ev or --eps, not both");
        double f = 0;
        if (!readNumber(eps, f) || !(f > 0 && f < 1))
            throw InputError("--eps", eps, "expected a small fraction in (0, 1)");
        o.epsilonRule = EpsilonRule::Fraction;
        o.epsilonFraction = f;
        return;
    }
    if (ev == "uncertainty") {
        o.epsilonRule = EpsilonRule::Uncertainty;
    } else if (ev == "paper") {
        o.epsilonRule = EpsilonRule::Fraction;
        o.epsilonFraction = 0.01;
    } else {
        double v = 0;
        if (!readNumber(ev, v) || v < 0)
            throw InputError("--ev", ev,
                             "expected uncertainty, paper, or a number >= 0 in V's unit (GiB^2, or utilisation^2 "
                             "with --variance util)");
        o.epsilonRule = EpsilonRule::Absolute;
        o.epsilonValue = o.variance == VarianceMode::AbsoluteMiB ? v * 1024.0 * 1024.0 : v;
    }
}

// The plans of the search as a run list: the Phi and time rankings first,
// then the plot sample, each plan once, at most `count`. A run list holds
// plans with one TP and DP on every stage (what Megatron-LM runs, and what
// simulate, predict and the measurement readers take); per-mesh plans are
// counted in `perMesh` and left out.
std::vector<Measurement> planRuns(const SearchRequest& req, const SearchResult& r, std::size_t count,
                                  std::size_t& perMesh)
{
    std::vector<Measurement> rows;
    std::vector<std::uint64_t> seen;
    std::size_t n = 0;
    const auto add = [&](const Plan& p) {
        if (n >= count || std::find(seen.begin(), seen.end(), p.key) != seen.end())
            return;
        seen.push_back(p.key);
        if (p.perMesh()) {
            ++perMesh;
            return;
        }
        char id[32];
        std::snprintf(id, sizeof id, "plan%03zu", ++n);
        for (Measurement& m : PlanRuns::rows(p, req.problem, id))
            rows.push_back(std::move(m));
    };
    for (const Plan& p : r.best)
        add(p);
    for (const Plan& p : r.fastest)
        add(p);
    for (const Plan& p : r.plotSample)
        add(p);
    return rows;
}

// `topologyNote`: set when the learned predictor was trained on another topology.
// The flags bound onto a TrainingSetup are checked once, by
// TrainingSetup::validate (the rules every reader of a setup applies); its
// JSON key names become the flag names here.
void validateAsFlags(const TrainingSetup& s)
{
    static const std::vector<std::pair<std::string, std::string>> flags
        = {{"global_batch", "--gbs"},
           {"micro_batch_sizes", "--mbs"},
           {"seq_lens", "--seq"},
           {"query_groups", "--query-groups"},
           {"tensor_parallel", "--tp"},
           {"virtual_stages", "--vp"},
           {"max_pipeline_stages", "--max-pp"},
           {"min_pipeline_stages", "--min-pp"},
           {"precision", "--precision"},
           {"attention_dropout", "--attention-dropout"},
           {"hidden_dropout", "--hidden-dropout"},
           {"overlap_param_gather", "--overlap-param-gather"},
           {"overlap_grad_reduce", "--overlap-grad-reduce"}};
    try {
        s.validate();
    } catch (const InputError& e) {
        std::string flag = e.field(), reason = e.reason();
        for (const auto& [key, name] : flags) {
            if (flag == key)
                flag = name;
            for (std::size_t at = reason.find(key); at != std::string::npos; at = reason.find(key, at + name.size()))
                reason.replace(at, key.size(), name);
        }
        if (flag == "--vp")
            reason += " (1 means no interleaving; use --schedule 1f1b)";
        throw InputError(flag, "", reason);
    }
}

void checkCounts(const SearchArgs& a)
{
    if (a.threads < 0)
        throw InputError("--threads", std::to_string(a.threads), "the thread count must be at least 0 (0 = all cores)");
    if (a.top < 1)
        throw InputError("--top", std::to_string(a.top), "show at least one plan");
    if (a.keep < 1)
        throw InputError("--keep", std::to_string(a.keep), "keep at least one plan per ranking");
    if (a.runsCount < 1)
        throw InputError("--runs-count", std::to_string(a.runsCount), "write at least one plan");
}

// The setup's flags bound onto the value and checked as a setup read from a file is.
void bindSetup(const SearchArgs& a, TrainingSetup& s)
{
    s.globalBatch = a.gbs;
    s.microBatchSizes = a.mbs;
    s.seqLens = a.seq;
    s.queryGroups = a.queryGroups;
    s.tensorParallel = a.tp;
    s.virtualStages = a.vp;
    s.maxPipelineStages = a.maxPP;
    s.minPipelineStages = a.minPP;
    s.distributedOptimizer = !a.noDistOpt;
    s.overlapGradReduce = a.overlapGradReduce || a.overlapParamGather;
    s.overlapParamGather = a.overlapParamGather;
    s.flashAttention = !a.noFlash;
    cli::checkDropoutRates(a.dropout);
    s.attentionDropout = a.dropout.attention;
    s.hiddenDropout = a.dropout.hidden;
    s.sequenceParallel = !a.noSeqPar;
    s.allowIdleGpus = !a.noIdle;
    s.precision = a.precision;  // checked by TrainingSetup::validate and, against the GPUs, by jobPrecision
    if (!parseScheduleMode(a.schedule, s.schedule))
        throw InputError("--schedule", a.schedule, "expected auto, 1f1b, interleaved or both");
    if (!parseRecomputeMode(a.recompute, s.recompute))
        throw InputError("--recompute", a.recompute, "expected policy, enumerate, none, selective or full");
    if (!parsePlacementMode(a.placement, s.placement))
        throw InputError("--placement", a.placement, "expected contiguous or all");
    if (!parseMeshMode(a.meshes, s.meshes))
        throw InputError("--meshes", a.meshes, "expected uniform or per-type");
    validateAsFlags(s);
}

// --weights wT,wM,wV: shares of one whole (MemX Eq. 2).
Weights customWeights(const std::string& text)
{
    std::istringstream in(text);
    char c1 = 0, c2 = 0;
    Weights w;
    std::string rest;
    if (!(in >> w.time >> c1 >> w.memory >> c2 >> w.variance) || c1 != ',' || c2 != ',' || (in >> rest))
        throw InputError("--weights", text, "expected three numbers wT,wM,wV");
    Weights normalised;
    try {
        normalised = Objective::normalised(w);
    } catch (const std::invalid_argument& e) {
        throw InputError("--weights", text, e.what());
    }
    // 1,1,1 is more likely a slip than a wish for equal shares, so say so.
    // Three decimals of rounding (0.333,0.333,0.334) are fine.
    const double sum = w.time + w.memory + w.variance;
    if (std::abs(sum - 1) > 1e-3)
        throw InputError("--weights", text, "the weights must sum to 1 (these sum to " + Text::fmt("%g", sum) + ")");
    return normalised;
}

// The objective's flags bound onto the value and checked as every reader of an objective checks it.
void bindObjective(const SearchArgs& a, ObjectiveSpec& o)
{
    if (!parseProfile(a.profile, o.profile))
        throw InputError("--profile", a.profile,
                         "expected default, safety-first, throughput-first, balanced, custom or auto");
    if (!a.weights.empty()) {
        o.custom = customWeights(a.weights);
        o.profile = WeightProfile::Custom;
    } else if (o.profile == WeightProfile::Custom) {
        throw InputError("--profile", "custom", "give the weights with --weights wT,wM,wV");
    }
    if (a.variance == "mib")
        o.variance = VarianceMode::AbsoluteMiB;
    else if (a.variance == "util")
        o.variance = VarianceMode::Utilisation;
    else
        throw InputError("--variance", a.variance, "expected mib or util");
    epsilonOption(a.ev, a.eps, o);
    if (!parseTaskCompare(a.compareTasks, o.compareTasks))
        throw InputError("--compare-tasks", a.compareTasks, "expected per-task or per-token");
    if (!a.minHeadroom.empty()) {
        o.minHeadroom = percentOption("--min-headroom", a.minHeadroom);
        if (o.minHeadroom >= 1)
            throw InputError("--min-headroom", a.minHeadroom, "a GPU cannot keep all of its memory free");
    }
    o.headroomAtUpper = a.headroomAtUpper;
    if (a.headroomAtUpper && a.minHeadroom.empty())
        throw InputError("--headroom-at-upper", "", "needs --min-headroom");
    if (!a.maxSlowdown.empty())
        o.maxSlowdown = percentOption("--max-slowdown", a.maxSlowdown);
    // What the flags parsed into, checked as every reader of an objective checks it.
    try {
        o.validate();
    } catch (const InputError& e) {
        static const std::map<std::string, std::string> flags = {{"custom_weights", "--weights"},
                                                                 {"epsilon_fraction", "--eps"},
                                                                 {"epsilon", "--ev"},
                                                                 {"min_headroom", "--min-headroom"},
                                                                 {"max_slowdown", "--max-slowdown"}};
        const auto f = flags.find(e.field());
        throw InputError(f == flags.end() ? e.field() : f->second, "", e.reason());
    }
}

// --keep costs only when something is written; and never more plans
// than about 1 GiB holds (a plan and its stages in memory and in JSON:
// about 1.5 KiB plus 1 KiB per stage).
std::size_t keptPlans(const SearchArgs& a)
{
    const bool writes = !a.json.empty() || !a.csv.empty() || !a.runsOut.empty();
    long long keep = writes ? std::max(a.top, a.keep) : a.top;
    const long long perPlan = 1536 + 1024LL * std::max(1, a.maxPP);
    const long long cap = std::max(1LL, (1LL << 30) / (perPlan * 4));  // four ranked lists
    if (keep > cap) {
        std::fprintf(stderr,
                     "note: --%s %lld would keep about %.1f GiB of plans; keeping %lld per ranking (about 1 GiB)\n",
                     a.keep >= a.top ? "keep" : "top", keep, static_cast<double>(keep) * perPlan * 4 / (1 << 30), cap);
        keep = cap;
    }
    return static_cast<std::size_t>(keep);
}

void bindOptions(const SearchArgs& a, SearchRequest& req)
{
    req.options.topK = keptPlans(a);
    req.options.threads = a.threads;
    if (!(a.timeLimit >= 0) || !std::isfinite(a.timeLimit))
        throw InputError("--time-limit", std::to_string(a.timeLimit), "expected seconds, 0 or more (0: no limit)");
    req.options.timeLimitS = a.timeLimit;
    if (!(a.maxMemory >= 0) || !std::isfinite(a.maxMemory))
        throw InputError("--max-memory", std::to_string(a.maxMemory), "expected MiB, 0 or more (0: no cap)");
    req.options.maxMemoryMiB = a.maxMemory;
    req.options.baselines = a.baselines;
    if (a.meshSkeletons < 0)
        throw InputError("--mesh-skeletons", std::to_string(a.meshSkeletons),
                         "expected a count, 0 or more (0: the default cap)");
    req.options.meshSkeletons = static_cast<std::size_t>(a.meshSkeletons);
    req.options.prune = !a.noPrune;
    if (a.compare)
        req.compareProfiles = {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst,
                               WeightProfile::Custom};
}

// A learned predictor for the search, refused when it was not trained for
// this cluster and model; the topology it was trained on noted.
void usePredictor(const SearchArgs& a, SearchRequest& req, std::string& topologyNote)
{
    LoadedPredictor p = loadPredictor(a.predictor);
    std::vector<std::string> problems, warnings;
    PredictorFile::checkFits(p.metadata, req.problem, problems, warnings);
    if (!problems.empty()) {
        std::string all;
        for (const auto& x : problems)
            all += (all.empty() ? "" : "; ") + x;
        throw InputError(a.predictor, "trained_on", "does not fit this search: " + all);
    }
    printWarnings(warnings);
    std::vector<std::string> types;
    for (const GpuType& t : req.problem.cluster.types())
        types.push_back(t.name);
    topologyNote = warnTopology(p, &req.problem.cluster, types);
    req.predictor = p.predictor;
}

SearchRequest buildRequest(const SearchArgs& a, std::string& topologyNote)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(a.cluster);
    req.problem.model = ModelSpec::resolve(a.model);
    checkCounts(a);
    bindSetup(a, req.problem.setup);
    bindObjective(a, req.objective);
    bindOptions(a, req);
    if (a.predictor != "analytic")
        usePredictor(a, req, topologyNote);
    return req;
}

// The analyses asked for beside the search (what-if bandwidth, node choice,
// node loss, why-not, the weight simplex), checked before the search runs:
// a bad scenario file, shape or price is refused before minutes of search.
SearchFollowUps followUpsOf(const SearchArgs& a, SearchRequest& req)
{
    SearchFollowUps asked;
    int whyTp = 0, whyPp = 0, whyDp = 0;
    if (!a.whyNot.empty() && !ShapeExplanation::parseShape(a.whyNot, whyTp, whyPp, whyDp))
        throw InputError("--why-not", a.whyNot, "expected TP,PP,DP: three whole numbers of at least 1, e.g. 8,1,2");
    asked.nodeLoss = !a.nodeLoss.empty() || a.robust == "node-loss";
    if (!a.nodeLoss.empty() && !NodeLossWhatIf::parse(a.nodeLoss, asked.nodeLossOptions.which))
        throw InputError("--node-loss", a.nodeLoss, "expected each or per-type");
    asked.nodeLossOptions.topK = static_cast<std::size_t>(a.top);
    if (a.robust == "node-loss") {
        asked.nodeLossOptions.robust = true;
    } else if (!a.robust.empty()) {
        if (a.robust == "worst")
            asked.whatIf.robust = BandwidthWhatIf::Robust::Worst;
        else if (a.robust == "mean")
            asked.whatIf.robust = BandwidthWhatIf::Robust::Mean;
        else
            throw InputError("--robust", a.robust, "expected worst, mean or node-loss");
        if (a.bandwidthScenarios.empty())
            throw InputError("--robust", a.robust, "needs --bandwidth-scenarios FILE");
    }
    if (!a.bandwidthScenarios.empty()) {  // the scenario file is checked before the search runs
        asked.scenarios = BandwidthScenarioFile::load(a.bandwidthScenarios, req.problem.cluster);
        asked.whatIf.topK = static_cast<std::size_t>(a.top);
        if (!req.store)
            req.store = std::make_shared<PredictionStore>();  // the scenarios re-plan from it
    }
    asked.chooseNodes = a.chooseNodes || !a.objective.empty() || a.maxCostPerHour >= 0 || a.minTokensPerS >= 0;
    if (!a.objective.empty() && !NodeChoice::parseRank(a.objective, asked.choice.rank))
        throw InputError("--objective", a.objective, "expected throughput or cost");
    if (asked.choice.rank == NodeChoice::Rank::Cost) {
        std::vector<std::string> unpriced;
        for (const GpuType& t : req.problem.cluster.types())
            if (t.pricePerHour < 0)
                unpriced.push_back(t.name);
        if (!unpriced.empty())
            throw InputError("--objective", a.objective,
                             "needs a price per GPU-hour for every GPU type; " + Text::join(unpriced) + " ha"
                                 + (unpriced.size() == 1 ? "s" : "ve")
                                 + " none (price_per_gpu_hour in the catalog or the cluster's gpu_types)");
    }
    for (auto [option, value] :
         {std::pair{"--max-cost-per-hour", a.maxCostPerHour}, std::pair{"--min-tokens-per-s", a.minTokensPerS}})
        if (value != -1 && !(value >= 0 && std::isfinite(value)))
            throw InputError(option, Text::fmt("%g", value), "must be a number of at least 0");
    asked.choice.maxCostPerHour = a.maxCostPerHour;
    asked.choice.minTokensPerS = a.minTokensPerS;
    if ((asked.nodeLoss || asked.chooseNodes) && !req.store)
        req.store = std::make_shared<PredictionStore>();  // the scenarios re-plan from it
    asked.scenarioFile = a.bandwidthScenarios;
    if (!a.whyNot.empty())
        asked.whyNot = std::array<int, 3>{whyTp, whyPp, whyDp};
    asked.simplex = !a.simplex.empty();
    return asked;
}

// The problem: cluster, model, training setup and the space searched.
void addProblemOptions(CLI::App* cmd, const std::shared_ptr<SearchArgs>& args)
{
    cmd->add_option("--cluster", args->cluster, "Cluster file (memx-cluster/1 JSON)")->required();
    cmd->add_option("--model", args->model, "Model preset (see `memx-cli models`) or memx-model/1 JSON file")
        ->capture_default_str();
    cmd->add_option("--gbs", args->gbs, "Global batch size (sequences per iteration)")->capture_default_str();
    cmd->add_option("--mbs", args->mbs, "Candidate micro-batch sizes")->delimiter(',')->capture_default_str();
    cmd->add_option("--seq", args->seq, "Candidate sequence lengths (default: the model's)")->delimiter(',');
    cmd->add_option("--query-groups", args->queryGroups, "Candidate query-group counts (default: the model's)")
        ->delimiter(',');
    cmd->add_option("--tp", args->tp, "Candidate TP degrees (default: powers of two that fit a device group)")
        ->delimiter(',');
    cmd->add_option("--vp", args->vp, "Virtual-stage sizes to try for the interleaved schedule")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--max-pp", args->maxPP, "Largest number of pipeline stages")->capture_default_str();
    cmd->add_option("--min-pp", args->minPP, "Smallest number of pipeline stages")->capture_default_str();
    cmd->add_option("--schedule", args->schedule, "auto (the paper's adaptive rule), 1f1b, interleaved or both")
        ->capture_default_str();
    cmd->add_option("--recompute", args->recompute,
                    "policy (per-stage, paper 3.1.1), enumerate (every per-stage combination), or one level "
                    "for all stages: none, selective, full")
        ->capture_default_str();
    cmd->add_option("--placement", args->placement,
                    "contiguous (stages of one device group stay together) or all (every stage order)")
        ->capture_default_str();
    cmd->add_option("--meshes", args->meshes,
                    "uniform (every stage one TP x DP, as Megatron-LM runs) or per-type (also plans where each GPU "
                    "type's stages form a mesh with its own TP and DP, as FlagScale's --hetero-process-meshes runs; "
                    "such plans export to FlagScale only). On a cluster of one GPU type the two are the same")
        ->capture_default_str();
    cmd->add_option("--mesh-skeletons", args->meshSkeletons,
                    "per-type mesh choices searched at most (0: the default); above it those with the lowest bound "
                    "on their iteration time are searched and the report says what was left out")
        ->capture_default_str();
    cmd->add_option("--precision", args->precision,
                    "Training precision on every GPU: auto (bf16 where every type has it, else fp16, else fp32), "
                    "fp32, tf32, fp16, bf16 or fp8 (Transformer Engine)")
        ->capture_default_str();
    cmd->add_flag("--no-distributed-optimizer", args->noDistOpt, "Keep full optimizer state on every DP rank");
    cmd->add_flag("--overlap-grad-reduce", args->overlapGradReduce,
                  "Plan for Megatron's --overlap-grad-reduce: gradients reduced during the last backward (off, as in "
                  "Megatron, unless given)");
    cmd->add_flag("--overlap-param-gather", args->overlapParamGather,
                  "Plan for Megatron's --overlap-param-gather: weights gathered during the next forward; needs the "
                  "distributed optimizer and implies --overlap-grad-reduce");
    cmd->add_flag("--no-flash-attention", args->noFlash, "Model attention without FlashAttention (s^2 memory)");
    cli::addDropoutOptions(cmd, args->dropout);
    cmd->add_flag("--no-sequence-parallel", args->noSeqPar,
                  "Model TP without Megatron's sequence parallelism (norm inputs replicated on every TP rank)");
    cmd->add_flag("--no-idle-gpus", args->noIdle, "Skip TP x DP sizes that leave GPUs of a group idle");
}

// How plans are ranked: profile, weights, variance, eV, constraints.
void addObjectiveOptions(CLI::App* cmd, const std::shared_ptr<SearchArgs>& args)
{
    cmd->add_option("--profile", args->profile, "default, safety-first, throughput-first, balanced, custom or auto")
        ->capture_default_str();
    cmd->add_option("--weights", args->weights, "Custom weights wT,wM,wV, summing to 1 (implies custom)");
    cmd->add_option("--variance", args->variance, "Memory variance over absolute MiB (mib) or utilisation (util)")
        ->capture_default_str();
    cmd->add_option("--ev", args->ev,
                    "eV, the floor under V in Phi: uncertainty (follows the memory predictions' +-%), paper "
                    "(0.01 x the median V, as MemX), or a number in V's unit (GiB^2, or utilisation^2)")
        ->capture_default_str();
    cmd->add_option("--eps", args->eps, "eV as this fraction of the median variance (instead of --ev)");
    cmd->add_option("--compare-tasks", args->compareTasks,
                    "With several --seq or --query-groups values: per-task (each task ranked on its own, bests side "
                    "by side) or per-token (one ranking by time per token)")
        ->capture_default_str();
    cmd->add_option("--min-headroom", args->minHeadroom,
                    "Only plans where every GPU keeps this much memory free (10% or 0.1), before Phi ranks");
    cmd->add_flag("--headroom-at-upper", args->headroomAtUpper,
                  "Count --min-headroom at the prediction's upper bound (peak x (1 + uncertainty))");
    cmd->add_option(
        "--max-slowdown", args->maxSlowdown,
        "Only plans at most this much slower than the fastest feasible plan (10% or 0.1), before Phi ranks");
}

// What is written and how the search runs.
void addOutputOptions(CLI::App* cmd, const std::shared_ptr<SearchArgs>& args)
{
    cmd->add_option("--top", args->top, "Plans shown in the table")->capture_default_str();
    cmd->add_option("--keep", args->keep, "Plans kept per ranking for --json and --csv")->capture_default_str();
    cmd->add_option("--json", args->json, "Write the search as memx-search/2 JSON");
    cmd->add_option("--csv", args->csv, "Write the ranked plans and the Pareto fronts as CSV");
    cmd->add_option("--report", args->report, "Also write the text report to this file");
    cmd->add_flag("--stats", args->stats, "Print search statistics (counts, pruning, time, candidates/s)");
    cmd->add_flag("--progress", args->progress, "Print progress to stderr");
    cmd->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
    cmd->add_option("--threads", args->threads,
                    "Worker threads (0: every core this process may use, its CPU affinity and cgroup quota counted)")
        ->capture_default_str();
    cmd->add_flag("--compare", args->compare,
                  "Also rank under the other weight profiles and spell out how their winners differ");
    cmd->add_option("--predictor", args->predictor,
                    "analytic, or a learned predictor file from `memx-cli train` (refused when it has no data for a "
                    "GPU type of the cluster or for the model's structure)")
        ->capture_default_str();
    cmd->add_option("--runs-out", args->runsOut,
                    "Write the top plans as a run list (memx-measurements/1) for simulate, predict or measuring "
                    "(plans with one TP and DP on every stage; per-mesh plans are left out, and counted on stderr)");
    cmd->add_option("--runs-count", args->runsCount, "Plans in --runs-out")->capture_default_str();
    cmd->add_option("--simplex", args->simplex,
                    "Write which kept plan wins at every weighting (wT, wM, wV) on a 0.05 grid of the simplex (231 "
                    "points) as CSV, and summarise the regions in the report");
    cmd->add_flag(
        "--baselines", args->baselines,
        "Also pick the plan of each baseline planner (compute-proportional, memory-proportional, Metis-style, "
        "FaSOP-style) on the same space and predictor, and tabulate them beside MemX's (docs/BASELINES.md)");
}

// What runs beside the search: what-if, node choice and loss, why-not, limits.
void addFollowUpOptions(CLI::App* cmd, const std::shared_ptr<SearchArgs>& args)
{
    cmd->add_option("--bandwidth-scenarios", args->bandwidthScenarios,
                    "What-if bandwidth: a memx-bandwidth-scenarios/1 file of links scaled by kind, name or shared "
                    "medium (steady or as a time profile); reports plan 1's slowdown under each and re-plans for it "
                    "from the prediction store (docs/WHAT_IF_BANDWIDTH.md)");
    cmd->add_option("--robust", args->robust,
                    "With --bandwidth-scenarios: also rank the kept plans by their worst or mean time over the "
                    "scenarios (worst, mean). node-loss: rank them by their worst time when any one node is lost "
                    "(implies --node-loss each unless given)");
    cmd->add_flag(
        "--choose-nodes", args->chooseNodes,
        "Also search the cluster with the nodes of each set of GPU types left out and set the best plans side "
        "by side: tokens/s, and with prices (price_per_gpu_hour) cost per hour and per million tokens");
    cmd->add_option("--objective", args->objective,
                    "With --choose-nodes: rank the choices by throughput (tokens/s) or cost (per million tokens; "
                    "needs a price for every GPU type)");
    cmd->add_option("--max-cost-per-hour", args->maxCostPerHour,
                    "With --choose-nodes: drop choices whose nodes cost more per hour (implies --choose-nodes)");
    cmd->add_option("--min-tokens-per-s", args->minTokensPerS,
                    "With --choose-nodes: drop choices that deliver fewer tokens per second (implies --choose-nodes)");
    cmd->add_option("--node-loss", args->nodeLoss,
                    "Node-loss what-if: re-plan the cluster without each node (each; alike nodes once) or each GPU "
                    "type's first node (per-type) and report the best plan and its slowdown for each");
    cmd->add_option("--why-not", args->whyNot,
                    "TP,PP,DP: say why no plan has this shape (the rule, the stage slots or the memory that stops "
                    "it), or how many of its plans fit; in the report and as why_not in --json");
    cmd->add_option("--time-limit", args->timeLimit,
                    "Stop after this many seconds with the best plans found so far, marked incomplete in the report "
                    "and in --json (0: no limit)")
        ->capture_default_str();
    cmd->add_option(
           "--max-memory", args->maxMemory,
           "Cap what the search keeps (sample, Pareto fronts, plot sample, prediction and stage-row caches) to about this "
           "many MiB; smaller medians' samples and fronts, said in --stats (0: no cap)")
        ->capture_default_str();
    cmd->add_flag("--no-prune", args->noPrune, "Disable memory and bound pruning (brute force, for checking)");
}

}  // namespace

void addSearchCommand(CLI::App& app, int& exitCode)
{
    auto args = std::make_shared<SearchArgs>();
    auto* cmd = app.add_subcommand("search", "Search training plans for a cluster, rank them by Phi and by time");
    addProblemOptions(cmd, args);
    addObjectiveOptions(cmd, args);
    addOutputOptions(cmd, args);
    addFollowUpOptions(cmd, args);

    cmd->callback([args, &exitCode] {
        std::string topologyNote;
        SearchRequest req = buildRequest(*args, topologyNote);
        SearchFollowUps asked = followUpsOf(*args, req);
        SearchEngine::ProgressFn progress;
        if (args->progress)
            progress = [](const SearchProgress& p) {
                // As the workbench says it: under a second of a search that
                // still runs is "finishing", never "0.0s left".
                char left[32] = "estimating";
                if (p.remainingS >= 1)
                    std::snprintf(left, sizeof left, "%.1fs left", p.remainingS);
                else if (p.remainingS >= 0)
                    std::snprintf(left, sizeof left, "finishing");
                std::fprintf(stderr, "\rphase %d  %5.1f%%  explored %llu  feasible %llu  pruned %llu  %.1fs, %s   ",
                             p.phase, p.permille / 10.0, static_cast<unsigned long long>(p.explored),
                             static_cast<unsigned long long>(p.feasible), static_cast<unsigned long long>(p.pruned),
                             p.elapsedS, left);
            };
        SearchResult r = SearchEngine::run(req, progress);
        if (args->progress)
            std::fprintf(stderr, "\n");
        if (r.invalidRequest) {
            std::cerr << "memx-cli: " << r.error << "\n";
            exitCode = BadInput;
            return;
        }
        if (!topologyNote.empty())
            r.notes.push_back(topologyNote);
        const SearchReport reports = SearchReport::of(req, r, asked);
        // Every file of the command is written as one set at the end
        // (writeFilesAtomically): a full disk leaves all of them as they were.
        std::vector<OutputFile> outputs;
        if (!args->json.empty())
            outputs.push_back({args->json, reports.json(req, r, asked).dump(1) + "\n"});
        if (reports.simplex)
            outputs.push_back({args->simplex, SimplexReport::csv(*reports.simplex, req.problem.cluster)});
        const std::string report
            = reports.text(req, r, asked, {static_cast<std::size_t>(args->top), args->stats, topologyNote});
        if (!args->csv.empty())
            outputs.push_back({args->csv, CandidateCsv::write(r)});
        std::size_t perMeshLeftOut = 0;
        if (!args->runsOut.empty() && r.error.empty())
            outputs.push_back({args->runsOut,
                               MeasurementCsv::checkedText(args->runsOut,
                                                           planRuns(req, r, static_cast<std::size_t>(args->runsCount),
                                                                    perMeshLeftOut),
                                                           MeasurementCsv::Kind::RunList)});
        if (!args->report.empty())
            outputs.push_back({args->report, report});
        writeFilesAtomically(outputs);
        if (perMeshLeftOut > 0)
            std::cerr << "--runs-out " << args->runsOut << ": " << perMeshLeftOut
                      << " per-mesh plan(s) left out: a run list holds plans with one TP and DP on every stage, as "
                         "Megatron-LM runs them and simulate, predict and profile read them\n";
        if (!r.incomplete.empty() && args->quiet)
            std::cerr << "incomplete: " << r.incomplete << "\n";
        if (!r.error.empty()) {
            std::cerr << report;
            exitCode = NoFeasiblePlan;
            return;
        }
        if (!args->quiet)
            std::cout << report;
        exitCode = Ok;
    });
}

}  // namespace memx::cli
