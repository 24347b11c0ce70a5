#!/bin/sh
# trace_test.sh: `occcalc run --trace FILE` without a GPU, over forged
# launch records (build/forge) and the fake program's (with replay's
# counters): the file read back against the Chrome trace event format
# (trace_check.py: required fields, monotone times per track, none at ts
# 0, args that parse) with one slice per launch, each at its record's
# start from otherData.origin_ns; a --trace path that cannot be written
# refused before the program runs (status 2, the program not run).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "trace: $*"; fail=1; }
./occcalc run --trace "$tmp/forged.json" -- build/forge launch times=30 \
  launch stream=2 times=10 2>"$tmp/err" || no "forged run failed: $(head -c 300 "$tmp/err")"
python3 tests/run/trace_check.py "$tmp/forged.json" 40 || fail=1
./occcalc run --measure replay --json --trace "$tmp/fake.json" -- build/fake_launches \
  >"$tmp/out" 2>"$tmp/err" || no "fake run failed: $(head -c 300 "$tmp/err")"
python3 tests/run/trace_check.py "$tmp/fake.json" 4 || fail=1
python3 - "$tmp/fake.json" "$tmp/out" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc['traceEvents']
# ts counts from otherData.origin_ns, 1 us before the first launch: the
# first slice at ts 1, every slice at its record's start.
starts = {l['correlation_id']: l['start_ns'] for r in json.load(open(sys.argv[2]))['rows']
          for l in r['launches']}
origin = doc['otherData']['origin_ns']
off = [e['args']['correlation_id'] for e in ev if e['ph'] == 'X'
       if origin + round(e['ts'] * 1000) != starts[e['args']['correlation_id']]]
first = min(e['ts'] for e in ev if e['ph'] == 'X')
if origin != min(starts.values()) - 1000 or first != 1 or off:
    print('trace: fake: origin_ns %d, first launch %d, first ts %r, launches off their start %r'
          % (origin, min(starts.values()), first, off))
    sys.exit(1)
got = sorted(e['args']['achieved_occupancy'] for e in ev if e['ph'] == 'X'
             if e['args']['achieved_occupancy'] is not None)
counters = [e for e in ev if e['ph'] == 'C']
if got != [0.4, 0.6] or len(counters) != 8:
    print('trace: fake: achieved %r, %d counter points' % (got, len(counters)))
    sys.exit(1)
PY
rm -f "$tmp/ran"
./occcalc run --trace "$tmp/no/such/dir/t.json" -- touch "$tmp/ran" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/ran" ] || no "an unwritable --trace: status $rc, program ran: $([ -e "$tmp/ran" ] && echo yes || echo no)"
[ $fail -eq 0 ] && echo "trace: --trace files read back as Chrome traces; a bad path refused"
exit $fail
