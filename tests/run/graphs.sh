#!/bin/sh
# graphs.sh PROGRAM (build/run_graphs, from tests/run/graphs.cu), beside
# Nsight Compute:
# - the launches outside the graph: achieved occupancy within 3 points of
#   ncu's with the same cache policy, both with the caches as the program
#   leaves them (occcalc's default, ncu --cache-control none) and flushed
#   (occcalc --cache-control all, ncu's default), on the kernels over
#   100 us (and, without a flush, on every kernel);
# - the graph's kernel nodes: ncu --graph-profiling node measures every
#   one; occcalc records each (theoretical occupancy and the rest) without
#   achieved occupancy, as docs/run.md says;
# - the program's own work intact under occcalc run, with two branches
#   and in a chain: every kernel ran as often as it was launched (the
#   program counts them; profiling the graph launch would leave nodes
#   unrun);
# - the report's header: the profiled launches are those with achieved
#   occupancy, and the library's time was recorded.
# Skips without a GPU or ncu (status 77). OCCCALC names the binary
# (default ./occcalc); KEEP=DIR keeps the files there.
set -u
prog=${1:-build/run_graphs}
. "$(dirname "$0")/gpu_env.sh"
gpu_env ncu
metrics=sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for cache in none all; do
  "$OCC" run --json --cache-control $cache --output "$tmp/run-$cache.json" \
    -- "$prog" 3 2>"$tmp/run-$cache.err" ||
    { echo "graphs: occcalc run --cache-control $cache failed: $(head -c 300 "$tmp/run-$cache.err")"; exit 1; }
  ncu --clock-control none --graph-profiling node --cache-control $cache \
    --csv --metrics $metrics "$prog" 3 >"$tmp/ncu-$cache.csv" 2>"$tmp/ncu-$cache.err" ||
    { echo "graphs: ncu --cache-control $cache failed"; exit 1; }
done
# The program's own count of its kernels' runs, under occcalc run.
for layout in fork chain; do
  "$OCC" run --json --output "$tmp/ran-$layout.json" -- "$prog" 3 $layout \
    >"$tmp/ran-$layout.txt" 2>&1 ||
    { echo "graphs: occcalc run -- $prog 3 $layout failed"; exit 1; }
  ran=$(sed -n 's/.*each kernel ran \(.*\) times$/\1/p' "$tmp/ran-$layout.txt")
  echo "graphs: $layout: under occcalc run each kernel ran $ran times"
  [ "$ran" = "4, 4, 4 and 4" ] || { echo "graphs: $layout: the program's graph did not run whole"; exit 1; }
done
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fail = 0
sys.path.insert(0, 'tests/harness')
from ncu_csv import ncu_launches
def ncu(cache):
    launches = ncu_launches('%s/ncu-%s.csv' % (tmp, cache))
    for m in launches:
        m['name'] = m['name'].split('(')[0]
    return launches
for cache in ('none', 'all'):
    theirs = ncu(cache)
    run = json.load(open('%s/run-%s.json' % (tmp, cache)))
    launches = []
    for row in run['rows']:
        for l in row['launches']:
            launches.append((l['correlation_id'], row['kernel']['name'], l['grid'][0],
                             l['achieved_occupancy'], l['graph_id'],
                             row['achieved_null_reason']))
    launches.sort(key=lambda l: l[0])
    graph = [l for l in launches if l[4]]
    alone = [l for l in launches if not l[4]]
    # ncu lists the graph's nodes, then the launches outside it.
    ncu_graph, ncu_alone = theirs[:len(graph)], theirs[len(graph):]
    if len(theirs) != len(launches) or len(alone) != 4 or len(graph) != 12:
        print('graphs: %s: %d launches (%d in graphs), ncu %d' %
              (cache, len(launches), len(graph), len(theirs)))
        sys.exit(1)
    diffs = []
    for (corr, name, grid, ours, _, _), m in zip(alone, ncu_alone):
        t = m['sm__warps_active.avg.pct_of_peak_sustained_active']
        us = m['gpu__time_duration.sum'] / 1000
        same = name == m['name'] and grid == m['grid']
        d = abs(100 * ours - t) if ours is not None else None
        diffs.append('%s<<<%d>>> %.1f us: %s vs ncu %.1f' %
                     (name, grid, us, '-' if ours is None else '%.1f' % (100 * ours), t))
        # The criterion: the same policy, within 3 points, on kernels
        # over 100 us (without a flush, on every kernel).
        if not same or d is None or (d > 3 and (cache == 'none' or us > 100)):
            fail = 1
            diffs[-1] += '  DIFFERS'
    print('graphs: --cache-control %s: launches outside the graph against ncu '
          '--cache-control %s: %s' % (cache, cache, '; '.join(diffs)))
    # Each row also holds the configuration's launch outside the graph,
    # which is measured: the graph's launches are those without achieved.
    # ncu measures every node; occcalc records every node and profiles
    # none (docs/run.md).
    measured_by_ncu = [m for m in ncu_graph
                       if 'sm__warps_active.avg.pct_of_peak_sustained_active' in m]
    unmeasured = [l for l in graph if l[3] is None]
    print('graphs: %s: graph kernel nodes: ncu measured %d of %d; occcalc '
          'recorded %d, %d without achieved' %
          (cache, len(measured_by_ncu), len(graph), len(graph), len(unmeasured)))
    if len(unmeasured) != len(graph) or len(measured_by_ncu) != len(graph):
        fail = 1
    c = run['counters']
    with_achieved = sum(1 for l in launches if l[3] is not None)
    print('graphs: %s: header: %s launches profiled, %s flushed, overhead %s s '
          '(%s s starting the profiler)' %
          (cache, c['profiled_launch_count'], c['flushed_launch_count'],
           c['overhead_s'], c['profiler_start_s']))
    if (c['cache_control'] != cache or c['profiled_launch_count'] != with_achieved
            or not c['overhead_s'] or c['process_count'] != 1
            or c['flushed_launch_count'] != (with_achieved if cache == 'all' else 0)):
        print('graphs: %s: the header disagrees with the launches (%d with '
              'achieved occupancy)' % (cache, with_achieved))
        fail = 1
sys.exit(fail)
PY
