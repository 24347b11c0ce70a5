"""sample_bench.py OCCCALC PROGRAM ARGS... - wall time of PROGRAM alone,
under `occcalc run` (PM sampling), and under ncu (--graph-profiling node
--cache-control none --clock-control none), alternating, REPS times
(default 5). Prints the medians and three figures, one per line as
"figure NAME VALUE" for tests/bench/run_sample.sh's verdicts:
- overhead_ratio: occcalc run's time over the program alone, over ncu's;
- own_ratio: the program's own wall time under occcalc run over alone
  (a wrapper shell times the program from its exec to its exit);
- after_per_10s: occcalc's time after the program's end (to its own
  exit: the samples drained, joined and the report written), in seconds
  per 10 s of GPU time sampled."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

occ, prog = sys.argv[1], sys.argv[2:]
reps = int(os.environ.get('REPS', '5'))
tmp = tempfile.mkdtemp(prefix='occ-sample-bench-')
stamps = os.path.join(tmp, 'stamps')
report = os.path.join(tmp, 'run.json')
# The program's own start and end (CLOCK_REALTIME, ns), from a shell
# that then execs nothing else.
timed = ['sh', '-c', 'date +%s%N >> "$0"; "$@"; s=$?; date +%s%N >> "$0"; '
         'exit $s', stamps] + prog
ways = {
    'alone': timed,
    'occcalc': [occ, 'run', '--json', '--output', report, '--'] + timed,
    'ncu': ['ncu', '--graph-profiling', 'node', '--cache-control', 'none',
            '--clock-control', 'none', '--metrics',
            'sm__warps_active.avg.pct_of_peak_sustained_active'] + prog,
}
times = {k: [] for k in ways}
own = {'alone': [], 'occcalc': []}
after, sampled = [], []
for _ in range(reps):
    for k, cmd in ways.items():
        if os.path.exists(stamps):
            os.unlink(stamps)
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.monotonic() - t)
        end_wall = time.time()
        if k == 'ncu':
            continue
        s = [int(x) for x in open(stamps).read().split()]
        own[k].append((s[1] - s[0]) / 1e9)
        if k == 'occcalc':
            after.append(end_wall - s[1] / 1e9)
            d = json.load(open(report))['measure']['devices'][0]
            sampled.append(d['sample_count'] * d['interval_ns'] / 1e9)
med = {k: statistics.median(v) for k, v in times.items()}
print('bench: %s: medians of %d: alone %.3f s, occcalc run %.3f s, ncu %.3f s'
      % (' '.join(prog), reps, med['alone'], med['occcalc'], med['ncu']))
over_occ, over_ncu = med['occcalc'] - med['alone'], med['ncu'] - med['alone']
print('bench: overhead: occcalc %.3f s, ncu %.3f s' % (over_occ, over_ncu))
print('bench: the program\'s own time: alone %.3f s, under occcalc run %.3f s'
      % (statistics.median(own['alone']), statistics.median(own['occcalc'])))
print('bench: after the program: %.3f s, GPU time sampled %.3f s' %
      (statistics.median(after), statistics.median(sampled)))
print('figure overhead_ratio %.4f' % (over_occ / over_ncu if over_ncu > 0 else float('inf')))
print('figure own_ratio %.4f' % (statistics.median(own['occcalc']) /
                                 statistics.median(own['alone'])))
print('figure after_per_10s %.4f' % (10 * statistics.median(after) /
                                     max(statistics.median(sampled), 1e-9)))
