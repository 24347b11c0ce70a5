#!/bin/sh
# run_sample.sh OCCCALC PROGRAM ARGS...: `occcalc run`'s PM sampling
# beside the program alone and beside ncu (tests/run/sample_bench.py),
# judged: occcalc's overhead at most 0.05x ncu's, the program's own time
# at most 1.05x its time alone, and occcalc's work after the program at
# most 1 s per 10 s of GPU time sampled. Prints "skipped: ..." and exits
# 77 without a GPU or ncu.
set -u
. "$(dirname "$0")/verdict.sh"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "skipped: no GPU"; exit 77; }
command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
out=$(python3 "$(dirname "$0")/../run/sample_bench.py" "$@") ||
  { echo "run_sample: sample_bench.py failed"; exit 1; }
echo "$out" | grep -v '^figure '
fig() { echo "$out" | awk -v n="$1" '$1 == "figure" && $2 == n { print $3 }'; }
rc=0
verdict "overhead over ncu's" "$(fig overhead_ratio)" x "<=" 0.05 || rc=1
verdict "program's own time over alone" "$(fig own_ratio)" x "<=" 1.05 || rc=1
verdict "after the program, per 10 s sampled" "$(fig after_per_10s)" s "<=" 1 || rc=1
exit $rc
