#!/bin/sh
# turns.sh PROGRAM (build/run_turns, from tests/run/turns.cu): two
# processes of one `occcalc run` on one GPU both get achieved occupancy
# (they take turns for the counters: src/inject/inject_turns.h). Skips (77)
# without a GPU. OCCCALC names the binary (default ./occcalc); KEEP=DIR
# keeps the JSON there.
set -u
prog=${1:-build/run_turns}
. "$(dirname "$0")/gpu_env.sh"
gpu_env
"$OCC" run --json --output "$tmp/turns.json" -- \
  sh -c "$prog 6 & $prog 6; wait" 2>"$tmp/turns.err" ||
  { echo "turns: occcalc run failed: $(head -c 300 "$tmp/turns.err")"; exit 1; }
python3 - "$tmp/turns.json" <<'PY'
import collections, json, sys
run = json.load(open(sys.argv[1]))
launches, measured = collections.Counter(), collections.Counter()
for row in run['rows']:
    for l in row['launches']:
        launches[l['pid']] += 1
        measured[l['pid']] += l['achieved_occupancy'] is not None
print('turns: %d processes; measured launches of each: %s; note: %s' %
      (len(launches), ', '.join('%d of %d' % (measured[p], launches[p])
                                for p in sorted(launches)), run.get('note')))
sys.exit(0 if len(launches) == 2 and all(measured[p] > 0 for p in launches) else 1)
PY
[ $? -eq 0 ] || exit 1
# A process that makes its context and launches nothing (the profiler
# starts from a context) does not keep the counters from one that
# launches: it yields the turn as soon as it is wanted.
"$OCC" run --json --output "$tmp/idle.json" -- \
  sh -c "$prog 5 idle & sleep 1; $prog 2; wait" 2>"$tmp/idle.err" ||
  { echo "turns: occcalc run (idle) failed: $(head -c 300 "$tmp/idle.err")"; exit 1; }
python3 - "$tmp/idle.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
launches = sum(r['launch_count'] for r in run['rows'])
measured = sum(r['counter_launch_count'] for r in run['rows'])
print('turns: beside a process with a context and no launch: %d of %d launches '
      'measured; note: %s' % (measured, launches, run.get('note')))
sys.exit(0 if measured > 0 else 1)
PY
