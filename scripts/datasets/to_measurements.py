#!/usr/bin/env python3
"""Convert four public measurement datasets into memx-measurements/1 files.

    python3 scripts/datasets/to_measurements.py --datasets /work/shared/datasets \
        --out tests/data/measurements

Writes megatron_ci.csv, mist_aceso.csv, simumax_b200.csv and sailor_layers.csv
(docs/MEASUREMENTS.md) and prints, per file, the rows written and the source
rows / runs dropped with their reasons. Standard library only; the output is
deterministic (rows in source order, numbers as exact decimals). Every mapping
decision is documented in docs/DATASETS_AS_MEASUREMENTS.md.
"""

import argparse
import collections
import csv
import io
import json
import os
import sys
from decimal import Decimal

FORMAT_LINE = "# format: memx-measurements/1"
COLUMNS = [
    "run_id", "source", "gpu_type", "num_gpus", "tp", "pp", "dp", "vp", "mbs", "gbs", "seq_len",
    "num_layers", "hidden", "ffn_hidden", "heads", "query_groups", "vocab", "recompute", "stage",
    "stage_layers", "iteration_time_ms", "stage_time_ms", "peak_mem_mib",
    # Optional run-level columns, last and together (docs/MEASUREMENTS.md): cluster (empty = the
    # synthetic cluster; Sailor's runs name the clusters their measured wiring gives), precision (empty = bf16), peak_mem_kind (empty = allocated) and
    # mlp (empty = swiglu; gelu where the run had no --swiglu), tied_embeddings (empty = false),
    # attention (empty = flash), the dropout rates (empty = 0), sequence_parallel and
    # distributed_optimizer (empty = true), overlap_grad_reduce and overlap_param_gather (empty = false),
    # the layer style: position_embedding (empty = rope), normalization (empty = rmsnorm), bias_linear
    # (empty = false), LLaMA's; GPT rows say learned_absolute, layernorm, true.
    "cluster", "precision", "peak_mem_kind", "mlp", "tied_embeddings", "attention", "attention_dropout",
    "hidden_dropout", "sequence_parallel", "distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather",
    "position_embedding", "normalization", "bias_linear",
]
RUN_FIELDS = ["source", "num_gpus", "pp", "dp", "vp", "mbs", "gbs", "seq_len", "num_layers", "hidden",
              "ffn_hidden", "heads", "query_groups", "vocab", "cluster", "precision", "peak_mem_kind", "mlp",
              "tied_embeddings", "attention", "attention_dropout", "hidden_dropout", "sequence_parallel",
              "distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather", "position_embedding",
              "normalization", "bias_linear"]
MEGATRON_DEFAULT_DROPOUT = Decimal("0.1")  # --attention-dropout / --hidden-dropout (megatron/training/arguments.py)
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8")
PEAK_MEM_KINDS = ("allocated", "reserved", "device")  # max_memory_allocated, max_memory_reserved, nvidia-smi


# ---------------------------------------------------------------- helpers

def dec(text):
    """Exact decimal of a source cell (no binary floating point anywhere)."""
    return Decimal(text.strip())


def fmt(value):
    """Shortest plain decimal text of an int or Decimal ('446.95', '5370.88', '843')."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return str(int(value))
        text = format(value.normalize(), "f")
        return text
    return str(value)


def to_int(text):
    text = (text or "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def read_dataset(path):
    """(first comment line, header list, list of row lists) of one dataset CSV."""
    with open(path, newline="", encoding="utf-8") as f:
        comment = f.readline().rstrip("\n")
        reader = csv.reader(f)
        header = next(reader)
        rows = [r for r in reader if r]
    return comment, header, rows


def dict_rows(header, rows):
    """Rows as dicts; a column name given twice keeps its first occurrence."""
    first = {}
    for i, name in enumerate(header):
        first.setdefault(name, i)
    return [{name: (r[i] if i < len(r) else "") for name, i in first.items()} for r in rows]


def make_row(**kw):
    row = {c: "" for c in COLUMNS}
    row["source"] = "measured"
    for k, v in kw.items():
        if k not in row:
            raise KeyError(k)
        row[k] = fmt(v)
    return row


def validate(rows, name):
    """The reader's row and run rules (docs/MEASUREMENTS.md); raises on the first problem."""
    by_run = collections.OrderedDict()
    for i, r in enumerate(rows):
        where = f"{name}: row {i + 1} ({r['run_id']})"
        g = lambda c: int(r[c]) if r[c] != "" else None  # noqa: E731
        for c in ("num_gpus", "tp", "pp", "dp", "vp", "mbs", "gbs", "seq_len", "num_layers", "hidden",
                  "heads", "vocab"):
            v = g(c)
            if v is None or v <= 0:
                raise ValueError(f"{where}: {c} must be a positive integer, got {r[c]!r}")
        qg = g("query_groups") or g("heads")
        if g("hidden") % g("heads"):
            raise ValueError(f"{where}: heads must divide hidden")
        if g("heads") % qg:
            raise ValueError(f"{where}: query_groups must divide heads")
        if g("heads") % g("tp") or qg % g("tp"):
            raise ValueError(f"{where}: tp must divide heads and query_groups")
        if g("gbs") % (g("mbs") * g("dp")):
            raise ValueError(f"{where}: gbs must be a multiple of mbs * dp")
        if g("vp") > 1 and g("pp") < 2:
            raise ValueError(f"{where}: vp > 1 needs pp >= 2")
        if r["recompute"] not in ("none", "selective", "full"):
            raise ValueError(f"{where}: bad recompute {r['recompute']!r}")
        if r["precision"] not in PRECISIONS:
            raise ValueError(f"{where}: precision must be written explicitly, one of {PRECISIONS}, "
                             f"got {r['precision']!r}")
        if r["peak_mem_kind"] not in PEAK_MEM_KINDS + ("",):
            raise ValueError(f"{where}: bad peak_mem_kind {r['peak_mem_kind']!r}")
        if r["mlp"] not in ("swiglu", "gelu"):
            raise ValueError(f"{where}: mlp must be written explicitly, swiglu or gelu, got {r['mlp']!r}")
        if r["tied_embeddings"] not in ("", "true", "false"):
            raise ValueError(f"{where}: bad tied_embeddings {r['tied_embeddings']!r}")
        if r["attention"] not in ("", "flash", "unfused"):
            raise ValueError(f"{where}: bad attention {r['attention']!r}")
        if r["position_embedding"] not in ("", "rope", "learned_absolute", "none"):
            raise ValueError(f"{where}: bad position_embedding {r['position_embedding']!r}")
        if r["normalization"] not in ("", "rmsnorm", "layernorm"):
            raise ValueError(f"{where}: bad normalization {r['normalization']!r}")
        for c in ("sequence_parallel", "distributed_optimizer", "overlap_grad_reduce", "overlap_param_gather",
                  "bias_linear"):
            if r[c] not in ("", "true", "false"):
                raise ValueError(f"{where}: bad {c} {r[c]!r}")
        if r["overlap_param_gather"] == "true" and (r["overlap_grad_reduce"] != "true"
                                                    or r["distributed_optimizer"] == "false"):
            raise ValueError(f"{where}: overlap_param_gather needs overlap_grad_reduce and distributed_optimizer")
        for c in ("attention_dropout", "hidden_dropout"):
            if r[c] and not Decimal(0) <= Decimal(r[c]) < 1:
                raise ValueError(f"{where}: {c} must be a rate in [0, 1), got {r[c]!r}")
        if r["peak_mem_mib"] and not r["peak_mem_kind"]:
            raise ValueError(f"{where}: peak_mem_mib without peak_mem_kind")
        if not (r["iteration_time_ms"] or r["stage_time_ms"] or r["peak_mem_mib"]):
            raise ValueError(f"{where}: no target")
        for c in ("iteration_time_ms", "stage_time_ms", "peak_mem_mib"):
            if r[c] and not Decimal(r[c]) > 0:
                raise ValueError(f"{where}: {c} must be positive")
        if (r["stage"] == "") != (r["stage_layers"] == ""):
            raise ValueError(f"{where}: stage and stage_layers go together")
        if r["stage"] == "":
            if r["stage_time_ms"]:
                raise ValueError(f"{where}: stage_time_ms on a run row")
            if g("num_gpus") != g("tp") * g("pp") * g("dp"):
                raise ValueError(f"{where}: num_gpus != tp*pp*dp on a run row")
        else:
            if not 0 <= g("stage") < g("pp"):
                raise ValueError(f"{where}: stage out of range")
            if not 0 < g("stage_layers") <= g("num_layers"):
                raise ValueError(f"{where}: stage_layers out of range")
        by_run.setdefault(r["run_id"], []).append(r)
    for run_id, rs in by_run.items():
        for c in RUN_FIELDS:
            if len({x[c] for x in rs}) != 1:
                raise ValueError(f"{name}: run {run_id}: rows disagree on {c}")
        stages = [x["stage"] for x in rs]
        if len(stages) != len(set(stages)):
            raise ValueError(f"{name}: run {run_id}: duplicate (run_id, stage)")
        stage_rows = [x for x in rs if x["stage"] != ""]
        pp = int(rs[0]["pp"])
        if len(stage_rows) == pp:
            if sum(int(x["stage_layers"]) for x in stage_rows) != int(rs[0]["num_layers"]):
                raise ValueError(f"{name}: run {run_id}: stage_layers do not add up to num_layers")
    return by_run


