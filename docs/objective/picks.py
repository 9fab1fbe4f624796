#!/usr/bin/env python3
"""The price of each weight profile's pick against the fastest feasible plan
(issue #33 item 3), on every bundled sample cluster and three generated ones,
under each eV rule. Prints a Markdown table (docs/OBJECTIVE.md).

usage: docs/objective/picks.py build/app/memx-cli [--quick]
--quick leaves out the 128-GPU sample (about a minute per search on 2 cores).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SAMPLES = os.path.join(ROOT, "sample_clusters")

# (label, cluster file or generate-cluster arguments, search arguments)
CASES = [
    ("paper-table1-xy", "paper-table1-xy.json", []),
    ("paper-6gpu-v100-t4", "paper-6gpu-v100-t4.json", []),
    ("homogeneous-8xa100", "homogeneous-8xa100.json", []),
    ("paper-20gpu-3vendor", "paper-20gpu-3vendor.json", []),
    ("modern-h100-h20-910b", "modern-h100-h20-910b.json", []),
    ("mixed-128gpu-4types, LLaMA2-70B gbs 1024", "mixed-128gpu-4types.json",
     ["--model", "llama2-70b", "--gbs", "1024", "--max-pp", "16"]),
    ("gen: 2 x 8 A100-80GB, LLaMA2-7B", ["--nodes", "2", "--types", "A100-80GB"], ["--model", "llama2-7b"]),
    ("gen: 8 A100-80GB + 8 H100, LLaMA2-13B gbs 64", ["--nodes", "2", "--types", "A100-80GB,H100-SXM"],
     ["--model", "llama2-13b", "--gbs", "64"]),
    ("gen: 16 A100-40GB + 16 RTX-3090, LLaMA2-13B", ["--nodes", "4", "--types", "A100-40GB,RTX-3090"],
     ["--model", "llama2-13b", "--max-pp", "8"]),
]
PROFILES = ["default", "safety-first", "throughput-first"]


def run(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def main():
    cli = sys.argv[1]
    quick = "--quick" in sys.argv
    tmp = tempfile.mkdtemp()
    print("| cluster, model | fastest (ms) | fastest's lowest headroom | eV rule | "
          + " | ".join(PROFILES) + " |")
    print("|---|---:|---:|---|" + "---:|" * len(PROFILES))
    for label, cluster, extra in CASES:
        if quick and "128gpu" in label:
            continue
        if isinstance(cluster, list):
            path = os.path.join(tmp, re.sub(r"\W+", "_", label) + ".json")
            run(cli, ["generate-cluster"] + cluster + ["--out", path])
        else:
            path = os.path.join(SAMPLES, cluster)
        for ev in ["paper", "uncertainty"]:
            js = os.path.join(tmp, "r.json")
            out = run(cli, ["search", "--cluster", path, "--compare", "--ev", ev, "--json", js] + extra)
            d = json.load(open(js))
            fastest = d["fastest"][0]["iteration_ms"]
            headroom = min(s["headroom"] if "headroom" in s else 1 - s["memory_mib"]["total"] / s["capacity_mib"]
                           for s in d["fastest"][0]["stages"])
            cells = []
            for prof in PROFILES:
                m = re.search(r"^  " + re.escape(prof) + r"\s+\(.*?: T ([\d.]+) ms", out, re.M)
                t = float(m.group(1))
                cells.append("fastest" if abs(t - fastest) < 1e-6 * fastest else f"+{100 * (t / fastest - 1):.1f}%")
            print(f"| {label} | {fastest:.1f} | {100 * headroom:.0f}% | {ev} | " + " | ".join(cells) + " |",
                  flush=True)


if __name__ == "__main__":
    main()
