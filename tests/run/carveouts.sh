#!/bin/sh
# carveouts.sh PROGRAM (build/run_carveouts, from tests/run/carveouts.cu):
# under occcalc run's default counters, each launch's SM configuration
# (recorded, or predicted where CUPTI did not record it) and its blocks
# per SM at launch equal Nsight Compute's, launch by launch; and the same
# without counters, where CUPTI records the configuration. Skips without
# a GPU or ncu (status 77). OCCCALC names the binary (default ./occcalc); KEEP=DIR
# keeps the JSON and CSV there.
set -u
prog=${1:-build/run_carveouts}
. "$(dirname "$0")/gpu_env.sh"
gpu_env ncu
"$OCC" run --json --output "$tmp/counters.json" -- "$prog" 2>"$tmp/counters.err" ||
  { echo "carveouts: occcalc run failed: $(head -c 300 "$tmp/counters.err")"; exit 1; }
"$OCC" run --no-counters --json --output "$tmp/plain.json" -- "$prog" 2>"$tmp/plain.err" ||
  { echo "carveouts: occcalc run --no-counters failed"; exit 1; }
ncu --clock-control none --csv --metrics \
  launch__shared_mem_config_size,launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__shared_mem_per_block_dynamic,launch__block_size \
  "$prog" >"$tmp/ncu.csv" 2>"$tmp/ncu.err" || { echo "carveouts: ncu failed"; exit 1; }
python3 - "$tmp/ncu.csv" "$tmp/counters.json" "$tmp/plain.json" <<'PY'
import json, sys
sys.path.insert(0, 'tests/harness')
from ncu_csv import ncu_launches
theirs = []
for m in ncu_launches(sys.argv[1]):
    limits = [m['launch__occupancy_limit_' + k] for k in
              ('blocks', 'registers', 'shared_mem', 'warps')]
    theirs.append((m['name'].split('(')[0], int(m['launch__shared_mem_per_block_dynamic']),
                   int(m['launch__shared_mem_config_size']), int(min(limits))))
fail = 0
for path, label in ((sys.argv[2], 'default counters'), (sys.argv[3], '--no-counters')):
    run = json.load(open(path))
    launches = []
    for row in run['rows']:
        k = row['kernel']
        warps = -(-k['block'][0] * k['block'][1] * k['block'][2] // 32)
        # H100 (CC 9.0): 64 warps an SM.
        blocks = round(row['launch_occupancy'] * 64 / warps)
        for l in row['launches']:
            launches.append((l['correlation_id'], k['name'].split('(')[0],
                             k['smem_dynamic_bytes'], row['smem_executed_bytes'],
                             blocks, row['smem_config_predicted'],
                             l['carveout_pct']))
    launches.sort()
    ours = [l[1:5] for l in launches]
    same = sum(1 for a, b in zip(ours, theirs) if a == b)
    predicted = sum(1 for l in launches if l[5])
    print('carveouts: %s: %d of %d launches equal ncu\'s (SM configuration and '
          'blocks per SM at launch; %d predicted, %d rows)' %
          (label, same, len(theirs), predicted, len(run['rows'])))
    if len(ours) != len(theirs) or same != len(theirs):
        fail = 1
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if a != b:
                print('  launch %d: ours %s (carveout %s), ncu %s' %
                      (i, a, launches[i][6], b))
sys.exit(fail)
PY