def write_csv(path, source_line, rows):
    validate(rows, os.path.basename(path))
    buf = io.StringIO()
    buf.write(source_line.rstrip("\n") + "\n")
    buf.write(FORMAT_LINE + "\n")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r[c] for c in COLUMNS])
    data = buf.getvalue()
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(data)
    os.replace(tmp, path)
    return len(data.encode("utf-8"))


class Report:
    def __init__(self, name):
        self.name = name
        self.dropped = collections.Counter()   # reason -> count
        self.unit = "source rows"
        self.notes = []

    def drop(self, reason, n=1):
        self.dropped[reason] += n

    def print(self, rows, size, out=sys.stdout):
        runs = len({r["run_id"] for r in rows})
        run_rows = sum(1 for r in rows if r["stage"] == "")
        stage_rows = len(rows) - run_rows
        gpus = sorted({r["gpu_type"] for r in rows})
        print(f"== {self.name}: {len(rows)} rows ({run_rows} run rows, {stage_rows} stage rows), "
              f"{runs} runs, {size} bytes, GPU types {', '.join(gpus)}", file=out)
        kinds = collections.Counter((r["gpu_type"], r["precision"], r["peak_mem_kind"] or "-") for r in rows)
        print("   rows per gpu_type/precision/peak_mem_kind: "
              + ", ".join(f"{g}/{p}/{k} {n}" for (g, p, k), n in sorted(kinds.items())), file=out)
        for reason, n in sorted(self.dropped.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"   dropped {n:5d} {self.unit}: {reason}", file=out)
        for note in self.notes:
            print(f"   note: {note}", file=out)


def load_catalog(repo_root):
    """GPU name -> the training precisions the catalog lists for it (default bf16, fp16, fp32)."""
    path = os.path.join(repo_root, "resources", "gpu_catalog.json")
    with open(path, encoding="utf-8") as f:
        cat = json.load(f)
    return {g["name"]: set(g.get("precisions") or ("bf16", "fp16", "fp32")) for g in cat["gpus"]}


def check_gpu(name, catalog, precision=None):
    if name is not None and name not in catalog:
        raise SystemExit(f"internal: GPU name {name!r} is not in resources/gpu_catalog.json")
    if name is not None and precision is not None and precision not in catalog[name]:
        raise SystemExit(f"internal: precision {precision!r} is not among the catalog's precisions of {name!r} "
                         f"({', '.join(sorted(catalog[name]))})")
    return name


# ------------------------------------------------------ 1. Megatron-LM CI

CI_PLATFORM_GPU = {
    # DGX A100 80GB: the 7B golden values on dgx_a100 peak at 56.3 GiB allocated (> 40 GiB).
    "dgx_a100": "A100-80GB",
    "dgxa100_dracooci": "A100-80GB",
    "dgx_h100": "H100-SXM",
    "dgxh100_dgxc": "H100-SXM",
    "dgx_gb200": None,  # GB200 is not in the GPU catalog
}


# GPT cases with no --tokenizer-type pass --vocab-file .../the_pile/shard00/bpe/vocab.json (+ merges.txt):
# Megatron's GPT2BPETokenizer, whose vocab_size is len(encoder) = 50257 (GPT-2 BPE, EOD included).
# Megatron pads the embedding to a multiple of 128 * tp (--make-vocab-size-divisible-by 128); the
# reader's vocab is the tokenizer's size and the model does that padding itself.
CI_GPT2_BPE_VOCAB = 50257
# Rows without a recipe (the dataset's num_gpus is blank): the recipes that exist for these cases
# (test_utils/recipes/h100/gpt.yaml, which also lists the dgx_a100 goldens) all run 1 node x 8 GPUs,
# and a DGX A100 / DGX H100 node has 8 GPUs. Assumed only where tp*pp divides 8 and gbs is a multiple
# of mbs*dp (docs/DATASETS_AS_MEASUREMENTS.md).
CI_ASSUMED_GPUS = 8
# The dataset's precision column (parsed from model_config.yaml) -> the format's precision.
# fp8:hybrid / fp8:e4m3 are --fp8-format on a --bf16 base (Transformer Engine FP8 GEMMs). "fp32?" (no
# --bf16/--fp16 flag found) is not fp32: its 3 rows are a copied GB200 golden and two orphaned T5 goldens
# of unknown precision (/tmp/precision-research.md, 1a), so it stays dropped.
CI_PRECISION = {"bf16": "bf16", "fp16": "fp16", "fp8:hybrid": "fp8", "fp8:e4m3": "fp8"}
# mem_max_allocated_GiB = torch.cuda.memory_stats()["allocated_bytes.all.peak"] (max_memory_allocated).
CI_PEAK_MEM_KIND = "allocated"


