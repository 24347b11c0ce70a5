"""sample_compare.py OCCCALC_JSON NCU_CSV [LABEL] - `occcalc run
--measure sample`'s achieved occupancy launch by launch beside Nsight
Compute's (ncu --csv --print-kernel-base mangled --metrics
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum).

Launches are matched by (mangled name, grid, block) and their order:
occcalc's by start time, ncu's by its ID. Prints one line per launch and
a summary; exits 1 when a launch has neither a value nor a reason, or
falls outside the samples (before their start or after their end). How
many of the launches marked clean are within 3 points of ncu is printed
as "LABEL: clean-tally WITHIN COUNT" for sample_gpu.sh to judge over
every program (95 %). Also printed: how many serial launches of 10 us or longer (no other
kernel beside them) are within 3 points, which launches in samples shared
with back-to-back neighbours miss."""
import collections
import csv
import json
import statistics
import sys

ACHIEVED = 'sm__warps_active.avg.pct_of_peak_sustained_active'
DURATION = 'gpu__time_duration.sum'


def ncu_launches(path):
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    col = {n: i for i, n in enumerate(rows[0])}
    out = collections.OrderedDict()
    for r in rows[1:]:
        key = (int(r[col['Process ID']]) if 'Process ID' in col else 0,
               int(r[col['ID']]))
        l = out.setdefault(key, {
            'name': r[col['Kernel Name']],
            'grid': tuple(int(v) for v in r[col['Grid Size']].strip('()').split(',')),
            'block': tuple(int(v) for v in r[col['Block Size']].strip('()').split(','))})
        l[r[col['Metric Name']]] = float(r[col['Metric Value']].replace(',', ''))
    return list(out.values())


def main():
    run = json.load(open(sys.argv[1]))
    label = sys.argv[3] if len(sys.argv) > 3 else sys.argv[1]
    ours = []
    for row in run['rows']:
        for l in row['launches']:
            ours.append(dict(l, name=row['kernel']['mangled_name'],
                             block=tuple(row['kernel']['block']),
                             readable=row['kernel']['name']))
    ours.sort(key=lambda l: (l['start_ns'] or 0))
    theirs = ncu_launches(sys.argv[2])
    queues = collections.defaultdict(collections.deque)
    for m in theirs:
        queues[(m['name'], m['grid'], m['block'])].append(m)
    lines, diffs, serial, clean, unexplained, outside = [], [], [], [], 0, 0
    for l in ours:
        key = (l['name'], tuple(l['grid']), l['block'])
        m = queues[key].popleft() if queues[key] else None
        a = l['achieved_occupancy']
        t = m.get(ACHIEVED) if m else None
        if a is None and not l.get('achieved_reason'):
            unexplained += 1
        if a is None and 'before sampling started' in (l.get('achieved_reason') or ''):
            outside += 1
        d = abs(100 * a - t) if a is not None and t is not None else None
        if d is not None:
            diffs.append(d)
            if l.get('achieved_basis') == 'clean':
                clean.append(d)
            if (l['duration_us'] or 0) >= 10 and l.get('achieved_basis') not in (
                    'beside_other_stream', 'beside_other_process'):
                serial.append(d)
        lines.append('%-40.40s %8.1f us %6s ncu %6s  %-20s %s' % (
            l['readable'], l['duration_us'] or 0,
            '-' if a is None else '%.1f' % (100 * a),
            '-' if t is None else '%.1f' % t, l.get('achieved_basis'),
            'graph' if l['graph_id'] else ''))
    print('\n'.join(lines))
    within = sum(1 for d in serial if d <= 3)
    measured = sum(1 for l in ours if l['achieved_occupancy'] is not None)
    print('%s: %d launches, %d with achieved occupancy, ncu %d; %d unexplained '
          'nulls; serial >= 10 us within 3 points: %d of %d; all matched: '
          'median |diff| %.2f, max %.2f' % (
              label, len(ours), measured, len(theirs), unexplained, within,
              len(serial), statistics.median(diffs) if diffs else -1,
              max(diffs) if diffs else -1))
    clean_within = sum(1 for d in clean if d <= 3)
    print('%s: clean launches within 3 points: %d of %d' %
          (label, clean_within, len(clean)))
    # The gate holds the first launch until sampling runs: no launch may
    # fall outside the samples.
    print('%s: launches outside the sampling: %d' % (label, outside))
    # The clean launches are judged over the whole suite (sample_gpu.sh
    # sums these lines): a program with three clean launches cannot show
    # 95 %.
    print('%s: clean-tally %d %d' % (label, clean_within, len(clean)))
    bad = unexplained or outside
    sys.exit(1 if bad else 0)


main()
