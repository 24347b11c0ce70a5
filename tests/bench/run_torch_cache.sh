#!/bin/sh
# run_torch_cache.sh: a PyTorch program (tests/run/torch_prog.py: a cuBLAS
# sgemm, relu, softmax, reductions and elementwise kernels, 3 iterations)
# under `occcalc run --counter-launches all` and under Nsight Compute,
# with each cache policy on both sides and across: achieved occupancy
# launch by launch (kernels matched by name, grid and block, in launch
# order), as medians, largest differences and launches within 3 points.
# Prints "skipped: ..." and exits 77 without a GPU, ncu or PyTorch.
# KEEP=DIR keeps the reports there.
set -u
. "$(dirname "$0")/../run/gpu_env.sh"
gpu_env ncu torch
prog="python3 tests/run/torch_prog.py"
for c in none all; do
  "$OCC" run --counter-launches all --cache-control $c --json \
    --output "$tmp/run-$c.json" -- $prog >"$tmp/run-$c.out" 2>&1 ||
    { echo "torch_cache: occcalc run --cache-control $c failed"; exit 1; }
  ncu --clock-control none --cache-control $c --csv --metrics \
    sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size \
    $prog >"$tmp/ncu-$c.csv" 2>"$tmp/ncu-$c.err" ||
    { echo "torch_cache: ncu --cache-control $c failed"; exit 1; }
done
python3 - "$tmp" <<'PY'
import collections, json, sys
sys.path.insert(0, 'tests/harness')
from ncu_csv import ncu_launches
tmp = sys.argv[1]
# ncu writes "void " and shortens at::native:: and anonymous namespaces.
def norm(n):
    return n.replace('void ', '').replace('(anonymous namespace)', '<unnamed>') \
            .replace('at::native::', 'at::')[:28]
def ours(c):
    o = collections.defaultdict(list)
    for row in json.load(open('%s/run-%s.json' % (tmp, c)))['rows']:
        k = row['kernel']
        b = k['block'][0] * k['block'][1] * k['block'][2]
        for l in row['launches']:
            g = l['grid']
            o[(norm(k['name']), g[0] * g[1] * g[2], b)].append(
                (l['correlation_id'], l['achieved_occupancy']))
    return {key: [v for _, v in sorted(vals)] for key, vals in o.items()}
def theirs(c):
    t = collections.defaultdict(list)
    for d in ncu_launches('%s/ncu-%s.csv' % (tmp, c)):
        t[(norm(d['name']), int(d['launch__grid_size']),
           int(d['launch__block_size']))].append(
            d['sm__warps_active.avg.pct_of_peak_sustained_active'])
    return t
fail = 0
for a, b in (('none', 'none'), ('all', 'all'), ('none', 'all')):
    o, t = ours(a), theirs(b)
    diffs, unmatched = [], 0
    for key, vals in t.items():
        mine = o.get(key, [])
        if len(mine) != len(vals) or None in mine:
            unmatched += len(vals)
            continue
        diffs += [abs(100 * x - y) for x, y in zip(mine, vals)]
    diffs.sort()
    n = len(diffs)
    if not n or unmatched:
        print('torch_cache: occcalc %s / ncu %s: %d launches not matched' % (a, b, unmatched))
        fail = 1
        continue
    print('torch_cache: occcalc --cache-control %s against ncu --cache-control %s: '
          '%d launches, median difference %.2f points, largest %.2f, within 3 '
          'points %d' % (a, b, n, diffs[n // 2], diffs[-1], sum(d <= 3 for d in diffs)))
t1, t2 = theirs('none'), theirs('all')
d = sorted(abs(x - y) for k in t1 for x, y in zip(t1[k], t2.get(k, [])))
print('torch_cache: ncu against itself, none and all: median %.2f points, largest %.2f'
      % (d[len(d) // 2], d[-1]))
sys.exit(fail)
PY