def megatron_ffn(hidden, swiglu):
    """Megatron-LM's default --ffn-hidden-size (megatron/training/arguments.py)."""
    if swiglu:
        return int((4 * hidden * 2 / 3) / 64) * 64
    return 4 * hidden


CI_FLAGS_FILE = "megatron_lm_ci_case_flags.csv"


def load_ci_flags(datasets_dir):
    """Per test case, the flags of its model_config.yaml that the golden values lack."""
    path = os.path.join(datasets_dir, CI_FLAGS_FILE)
    if not os.path.exists(path):
        raise SystemExit(f"{path}: missing; it holds each CI case's attention backend, dropout and embeddings "
                         f"(tests/data/datasets/{CI_FLAGS_FILE})")
    _, header, raw = read_dataset(path)
    return {x["test_case"]: x for x in dict_rows(header, raw) if x["found"] == "yes"}


def ci_bool(x, column):
    """A golden-values True/False column as the measurement format's true/false."""
    v = x[column].strip()
    if v not in ("True", "False"):
        raise SystemExit(f"{x['test_case']}: {column} must be True or False, got {v!r}")
    return "true" if v == "True" else "false"


def ci_overlap(flags):
    """The overlap flags of one CI case as measurement columns: true where the yaml sets them."""
    out = {}
    for c in ("overlap_grad_reduce", "overlap_param_gather"):
        v = flags[c].strip()
        if v not in ("", "true", "false"):
            raise SystemExit(f"{CI_FLAGS_FILE}: {flags['test_case']}: {c} must be empty, true or false, got {v!r}")
        out[c] = v or "false"
    return out


# GPT's layer, Megatron-LM's defaults (learned absolute positions, LayerNorm, linear biases): the
# Mist/Aceso runs (2021 Megatron GPT, which had nothing else) and Sailor's OPT and GPT-Neo layers.
GPT_LAYER_STYLE = dict(position_embedding="learned_absolute", normalization="layernorm", bias_linear="true")


def ci_layer_style(flags):
    """position_embedding, normalization and bias_linear of one CI case; Megatron's defaults where the yaml
    leaves --position-embedding-type, --normalization and --disable-bias-linear out."""
    pos = flags["position_embedding_type"].strip() or "learned_absolute"
    norm = {"": "layernorm", "LayerNorm": "layernorm", "RMSNorm": "rmsnorm"}.get(flags["normalization"].strip())
    if pos not in ("rope", "learned_absolute", "none") or norm is None:
        raise SystemExit(f"{CI_FLAGS_FILE}: {flags['test_case']}: unknown position_embedding_type {pos!r} or "
                         f"normalization {flags['normalization']!r}")
    bias = "false" if flags["disable_bias_linear"].strip() == "true" else "true"
    return dict(position_embedding=pos, normalization=norm, bias_linear=bias)


def ci_case_setup(flags):
    """(tied_embeddings, attention, attention_dropout, hidden_dropout) of one CI case, Megatron's defaults
    where the flag is absent: tied embeddings, dropout 0.1, attention_backend auto (Transformer Engine picks
    a fused kernel; Megatron's local layers materialise the scores)."""
    tied = "false" if flags["untie_embeddings"] == "true" else "true"
    backend = flags["attention_backend"] or "auto"
    if backend in ("unfused", "local") or flags["transformer_impl"] == "local":
        attention = "unfused"
    elif backend in ("flash", "fused", "auto"):
        attention = "flash"
    else:
        raise SystemExit(f"{CI_FLAGS_FILE}: {flags['test_case']}: unknown attention_backend {backend!r}")
    rates = [dec(flags[c]) if flags[c].strip() else MEGATRON_DEFAULT_DROPOUT
             for c in ("attention_dropout", "hidden_dropout")]
    return tied, attention, rates[0], rates[1]


