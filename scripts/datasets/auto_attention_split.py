#!/usr/bin/env python3
"""Which attention a Megatron-LM CI run with attention_backend "auto" really ran, read from its
peak alone, and the analytic memory error split by it (docs/ACCURACY.md, "Cold-start targets").

The converter (to_measurements.py) reads "auto" as flash attention: Transformer Engine picks
flash or cuDNN fused attention where it can. Where the golden values also hold the same
configuration with attention_backend "unfused" (every column repeat_floor.py compares but the
attention), an "auto" peak within 1 % of that run's peak measured the unfused memory, a fact
about the measurement that needs no model. The analytic errors come from
`memx-cli accuracy --json` (its held-out runs).

Usage: scripts/datasets/auto_attention_split.py MEASUREMENTS.csv ACCURACY.json
"""
import csv
import json
import sys
from collections import defaultdict

from repeat_floor import CONFIG, effective_parallel

WITHOUT_ATTENTION = [c for c in CONFIG if c != 'attention']


def key(row):
    return tuple(row.get(c, '') for c in WITHOUT_ATTENTION) + effective_parallel(row) + (row['stage'],)


def mape(errors):
    return '%d peaks, MAPE %.2f %%' % (len(errors), 100 * sum(errors) / len(errors)) if errors else '0 peaks'


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1]) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith('#')) if r['stage'] != '']
    with open(argv[2]) as f:
        scores = json.load(f)['analytic']['scores']
    stage_row = {r['run_id']: r for r in rows if r.get('peak_mem_mib')}
    unfused = defaultdict(list)
    for r in stage_row.values():
        if r['attention'] == 'unfused':
            unfused[key(r)].append(float(r['peak_mem_mib']))
    groups = defaultdict(list)
    for s in scores:
        row = stage_row.get(s['run_id'])
        if row is None or not s['measured_mem_mib'] or not s['predicted_mem_mib']:
            continue
        measured, predicted = max(s['measured_mem_mib']), max(s['predicted_mem_mib'])
        error = abs(predicted - measured) / measured
        if row['attention'] == 'unfused':
            group = 'unfused (attention_backend unfused or local)'
        elif any(abs(measured - u) / u < 0.01 for u in unfused[key(row)]):
            group = 'auto, peak within 1 % of an unfused run of the same configuration'
        elif key(row) in unfused:
            group = 'auto, the same configuration has an unfused run with another peak'
        else:
            group = 'auto, no unfused run of the same configuration'
        groups[group].append(error)
    everything = [e for v in groups.values() for e in v]
    print('all: ' + mape(everything))
    for group in sorted(groups):
        print('%s: %s' % (group, mape(groups[group])))
    twins = 'auto, peak within 1 % of an unfused run of the same configuration'
    print('all but the %s: %s' % (twins.split(', ', 1)[1], mape([e for g, v in groups.items() if g != twins
                                                                    for e in v])))


if __name__ == '__main__':
    main(sys.argv)
