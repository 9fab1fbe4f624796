#!/bin/sh
# The case study of docs/HETERO_MESHES.md: each cluster searched with uniform
# and with per-type meshes, on the priced copies of the clusters (prices are
# illustrative). Wall time and peak RSS from /usr/bin/time.
# Usage: docs/hetero_meshes/case_study.sh [memx-cli]   (run from the repository root)
cli=${1:-build/app/memx-cli}
dir=docs/hetero_meshes
run() {
    name=$1; shift
    for meshes in uniform per-type; do
        echo "== $name, --meshes $meshes"
        /usr/bin/time -f "wall %e s, peak RSS %M KB" "$cli" search "$@" --meshes "$meshes" 2>&1 \
            | grep -E "^ *1\. |delivers|idle|wall |fastest feasible|^Best|^  *TP|per million" | head -12
    done
}
run "V100 + T4" --cluster $dir/paper-6gpu-v100-t4-priced.json --model llama2-7b --gbs 32
run "8 H100 + 4 + 2 A100-40GB" --cluster $dir/uneven-h100-a100-priced.json --model llama2-13b --gbs 64
run "8 A100-80GB + 8 H100" --cluster $dir/a100-h100-16-priced.json --model llama2-13b --gbs 64
run "128 GPUs, 4 types" --cluster $dir/mixed-128gpu-4types-priced.json --model llama2-70b --max-pp 16
