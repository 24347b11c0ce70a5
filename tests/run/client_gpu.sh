#!/bin/sh
# client_gpu.sh: a PyTorch program's own profiler (torch_profiled.py)
# under `occcalc run`: alone its trace holds kernel events; under occcalc
# CUPTI refuses its client, and the report says so (a note, and JSON's
# cupti_client_refused) while every launch is still recorded. Skipped
# without a GPU or PyTorch.
. "$(dirname "$0")/gpu_env.sh"
gpu_env torch
fail=0
no() { echo "client: $*"; fail=1; }
prog=tests/run/torch_profiled.py
alone=$(python3 $prog 2>"$tmp/alone.err") || no "alone: $(tail -3 "$tmp/alone.err")"
case $alone in
"kernel events "[1-9]*) ;;
*) no "alone, the profiler's trace: '$alone'" ;;
esac
"$OCC" run --json --output "$tmp/client.json" -- python3 $prog \
  >"$tmp/client.out" 2>"$tmp/client.err" || no "under occcalc: status $?"
python3 - "$tmp/client.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
r = d['cupti_client_refused']
ok = (r is not None and r['process_count'] >= 1 and
      r['call'].startswith('cuptiSubscribe') and
      r['reason'].startswith('CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED')
      and d['launch_count'] >= 8)
print('client: cupti_client_refused %s, %d launches' % (r, d['launch_count']))
sys.exit(0 if ok else 1)
PY
echo "client: under occcalc the program printed '$(cat "$tmp/client.out")', alone '$alone'"
# The text report is on standard error (the program's output is its own).
"$OCC" run -- python3 $prog >/dev/null 2>"$tmp/client.txt" || no "text run: status $?"
grep -q "^occcalc: note: the program's own CUPTI client was refused in process [0-9]* (cuptiSubscribe" "$tmp/client.txt" ||
  no "no note in the text report: '$(tail -2 "$tmp/client.txt")'"
[ $fail -eq 0 ] && echo "client: the program's own CUPTI client, refused, is reported"
exit $fail