def convert_megatron_ci(path, catalog):
    rep = Report("megatron_ci.csv")
    case_flags = load_ci_flags(os.path.dirname(path))
    comment, header, raw = read_dataset(path)
    src = dict_rows(header, raw)
    out = []
    seen = set()
    near_miss = collections.Counter()
    assumed = collections.Counter()
    no_mem = collections.Counter()
    for x in src:
        reasons = []
        vocab_assumed = gpus_assumed = False
        if x["model_family"] == "gpt" and not x["vocab"].strip() and not x["tokenizer"].strip():
            x = dict(x, vocab=str(CI_GPT2_BPE_VOCAB))
            vocab_assumed = True
        if not x["num_gpus"].strip() and not x["recipe"].strip() and to_int(x["tp"]) and to_int(x["pp"]):
            tp0, pp0, mbs0, gbs0 = to_int(x["tp"]), to_int(x["pp"]), to_int(x["mbs"]), to_int(x["gbs"])
            if CI_ASSUMED_GPUS % (tp0 * pp0):
                reasons.append(f"no recipe (GPU count unknown) and tp*pp = {tp0 * pp0} does not divide "
                               f"{CI_ASSUMED_GPUS}")
            elif mbs0 and gbs0 and gbs0 % (mbs0 * (CI_ASSUMED_GPUS // (tp0 * pp0))):
                reasons.append(f"no recipe (GPU count unknown) and gbs not a multiple of mbs*dp with "
                               f"{CI_ASSUMED_GPUS} GPUs")
            else:
                x = dict(x, num_gpus=str(CI_ASSUMED_GPUS))
                gpus_assumed = True
        fam = x["model_family"]
        if fam != "gpt":
            reasons.append(f"model family {fam} (not a dense GPT decoder: MoE/T5/BERT/hybrid/multimodal)")
        if fam == "gpt" and x["test_case"].split("_1node")[0].endswith("_mla"):
            reasons.append("multi-latent attention (MLA; its projections are not expressible in the format)")
        if "fsdp" in x["test_case"]:
            reasons.append("Megatron FSDP / ZeRO-3 (parameters sharded over DP; not expressible in the format)")
        if (to_int(x["cp"]) or 1) > 1:
            reasons.append("context parallel > 1")
        if (to_int(x["ep"]) or 1) > 1 or x["num_experts"]:
            reasons.append("expert parallel / MoE")
        prec = x["precision"]
        precision = CI_PRECISION.get(prec)
        if precision is None:
            reasons.append(f"precision {prec!r} (no --bf16/--fp16 flag parsed; precision unknown, not fp32)")
        gpu = CI_PLATFORM_GPU.get(x["platform"], "unknown")
        if gpu is None:
            reasons.append(f"platform {x['platform']} (GB200 not in the GPU catalog)")
        elif gpu == "unknown":
            reasons.append(f"platform {x['platform']} unknown")
        missing = [c for c in ("num_gpus", "num_layers", "hidden", "heads", "seq_len", "vocab", "mbs", "gbs")
                   if not x[c].strip()]
        if missing:
            reasons.append("missing required field(s): " + ", ".join(missing))
        if x["gbs"].strip() and to_int(x["gbs"]) is None:
            reasons.append("global batch size ramp (not one gbs)")
        if not x["iter_time_median_s"].strip() and not x["mem_max_allocated_GiB"].strip():
            reasons.append("neither time nor memory")
        if x["test_case"] not in case_flags:
            reasons.append(f"no model_config.yaml in {CI_FLAGS_FILE} (attention backend and dropout unknown)")
        if reasons:
            reasons.sort(key=lambda r: r.startswith("no recipe"))  # the model checks come first
            rep.drop(reasons[0])
            # rows that fail only for lack of num_gpus and/or vocab (see the doc)
            if all(r.startswith("missing required field(s)") for r in reasons):
                near_miss[reasons[0]] += 1
            continue

        tp, pp, cp = int(x["tp"]), int(x["pp"]), 1
        num_gpus = int(x["num_gpus"])
        if num_gpus % (tp * pp * cp):
            rep.drop("num_gpus not a multiple of tp*pp")
            continue
        dp = num_gpus // (tp * pp * cp)
        layers, hidden, heads = int(x["num_layers"]), int(x["hidden"]), int(x["heads"])
        qg = to_int(x["query_groups"]) or heads
        mbs, gbs = int(x["mbs"]), int(x["gbs"])
        if gbs % (mbs * dp):
            rep.drop("gbs not a multiple of mbs*dp")
            continue
        if heads % tp or qg % tp:
            rep.drop("tp does not divide heads/query_groups")
            continue
        swiglu = x["swiglu"] == "True"
        ffn = to_int(x["ffn_hidden"]) or megatron_ffn(hidden, swiglu)
        # vp: --virtual-pipeline-model-parallel-size, else from
        # --num-layers-per-virtual-pipeline-stage (layers / pp / that).
        vp = 1
        if to_int(x["vpp"]):
            vp = int(x["vpp"])
        elif to_int(x["vp_layers_per_stage"]) and pp > 1:
            per = int(x["vp_layers_per_stage"])
            if layers % (pp * per):
                rep.drop("num_layers not divisible by pp * layers per virtual stage")
                continue
            vp = layers // (pp * per)
        if vp > 1 and pp < 2:
            vp = 1
        gran = x["recompute_granularity"]
        if gran == "full":
            method, nrl = x["recompute_method"], to_int(x["recompute_num_layers"])
            if method == "block" and (nrl or 0) < layers // pp // vp:
                rep.drop("full recompute of only some layers (block method)")
                continue
            recompute = "full"
        elif gran == "selective":
            recompute = "selective"
        else:
            recompute = "none"
        run_id = f"{x['test_case']}__{x['environment']}__{x['platform']}"
        if run_id in seen:
            raise SystemExit(f"internal: duplicate run id {run_id}")
        seen.add(run_id)
        common = dict(run_id=run_id, gpu_type=check_gpu(gpu, catalog, precision), num_gpus=num_gpus, tp=tp, pp=pp,
                      dp=dp, vp=vp, mbs=mbs, gbs=gbs, seq_len=int(x["seq_len"]), num_layers=layers, hidden=hidden,
                      ffn_hidden=ffn, heads=heads, query_groups=qg, vocab=int(x["vocab"]), recompute=recompute,
                      precision=precision, peak_mem_kind=CI_PEAK_MEM_KIND, mlp="swiglu" if swiglu else "gelu")
        tied, attention, attention_dropout, hidden_dropout = ci_case_setup(case_flags[x["test_case"]])
        common.update(tied_embeddings=tied, attention=attention, attention_dropout=attention_dropout,
                      hidden_dropout=hidden_dropout,
                      # The golden values' own columns (model_config.yaml's --sequence-parallel and
                      # --use-distributed-optimizer; both off by default in Megatron).
                      sequence_parallel=ci_bool(x, "sequence_parallel"),
                      distributed_optimizer=ci_bool(x, "dist_optimizer"),
                      # model_config.yaml's --overlap-grad-reduce / --overlap-param-gather
                      # (megatron_lm_ci_case_flags.csv; absent: off, Megatron's default).
                      **ci_overlap(case_flags[x["test_case"]]),
                      **ci_layer_style(case_flags[x["test_case"]]))
        kept = False
        t = x["iter_time_median_s"].strip()
        if t:
            out.append(make_row(**common, iteration_time_ms=dec(t) * 1000))
            kept = True
        m = x["mem_max_allocated_GiB"].strip()
        if m:
            if layers % pp or "uneven_pipeline" in x["test_case"]:
                # uneven_pipeline: --decoder-first/last-pipeline-num-layers 2 (not in the dataset)
                no_mem[f"memory of a non-uniform pipeline split not written (last stage's layers not "
                       f"num_layers/pp): {x['test_case']}"] += 1
            else:
                out.append(make_row(**common, stage=pp - 1, stage_layers=layers // pp,
                                    peak_mem_mib=dec(m) * 1024))
                kept = True
        if kept:
            assumed[(vocab_assumed, gpus_assumed)] += 1
    for reason, n in sorted(near_miss.items()):
        rep.notes.append(f"{n} of the dropped rows fail only for '{reason}'")
    for reason, n in sorted(no_mem.items()):
        rep.notes.append(f"{n} kept source rows: {reason}")
    for (v, g), n in sorted(assumed.items()):
        what = {(False, False): "no assumption", (True, False): f"vocab {CI_GPT2_BPE_VOCAB} assumed",
                (False, True): f"num_gpus {CI_ASSUMED_GPUS} assumed",
                (True, True): f"vocab {CI_GPT2_BPE_VOCAB} and num_gpus {CI_ASSUMED_GPUS} assumed"}[(v, g)]
        rep.notes.append(f"{n} kept source rows: {what}")
    return comment, out, rep


# ------------------------------------------------------ 2. Mist / Aceso

MIST_GPU = {"A100-SXM4-40GB": "A100-40GB", "A10G-24GB": "A10G", "L4-24GB": "L4"}
ACESO_OPS_PER_LAYER = 13      # ops of one GPT layer in Aceso's op list
ACESO_OPS_FIRST = 1           # embedding op before the first layer
ACESO_OPS_LAST = 2            # final layernorm + post-process (head/loss) after the last layer
MIST_VOCAB = 50257            # gpt2-vocab.json (Mist's run scripts pass --vocab-file gpt2-vocab.json)
# Aceso and Megatron launch scripts pass --fp16; the logs print params_dtype torch.float16.
MIST_PRECISION = "fp16"
# max_allocated_mib = torch.cuda.max_memory_allocated() / 2^20 (SuperScaler report_memory).
MIST_PEAK_MEM_KIND = "allocated"
# The Megatron-LM the Mist benchmark runs (SuperScaler's external/Megatron-LM, 2021-era: no flash
# attention; the GPT model always ties its embeddings) and the arguments its committed logs print,
# e.g. results-ref/logs-mist-all-a10g/megatron/runtime/gpt/1_3B/full_log_gpt_1_3B_24layers_megatron_
# est_12385_rank0_2024-03-22-20-31-52: attention_dropout 0.1, hidden_dropout 0.1,
# masked_softmax_fusion True (Megatron's fused scale-mask-softmax over the s x s scores). Sequence
# parallelism and the distributed optimizer came to Megatron-LM in 2022, after that Megatron: neither.
MIST_SETUP = dict(tied_embeddings="true", attention="unfused", attention_dropout=0.1, hidden_dropout=0.1,
                  sequence_parallel="false", distributed_optimizer="false", **GPT_LAYER_STYLE)


def parse_op_values(text):
    """'2:59' -> {2: 59}; '1:10,2:20' -> {1: 10, 2: 20}."""
    vals = {}
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        k, _, n = part.partition(":")
        vals[int(k)] = vals.get(int(k), 0) + int(n or 1)
    return vals


def convert_mist(path, catalog):
    rep = Report("mist_aceso.csv")
    rep.unit = "runs"
    comment, header, raw = read_dataset(path)
    src = dict_rows(header, raw)
    runs = collections.OrderedDict()
    for x in src:
        runs.setdefault((x["log_set"], x["system"], x["run_id"]), []).append(x)
    out = []
    for (log_set, system, rid), rs in runs.items():
        x0 = rs[0]
        if x0["model_name"] != "gpt":
            rep.drop("not a GPT model")
            continue
        world = int(x0["world_size"])
        nst = int(x0["num_stages"])
        layers = int(x0["num_layers"])
        present = {int(r["rank"]) for r in rs}
        stages = collections.OrderedDict()
        for r in rs:
            stages.setdefault(int(r["stage"]), []).append(r)
        if len(present) != world or set(stages) != set(range(nst)):
            rep.drop(f"multi-node run: only ranks 0-7 of {world} committed, stages missing")
            continue
        # per stage: tp, dp, layers, recompute
        bad = None
        info = {}
        for s in range(nst):
            srs = stages[s]
            r = srs[0]
            ops = int(r["num_ops_in_stage"])
            tpv, dpv = parse_op_values(r["tp_values"]), parse_op_values(r["dp_values"])
            if len(tpv) != 1 or len(dpv) != 1:
                bad = "TP or DP not uniform within a stage"
                break
            tp, dp = next(iter(tpv)), next(iter(dpv))
            extra = (ACESO_OPS_FIRST if s == 0 else 0) + (ACESO_OPS_LAST if s == nst - 1 else 0)
            # recompute_fraction = recomputed ops / ops of the stage; the embedding and
            # head ops are never recomputed, so "all layer ops" reads e.g. 52/53.
            n_rc = int((Decimal(r["recompute_fraction"]) * ops).to_integral_value())
            if n_rc == 0:
                rc = "none"
            elif n_rc >= ops - extra:
                rc = "full"
            else:
                rc = None
            aligned = ops > extra and (ops - extra) % ACESO_OPS_PER_LAYER == 0
            info[s] = dict(tp=tp, dp=dp, layers=(ops - extra) // ACESO_OPS_PER_LAYER if aligned else None,
                           recompute=rc, ranks=srs, ops=ops)
        if bad is None and any(v["recompute"] is None for v in info.values()):
            bad = "fractional recompute in some stage (Aceso per-op recompute)"
        if bad is None and any(v["layers"] is None for v in info.values()):
            bad = "stage boundary inside a layer (op count not 13 per layer)"
        if bad is None and len({v["dp"] for v in info.values()}) != 1:
            bad = "DP differs between stages"
        if bad is None and sum(v["layers"] for v in info.values()) != layers:
            bad = "stage layers do not add up to num_layers"
        if bad is None and sum(v["tp"] * v["dp"] for v in info.values()) != world:
            bad = "stage GPU counts do not add up to world_size"
        if bad:
            rep.drop(bad)
            continue
        dp = info[0]["dp"]
        hidden, heads = int(x0["hidden"]), int(x0["heads"])
        gpu = check_gpu(MIST_GPU[x0["gpu_type"]], catalog, MIST_PRECISION)
        common = dict(num_gpus=world, pp=nst, dp=dp, vp=1, mbs=int(x0["mbs"]), gbs=int(x0["gbs"]),
                      seq_len=int(x0["seq_len"]), num_layers=layers, hidden=hidden, ffn_hidden=4 * hidden,
                      heads=heads, query_groups=heads, vocab=MIST_VOCAB, precision=MIST_PRECISION,
                      peak_mem_kind=MIST_PEAK_MEM_KIND, mlp="gelu", **MIST_SETUP)
        run_id = f"{log_set.replace('logs-mist-all-', '')}__{system}__{rid}"
        tps = {v["tp"] for v in info.values()}
        rcs = {v["recompute"] for v in info.values()}
        it = max(dec(r["iteration_time_ms"]) for r in rs)
        if len(tps) == 1 and len(rcs) == 1 and next(iter(tps)) * nst * dp == world:
            out.append(make_row(run_id=run_id, gpu_type=gpu, tp=next(iter(tps)), recompute=next(iter(rcs)),
                                iteration_time_ms=it, **common))
        else:
            rep.notes.append(f"{run_id}: stages differ in TP or recompute, no run row (iteration time lost)")
        for s in range(nst):
            v = info[s]
            st = max(dec(r["forward_compute_ms"]) + dec(r["backward_compute_ms"]) for r in v["ranks"])
            mems = [dec(r["max_allocated_mib"]) for r in v["ranks"] if r["max_allocated_mib"].strip()]
            out.append(make_row(run_id=run_id, gpu_type=gpu, tp=v["tp"], recompute=v["recompute"], stage=s,
                                stage_layers=v["layers"], stage_time_ms=st,
                                peak_mem_mib=max(mems) if mems else None, **common))
    return comment, out, rep


# ------------------------------------------------------ 3. SimuMax B200

SIMUMAX_MODELS = {
    # SimuMax launcher scripts/run_pretrain_llama3.sh (MODEL_TYPE llama3_70b / llama3_405b) and
    # configs/models/llama3-{70b,405b}.json; num_layers comes from the case (layer_num).
    "llama3-70b": dict(hidden=8192, heads=64, query_groups=8, ffn_hidden=28672, vocab=128256),
    "llama3-405b": dict(hidden=16384, heads=128, query_groups=16, ffn_hidden=53248, vocab=128256),
}
# Launcher default DTYPE=bf16 (--bf16, FP8 only when DTYPE != bf16); every case uses system config
# configs/system/b200_bf16_ceperm.json.
SIMUMAX_PRECISION = "bf16"
# max_allocated_mb = torch.cuda.max_memory_allocated() / 2^20 (patched report_memory, all ranks).
SIMUMAX_PEAK_MEM_KIND = "allocated"


def stage_of_rank(rank, tp, pp, dp, cp=1):
    """Megatron default order tp-cp-ep-dp-pp (core/megatron/RankLayout.h):
    rank = tp + TP*(cp + CP*(dp + DP*pp))  =>  pp = rank // (TP*CP*DP)."""
    if not 0 <= rank < tp * pp * dp * cp:
        raise ValueError(f"rank {rank} outside world {tp * pp * dp * cp}")
    return rank // (tp * cp * dp)


def convert_simumax(path, catalog):
    rep = Report("simumax_b200.csv")
    comment, header, raw = read_dataset(path)
    src = dict_rows(header, raw)
    cases = collections.OrderedDict()
    for x in src:
        cases.setdefault(x["case"], []).append(x)
    out = []
    mem_copied = 0
    for case, rs in cases.items():
        x0 = rs[0]
        n = len(rs)
        if x0["model"] not in SIMUMAX_MODELS:
            rep.drop(f"model {x0['model']} (MoE, not dense)", n)
            continue
        if x0["status"] != "ok":
            rep.drop("status not ok", n)
            continue
        tp, pp, dp = int(x0["tp"]), int(x0["pp"]), int(x0["dp"])
        ep, cp = int(x0["ep"]), int(x0["cp"])
        if cp > 1:
            rep.drop("context parallel > 1", n)
            continue
        if ep > 1:
            rep.drop("expert parallel > 1", n)
            continue
        if int(x0["vp_size"]) != 1:
            rep.drop("virtual pipeline", n)
            continue
        args = x0["launcher_recompute_args"].split()
        opt = {args[i]: args[i + 1] for i in range(0, len(args) - 1, 2)}
        gran = opt.get("--recompute-granularity")
        nrl = int(opt.get("--recompute-num-layers", "0"))
        if gran is None or (gran == "full" and opt.get("--recompute-method") == "block" and nrl == 0):
            recompute = "none"
        else:
            rep.drop(f"recompute args {x0['launcher_recompute_args']!r} not mapped", n)
            continue
        layers = int(x0["layer_num"])
        if layers % pp:
            rep.drop("layer_num not divisible by pp", n)
            continue
        world = tp * pp * dp * cp
        if len(rs) != world or {int(r["rank"]) for r in rs} != set(range(world)):
            rep.drop("ranks missing", n)
            continue
        mbs, gbs = int(x0["mbs"]), int(x0["gbs"])
        if gbs != mbs * int(x0["mbc"]) * dp:
            rep.drop("gbs != mbs*mbc*dp", n)
            continue
        dims = SIMUMAX_MODELS[x0["model"]]
        if "bf16" not in os.path.basename(x0["system_rel"]):
            raise SystemExit(f"internal: {case}: system config {x0['system_rel']} is not a bf16 one")
        common = dict(run_id=case, gpu_type=check_gpu("B200", catalog, SIMUMAX_PRECISION), num_gpus=world, tp=tp,
                      pp=pp, dp=dp, vp=1, mbs=mbs, gbs=gbs, seq_len=int(x0["seq_len"]), num_layers=layers,
                      recompute=recompute, precision=SIMUMAX_PRECISION, peak_mem_kind=SIMUMAX_PEAK_MEM_KIND, mlp="swiglu",
                      **dims)
        times = {x["real_ms"] for x in rs}
        if len(times) != 1:
            raise SystemExit(f"internal: {case}: real_ms differs between ranks")
        out.append(make_row(**common, iteration_time_ms=dec(x0["real_ms"])))
        if x0["memory_source_case"] != case:
            # memory of this case was copied from the mbc4 run of the same topology
            mem_copied += 1
            continue
        per_stage = collections.defaultdict(list)
        for x in rs:
            per_stage[stage_of_rank(int(x["rank"]), tp, pp, dp, cp)].append(dec(x["max_allocated_mb"]))
        for s in range(pp):
            out.append(make_row(**common, stage=s, stage_layers=layers // pp, peak_mem_mib=max(per_stage[s])))
    rep.notes.append(f"{mem_copied} kept cases carry memory copied from another case (memory_source_case): "
                     "run row only, no stage rows")
    return comment, out, rep


# ------------------------------------------------------ 4. Sailor layer profiles

SAILOR_GPU = {
    "A100-40": "A100-40GB", "A100-80": "A100-80GB", "GH-96": "GH200", "V100-16": "V100-16GB",
    "RTX-3090": "RTX-3090", "Titan-RTX": "Titan-RTX", "RTX-2080": "RTX-2080",
}
# Sailor profiles with Megatron-DeepSpeed and neither --fp16 nor --bf16 (params_dtype torch.float): fp32.
# In the NGC PyTorch 24.10 container (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1) the fp32 matmuls run as TF32 on
# Ampere and later (inferred: which image each profile ran in is not recorded); Volta (V100) and Turing
# (RTX-2080, Titan-RTX) have no TF32, so they are true fp32 (/tmp/precision-research.md, 1c and 1e).
SAILOR_PRECISION = {
    "A100-40GB": "tf32", "A100-80GB": "tf32", "GH200": "tf32", "RTX-3090": "tf32",
    "V100-16GB": "fp32", "Titan-RTX": "fp32", "RTX-2080": "fp32",
}
# Sailor's profiling ModelConfig (num_layers, hidden, heads, seq_length) and launch flags:
# Megatron-DeepSpeed pretrain_gpt.py with --vocab-file gpt2-vocab.json (GPT-2 BPE, 50257 tokens),
# no --ffn-hidden-size (Megatron default 4h), no --num-key-value-heads, no activation checkpointing.
SAILOR_MODELS = {
    "OPT-350": dict(num_layers=24, hidden=1024, heads=16, seq_len=2048),
    "GPT-Neo-2.7": dict(num_layers=32, hidden=2560, heads=20, seq_len=2048),
    "OPT-30": dict(num_layers=48, hidden=7168, heads=56, seq_len=2048),
    "LLAMA-3-8": None,  # FFN size / GQA of Sailor's LLAMA model are not established
}
SAILOR_VOCAB = 50257
# The same launch passes no --use-flash-attn(-v1/-v2/-triton) (Megatron-DeepSpeed's arguments.py:
# store_true flags, off by default) and no dropout rates (defaults --attention-dropout 0.1 and
# --hidden-dropout 0.1): unfused attention with both dropouts. Embeddings are Megatron's tied
# default (a middle layer has none).
SAILOR_SETUP = dict(tied_embeddings="true", attention="unfused", attention_dropout=0.1, hidden_dropout=0.1,
                    **GPT_LAYER_STYLE)
SAILOR_LAYER = 2  # the profiled transformer layer that Sailor copies to layers 2..L


# Sailor's own measurements of the machines that ran its profiles (saha18uiuc/sailor @ 1f17247e,
# sailor/providers/intra_node_bandwidths.json, copied unchanged to tests/data/datasets/): per GPU type
# and world size W, NCCL send/recv between W/2 concurrent pairs, rank i to rank i + W/2 on one node
# (sailor/profiling/networking/test_sendrecv.py, run.sh), messages of 64 KiB to 1 GiB; the second
# number of each entry is the largest aggregate bandwidth seen, in bytes/s (fit_func.py's "max bw",
# the figure Sailor's baselines use). W = 2 measures GPUs 0 and 1, W = 4 the pairs across GPUs 0-1 and
# 2-3, W = 8 across the node's halves 0-3 and 4-7.
SAILOR_NETWORK = "sailor_intra_node_bandwidths.json"
# Latency is not in the measurement (its 64 KiB points include the Python loop around each send):
# the synthetic cluster's per-hop values for the fabric (docs/MEASUREMENTS.md, "Where runs are placed").
SAILOR_LATENCY_US = {"NVLink": 3, "PCIe": 6, "cross-NUMA": 6}
SAILOR_INTER_NODE = dict(kind="InfiniBand", bandwidth_gbps=25, latency_us=5)  # as the synthetic cluster


def compact_json(doc):
    """A JSON document with its top-level lists one item per line (a cluster of 48 nodes stays readable)."""
    parts = []
    for key, value in doc.items():
        if isinstance(value, list):
            items = ",\n".join("  " + json.dumps(v) for v in value)
            parts.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def sailor_cluster(gpu, node_gpus, nodes, levels, source_file):
    """memx-cluster/1 document: `nodes` nodes of `node_gpus` GPUs of type `gpu`, wired inside as
    Sailor measured it. `levels` maps W (2, 4, 8) to the GB/s each of the W/2 concurrent pairs got."""
    def kind(w, gbps):
        if gbps >= 30:
            return "NVLink"
        return "cross-NUMA" if w == 8 else "PCIe"
    links = []
    names = [f"n{i}" for i in range(nodes)]
    for n in names:
        for w in sorted(levels):
            if w > node_gpus:
                continue
            half = w // 2
            for first in range(0, node_gpus, w):
                a = f"{n}:{first}" if half == 1 else f"{n}:{first}-{first + half - 1}"
                b = f"{n}:{first + half}" if half == 1 else f"{n}:{first + half}-{first + w - 1}"
                k = kind(w, levels[w])
                links.append({"name": f"{n}-w{w}-{first}", "kind": k, "between": [a, b],
                              "bandwidth_gbps": levels[w], "latency_us": SAILOR_LATENCY_US[k]})
    for i in range(nodes):
        for j in range(i + 1, nodes):
            links.append({"name": f"ib-{names[i]}-{names[j]}", "between": [names[i], names[j]],
                          **SAILOR_INTER_NODE})
    wiring = "; ".join(f"W={w}: {levels[w]} GB/s per pair" for w in sorted(levels))
    return collections.OrderedDict([
        ("format", "memx-cluster/1"),
        ("name", f"sailor-{gpu}"),
        ("description", f"{nodes} nodes of {node_gpus} {gpu} as Sailor's profiling machines are wired inside "
                        f"({wiring}); written by scripts/datasets/to_measurements.py"),
        ("source", f"tests/data/datasets/{source_file} (Sailor's NCCL send/recv measurement of its {gpu} "
                   "machines: the largest aggregate bandwidth of W/2 concurrent pairs i -> i + W/2, divided by "
                   "the pairs, joins the two halves of every aligned group of W GPUs; pairs 2k, 2k+1 at W = 2); "
                   "latency per hop and the InfiniBand between nodes (25 GB/s, 5 us) are the synthetic "
                   "cluster's, assumed (a layer profile's time holds no transfer between nodes)"),
        ("nodes", [{"name": n, "gpus": [{"type": gpu, "count": node_gpus}]} for n in names]),
        ("links", links),
    ])


def write_sailor_clusters(datasets_dir, out_dir, rows, rep):
    """Writes clusters/sailor-<gpu>.json for each GPU type whose largest TP degree Sailor's bandwidth
    file covers, and fills those runs' cluster column; other types keep the synthetic cluster."""
    path = os.path.join(datasets_dir, SAILOR_NETWORK)
    if not os.path.exists(path):
        repo_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        path = os.path.join(repo_root, "tests", "data", "datasets", SAILOR_NETWORK)
    with open(path, encoding="utf-8") as f:
        network = json.load(f)
    by_gpu = collections.defaultdict(list)
    for r in rows:
        by_gpu[r["gpu_type"]].append(r)
    names = {v: k for k, v in SAILOR_GPU.items()}
    # Every type is checked before any file is written, so a bad measurement leaves no half-updated folder.
    wired = []
    for gpu, runs in sorted(by_gpu.items()):
        entry = network.get(names[gpu], {})
        # Three significant figures: 0.1 GB/s would make RTX-3090's 1.33 GB/s across halves 1.3.
        levels = {int(w): float(f"{v[1] / 1e9 / (int(w) // 2):.3g}") for w, v in entry.items()}
        node_gpus = max(levels) if levels else 0
        tp_max = max(int(r["tp"]) for r in runs)
        if tp_max > node_gpus:
            rep.notes.append(f"{gpu}: Sailor measured its machines up to {node_gpus} GPUs, its profiles reach "
                             f"TP {tp_max}: synthetic cluster (cluster column empty)")
            continue
        # Every level from a pair up to the machine, or a group of GPUs would have no measured wiring.
        if sorted(levels) != [2 ** k for k in range(1, node_gpus.bit_length())]:
            raise SystemExit(f"{path}: {names[gpu]}: measured world sizes {sorted(levels)} are not 2, 4, ... "
                             f"{node_gpus}; cannot wire every aligned group of GPUs")
        wired.append((gpu, runs, levels, node_gpus))
    os.makedirs(os.path.join(out_dir, "clusters"), exist_ok=True)
    for gpu, runs, levels, node_gpus in wired:
        nodes = max(-(-int(r["num_gpus"]) // node_gpus) for r in runs)
        rel = f"clusters/sailor-{gpu}.json"
        doc = sailor_cluster(gpu, node_gpus, nodes, levels, SAILOR_NETWORK)
        tmp = os.path.join(out_dir, rel) + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(compact_json(doc))
        os.replace(tmp, os.path.join(out_dir, rel))
        for r in runs:
            r["cluster"] = rel
        rep.notes.append(f"{gpu}: {len(runs)} runs on {rel} ({nodes} nodes of {node_gpus}; "
                         + ", ".join(f"W={w} {levels[w]} GB/s" for w in sorted(levels)) + ")")


def convert_sailor(path, catalog):
    rep = Report("sailor_layers.csv")
    comment, header, raw = read_dataset(path)
    src = dict_rows(header, raw)
    groups = collections.OrderedDict()
    for x in src:
        groups.setdefault((x["model"], x["gpu_type"], x["mbs"], x["tp"]), []).append(x)
    out = []
    for (model, gpu_name, mbs, tp), rs in groups.items():
        n = len(rs)
        x0 = rs[0]
        if x0["file_flag"]:
            rep.drop("file_flag set (update_s all 0; not profiler output)", n)
            continue
        if x0["identical_file_content_as"] and model == "GPT-Neo-2.7":
            rep.drop("GPT-Neo-2.7/GH-96 is a copy of OPT-350/GH-96 (26 entries)", n)
            continue
        gpu = SAILOR_GPU.get(gpu_name)
        if gpu is None:
            rep.drop(f"GPU {gpu_name} not in the GPU catalog", n)
            continue
        dims = SAILOR_MODELS.get(model)
        if dims is None:
            rep.drop(f"model {model}: dimensions not established", n)
            continue
        tp, mbs = int(tp), int(mbs)
        if dims["heads"] % tp:
            rep.drop(f"tp {tp} does not divide heads {dims['heads']}", n)
            continue
        layer = [x for x in rs if to_int(x["layer"]) == SAILOR_LAYER]
        if len(layer) != 1 or layer[0]["layer_role"] != "transformer":
            raise SystemExit(f"internal: {model}/{gpu_name}/{mbs}/{tp}: no transformer layer {SAILOR_LAYER}")
        lx = layer[0]
        entries = int(lx["num_layer_entries"])
        if entries - 2 != dims["num_layers"]:
            raise SystemExit(f"internal: {model}/{gpu_name}: {entries} entries vs {dims['num_layers']} layers")
        t = (dec(lx["fwd_s"]) + dec(lx["bwd_s"])) * 1000
        rep.drop("non-representative layers (embedding, head/loss, layer 1, copies 3..L)", n - 1)
        if not t > 0:
            rep.drop("zero time", 1)
            continue
        pp = dims["num_layers"]
        precision = SAILOR_PRECISION[gpu]
        # no memory in the profiles: peak_mem_kind stays empty
        out.append(make_row(run_id=f"sailor__{model}__{gpu_name}__mbs{mbs}_tp{tp}",
                            gpu_type=check_gpu(gpu, catalog, precision), num_gpus=tp * pp, tp=tp, pp=pp, dp=1, vp=1,
                            mbs=mbs, gbs=mbs, seq_len=dims["seq_len"], num_layers=pp, hidden=dims["hidden"],
                            ffn_hidden=4 * dims["hidden"], heads=dims["heads"], query_groups=dims["heads"],
                            vocab=SAILOR_VOCAB, recompute="none", stage=1, stage_layers=1, stage_time_ms=t,
                            precision=precision, mlp="gelu", **SAILOR_SETUP))
    return comment, out, rep


# ---------------------------------------------------------------- main

def source_line(file_name, comment, conversion):
    head = comment.lstrip("#").strip()
    for prefix in ("Sources:", "Source:"):
        if head.startswith(prefix):
            head = head[len(prefix):].strip()
    # keep the source's provenance (repository @ commit, path) up to its first ';' or '. '
    cut = min(head.split(";")[0], head.split(". ")[0], key=len)
    if len(cut) > 300:
        cut = cut[:300].rsplit(" ", 1)[0] + " ..."
    return (f"# Source: tests/data/datasets/{file_name} ({cut}), converted by scripts/datasets/to_measurements.py "
            f"(see docs/DATASETS_AS_MEASUREMENTS.md): {conversion}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", required=True, help="folder with the dataset CSVs")
    ap.add_argument("--out", required=True, help="output folder (tests/data/measurements)")
    args = ap.parse_args(argv)
    repo_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    catalog = load_catalog(repo_root)
    os.makedirs(args.out, exist_ok=True)

    jobs = [
        ("megatron_ci.csv", "megatron_lm_ci_golden_values.csv", convert_megatron_ci,
         "dense GPT cases on A100/H100 (vocab 50257 where the case uses the GPT-2 BPE vocab.json; num_gpus 8 "
         "where no recipe gives it, ASSUMED: 1 DGX node); run row iteration_time_ms = "
         "iter_time_median_s*1000; stage row for stage pp-1 (the logged last rank) with peak_mem_mib = "
         "mem_max_allocated_GiB*1024 and stage_layers = num_layers/pp; precision from the precision column "
         "(model_config.yaml: bf16 -> bf16, fp16 -> fp16, fp8:hybrid/fp8:e4m3 -> fp8, fp32? dropped); "
         "peak_mem_kind allocated (allocated_bytes.all.peak = torch.cuda.max_memory_allocated)"),
        ("mist_aceso.csv", "mist_aceso_measured_runs.csv", convert_mist,
         "complete runs whose stages all recompute none or all layers and end on layer boundaries (13 ops per "
         "layer); run row iteration_time_ms = max over ranks; stage rows stage_time_ms = max over the stage's "
         "ranks of forward_compute_ms+backward_compute_ms, peak_mem_mib = max of max_allocated_mib; GPT-2 vocab "
         "50257, ffn 4h; precision fp16 (run scripts pass --fp16, logs print params_dtype torch.float16); "
         "peak_mem_kind allocated (max_allocated_mib = torch.cuda.max_memory_allocated)"),
        ("simumax_b200.csv", "simumax_b200_measured_runs.csv", convert_simumax,
         "dense llama3-70b/405b cases without CP; run row iteration_time_ms = real_ms; stage rows (only for "
         "cases that measured their own memory) peak_mem_mib = max over the stage's ranks of max_allocated_mb, "
         "pp_rank = rank // (tp*cp*dp); recompute none (--recompute-num-layers 0); precision bf16 (launcher "
         "DTYPE=bf16 default, system config b200_bf16_ceperm.json); peak_mem_kind allocated (max_allocated_mb = "
         "torch.cuda.max_memory_allocated)"),
        ("sailor_layers.csv", "sailor_layer_profiles.csv", convert_sailor,
         "one transformer layer per (model, GPU, mbs, tp) as stage 1 (stage_layers 1) of a run with pp = "
         "num_layers, dp 1, gbs = mbs; stage_time_ms = (fwd_s+bwd_s)*1000 of layer 2; precision fp32 on V100-16GB, "
         "RTX-2080 and Titan-RTX, tf32 (inferred) on A100, GH200 and RTX-3090 (Megatron-DeepSpeed without "
         "--fp16/--bf16 in the NGC PyTorch 24.10 container, TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1); no memory, "
         "peak_mem_kind empty; cluster clusters/sailor-<gpu>.json, wired inside as Sailor measured its machines "
         "(sailor_intra_node_bandwidths.json), where that measurement covers the type's TP degrees"),
    ]
    for out_name, src_name, fn, conversion in jobs:
        comment, rows, rep = fn(os.path.join(args.datasets, src_name), catalog)
        if fn is convert_sailor:
            write_sailor_clusters(args.datasets, args.out, rows, rep)
        size = write_csv(os.path.join(args.out, out_name), source_line(src_name, comment, conversion), rows)
        rep.print(rows, size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
