#!/bin/sh
# run_torch_stats.sh: a PyTorch program (tests/run/torch_prog.py) under
# `occcalc run --no-counters` and under Nsight Compute's launch
# statistics: grid, block, registers, static and dynamic shared memory,
# the SM's configuration, launch__cluster_max_active and theoretical
# occupancy compared launch by launch (as multisets). Exits 1 when a
# launch differs; prints "skipped: ..." and exits 77 without a GPU, ncu or
# PyTorch. KEEP=DIR keeps the files there.
set -u
. "$(dirname "$0")/../run/gpu_env.sh"
gpu_env ncu torch
prog="python3 tests/run/torch_prog.py"
"$OCC" run --no-counters --json --output "$tmp/run.json" -- $prog \
  >"$tmp/run.out" 2>&1 || { echo "torch_stats: occcalc run failed"; exit 1; }
ncu --clock-control none --csv --metrics launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_config_size,launch__cluster_max_active,sm__maximum_warps_per_active_cycle_pct \
  $prog >"$tmp/ncu.csv" 2>"$tmp/ncu.err" || { echo "torch_stats: ncu failed"; exit 1; }
python3 - "$tmp/run.json" "$tmp/ncu.csv" <<'PY'
import collections, json, sys
run = json.load(open(sys.argv[1]))
ours = collections.Counter(); occ_ours = collections.Counter()
for row in run['rows']:
    k = row['kernel']; b = k['block'][0]*k['block'][1]*k['block'][2]
    cl = (row.get('cluster_launch') or {}).get('launch__cluster_max_active') or 0
    for l in row['launches']:
        g = l['grid']
        key = (g[0]*g[1]*g[2], b, k['regs_per_thread'], k['smem_static_bytes'], k['smem_dynamic_bytes'], l['smem_executed_bytes'], cl)
        ours[key] += 1
        occ_ours[key + (round(row['theoretical_occupancy'] * 100, 2) if cl == 0 else None,)] += 1
sys.path.insert(0, 'tests/harness')
from ncu_csv import ncu_launches
theirs = collections.Counter(); occ_theirs = collections.Counter()
for v in ncu_launches(sys.argv[2]):
    key = (int(v['launch__grid_size']), int(v['launch__block_size']), int(v['launch__registers_per_thread']), int(v['launch__shared_mem_per_block_static']), int(v['launch__shared_mem_per_block_dynamic']), int(v['launch__shared_mem_config_size']), int(v['launch__cluster_max_active']))
    theirs[key] += 1
    occ_theirs[key + (round(v['sm__maximum_warps_per_active_cycle_pct'], 2) if key[-1] == 0 else None,)] += 1
print('torch_stats: launches: occcalc run %d, ncu %d' % (sum(ours.values()), sum(theirs.values())))
d = (ours - theirs) + (theirs - ours)
print('torch_stats: grid, block, registers, smem static/dynamic, SM configuration, cluster_max_active: %d launches differ' % sum(d.values()))
for t in sorted(d, key=str): print('  ', 'ours' if ours[t] > theirs[t] else 'ncu ', t)
d2 = (occ_ours - occ_theirs) + (occ_theirs - occ_ours)
print('torch_stats: with theoretical occupancy (non-cluster launches) as well: %d launches differ' % sum(d2.values()))
for t in sorted(d2, key=str)[:10]: print('  ', 'ours' if occ_ours[t] > occ_theirs[t] else 'ncu ', t)
sys.exit(1 if sum(d.values()) or sum(d2.values()) else 0)
PY

