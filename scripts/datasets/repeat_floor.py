#!/usr/bin/env python3
"""The error floor repeated measurements set, computed from a memx-measurements/1
file alone (an independent check of memx::RepeatFloor, tests/core/tst_accuracy_datasets.cpp).

For every configuration (run-level columns, plus the stage for memory) the single
value with the smallest summed relative error |c - y| / y over its repeats is the
median weighted by 1 / y; the floor is that oracle's MAPE over all values.
Runs the planner cannot complete can be left out with --skip SUBSTRING.

Usage: scripts/datasets/repeat_floor.py FILE [--skip SUBSTRING ...]
"""
import csv
import sys
from collections import defaultdict

CONFIG = ['gpu_type', 'num_gpus', 'tp', 'pp', 'dp', 'vp', 'mbs', 'gbs', 'seq_len', 'num_layers', 'hidden',
          'ffn_hidden', 'heads', 'query_groups', 'vocab', 'recompute', 'precision', 'mlp', 'tied_embeddings',
          'attention', 'attention_dropout', 'hidden_dropout']


def effective_parallel(r):
    """Sequence parallelism matters only at TP > 1, a sharded optimizer and the overlaps only at DP > 1 (Megatron turns
    --sequence-parallel off at TP 1); empty cells are the format's default, true."""
    sp = r.get('sequence_parallel', '') != 'false' and int(r['tp']) > 1
    dist = r.get('distributed_optimizer', '') != 'false' and int(r['dp']) > 1
    # The overlap flags (empty: false) matter only at DP > 1 too.
    reduce = r.get('overlap_grad_reduce', '') == 'true' and int(r['dp']) > 1
    gather = r.get('overlap_param_gather', '') == 'true' and int(r['dp']) > 1
    # The layer style (empty: LLaMA's rope, rmsnorm, no linear bias) is part of the model.
    style = (r.get('position_embedding', '') or 'rope', r.get('normalization', '') or 'rmsnorm',
             r.get('bias_linear', '') == 'true')
    return (sp, dist, reduce, gather, style)


def oracle_error(values):
    return min(sum(abs(c - y) / y for y in values) for c in values)


def main(argv):
    path, skips = argv[1], []
    i = 2
    while i < len(argv):
        if argv[i] == '--skip':
            skips.append(argv[i + 1])
            i += 2
        else:
            sys.exit('unknown argument ' + argv[i])
    with open(path) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith('#'))
                if not any(s in r['run_id'] for s in skips)]
    for target, is_target_row in (('iteration_time_ms', lambda r: r['stage'] == ''),
                                  ('peak_mem_mib', lambda r: r['stage'] != '')):
        groups = defaultdict(list)
        for r in rows:
            if is_target_row(r) and r.get(target):
                groups[tuple(r.get(c, '') for c in CONFIG) + effective_parallel(r) + (r['stage'],)].append(
                    float(r[target]))
        n = sum(len(v) for v in groups.values())
        if n == 0:
            continue
        repeated = sum(1 for v in groups.values() if len(v) > 1)
        floor = 100 * sum(oracle_error(v) for v in groups.values()) / n
        print('%s: %d values, %d configurations, %d repeated, floor MAPE %.2f%%' % (target, n, len(groups), repeated,
                                                                                    floor))


if __name__ == '__main__':
    main(sys.argv)
