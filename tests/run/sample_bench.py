"""sample_bench.py OCCCALC PROGRAM ARGS... - wall time of PROGRAM alone,
under `occcalc run` (PM sampling), and under ncu (--graph-profiling node
--cache-control none --clock-control none), alternating, REPS times
(default 5); prints the medians and occcalc's overhead over ncu's."""
import os
import statistics
import subprocess
import sys
import time

occ, prog = sys.argv[1], sys.argv[2:]
reps = int(os.environ.get('REPS', '5'))
ways = {
    'alone': prog,
    'occcalc': [occ, 'run', '--json', '--output', '/dev/null', '--'] + prog,
    'ncu': ['ncu', '--graph-profiling', 'node', '--cache-control', 'none',
            '--clock-control', 'none', '--metrics',
            'sm__warps_active.avg.pct_of_peak_sustained_active'] + prog,
}
times = {k: [] for k in ways}
for _ in range(reps):
    for k, cmd in ways.items():
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.monotonic() - t)
med = {k: statistics.median(v) for k, v in times.items()}
print('bench: %s: medians of %d: alone %.3f s, occcalc run %.3f s, ncu %.3f s'
      % (' '.join(prog), reps, med['alone'], med['occcalc'], med['ncu']))
over_occ, over_ncu = med['occcalc'] - med['alone'], med['ncu'] - med['alone']
print('bench: overhead: occcalc %.3f s, ncu %.3f s, ratio %.3fx' %
      (over_occ, over_ncu, over_occ / over_ncu if over_ncu > 0 else float('nan')))
