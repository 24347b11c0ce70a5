#!/bin/sh
# alloc_fail.sh OCCCALC SHIM: running out of memory is an output error.
# Each command below runs with the Nth allocation (malloc, calloc, realloc)
# failing (SHIM, an LD_PRELOAD library: failmalloc.c), for N from 0 to
# the command's count (every N up to 300, then a spread of others). Each
# run must succeed (status 0: the allocation that failed was not needed,
# or N is past the last) or say "out of memory" in its one line on stderr
# and exit 1: never blame the input (status 2), never crash.
set -u
occ=${1:-./occcalc}
shim=$(cd "$(dirname "${2:-build/failmalloc.so}")" && pwd)/$(basename "${2:-build/failmalloc.so}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0
# check ARGS...: every allocation of occcalc ARGS failing in turn.
check() {
  FAILMALLOC_COUNT="$tmp/count" LD_PRELOAD=$shim "$occ" "$@" >/dev/null 2>&1
  count=$(cat "$tmp/count")
  n=0 bad=0
  while [ $n -le "$count" ] && [ $bad -lt 3 ]; do
    FAILMALLOC_AFTER=$n LD_PRELOAD=$shim "$occ" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    runs=$((runs + 1))
    lines=$(wc -l <"$tmp/err")
    case "$rc:$lines:$(cat "$tmp/err")" in
      0:*) ;;
      "1:1:occcalc: "*"out of memory"*) ;;
      *) echo "alloc_fail: occcalc $* with allocation $n failing: status $rc: $(head -c 200 "$tmp/err")"
         bad=$((bad + 1)); fail=1 ;;
    esac
    if [ $n -lt 300 ]; then n=$((n + 1)); else n=$((n + count / 97 + 1)); fi
  done
}
check --gpu h100 --regs 32 --block 128
check --gpu h100 --regs 32 --block 128 --json
check --gpu h100 --regs 32 --block 128 --chart all --suggest --json
check --gpu h100 --regs 32 --block 128 --chart all --suggest
check --list-gpus --json
check --ptxas tests/ptxas/real/pressure.cuobjdump.txt --jsonl
check --ptxas tests/ptxas/real/pressure.cuobjdump.txt
check --data data/gpus.json --gpu a100 --regs 64 --block 256 --json
# occcalc run's report of a program that launched nothing and exited 3:
# status 3 only where the report was written whole, else the one line of
# out of memory and status 1, never the program's status beside an "out
# of memory writing JSON" that left no report.
FAILMALLOC_COUNT="$tmp/count" LD_PRELOAD=$shim "$occ" run --measure none --json -- sh -c 'exit 3' >/dev/null 2>&1
count=$(cat "$tmp/count")
n=0
while [ $n -le "$count" ]; do
  FAILMALLOC_AFTER=$n LD_PRELOAD=$shim "$occ" run --measure none --json -- sh -c 'exit 3' >"$tmp/out" 2>"$tmp/err"
  rc=$?
  runs=$((runs + 1))
  case "$rc:$(wc -l <"$tmp/err"):$(cat "$tmp/err")" in
    3:*"out of memory writing"*) bad=1 ;;
    3:*) bad=0 ;;
    "1:1:occcalc: "*"out of memory"*) bad=0 ;;
    *) bad=1 ;;
  esac
  [ $bad = 0 ] || { echo "alloc_fail: occcalc run --json with allocation $n failing: status $rc: $(head -c 200 "$tmp/err")"; fail=1; }
  n=$((n + 1))
done
# occcalc report merges run reports: two made by occcalc run.
for i in 1 2; do
  "$occ" run --json -- build/forge launch distinct=$((i * 3)) >"$tmp/run$i.json" 2>/dev/null ||
    { echo "alloc_fail: occcalc run --json -- build/forge failed"; fail=1; }
done
check report "$tmp/run1.json" "$tmp/run2.json"
[ $fail -eq 0 ] && echo "alloc_fail: $runs runs, each succeeded or said out of memory with status 1"
exit $fail
