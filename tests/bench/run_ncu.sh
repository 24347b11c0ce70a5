#!/bin/sh
# run_ncu.sh: a program ($BENCH_PROG; by default the lab's reduction
# program, build/lab/reduction all, 462 launches of 21 configurations;
# make bench-gpu-run-small gives the graph program's 16 launches) alone,
# under `occcalc run --measure replay` (the Range Profiler in the program,
# the first 3 launches of each configuration profiled), under `occcalc run
# --counter-launches all` (replay, every launch profiled), under `occcalc
# run --measure none` and under `ncu --section Occupancy --section
# LaunchStats`, alternating, median of $BENCH_RUNS (5) wall times each.
# Targets: replay's overhead (its time minus the program's) at most a
# tenth of ncu's; --measure none at most 1.1x the program alone. PM
# sampling, run's default, has its own benchmark (run_sample.sh).
# Prints "skipped: no GPU" and exits 77 without one.
set -u
runs=${BENCH_RUNS:-5}
if ! ./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
command -v jq >/dev/null || { echo "skipped: no jq to read JSON"; exit 77; }
prog=${BENCH_PROG:-}
if [ -z "$prog" ]; then
  make -s lab-build || exit 1
  prog="build/lab/reduction all"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
time_of() { t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
i=0
while [ $i -lt "$runs" ]; do
  time_of $prog >>"$out/alone"
  time_of ./occcalc run --measure replay -- $prog >>"$out/run"
  time_of ./occcalc run --counter-launches all -- $prog >>"$out/all"
  time_of ./occcalc run --measure none -- $prog >>"$out/nocounters"
  time_of ncu --section Occupancy --section LaunchStats $prog >>"$out/ncu"
  i=$((i + 1))
done
median() { sort -n "$out/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
profiled() {
  ./occcalc run "$@" --json --output "$out/run.json" -- $prog >/dev/null 2>&1
  jq '[.rows[].counter_launch_count] | add' "$out/run.json"
}
three=$(profiled --measure replay)
account=$(jq -r '.counters | "\(.overhead_s) s in the program (\(.profiler_start_s) s starting the profiler)"' "$out/run.json")
all=$(profiled --counter-launches all)
launches=$(jq .launch_count "$out/run.json")
awk -v a="$(median alone)" -v r="$(median run)" -v ra="$(median all)" \
    -v n="$(median nocounters)" -v c="$(median ncu)" -v l="$launches" \
    -v p="$three" -v pa="$all" -v k="$runs" -v prog="$prog" -v acct="$account" 'BEGIN {
  printf "bench-run: %s, %d launches, medians of %d (s)\n", prog, l, k
  printf "  alone %.2f, ncu %.2f, occcalc run %.2f\n", a, c, r
  printf "  occcalc run --counter-launches all %.2f, --measure none %.2f\n", ra, n
  ro = r - a; rao = ra - a; co = c - a
  printf "  overhead: occcalc replay %.2f s (%d launches profiled), ncu %.2f s: %.3fx ncu%s\n",
         ro, p, co, ro / co, ro <= co / 10 ? "" : "  MISSED (target <= 0.1x)"
  printf "  --counter-launches all: %.2f s (%d launches profiled, %.2f ms each): %.3fx ncu\n",
         rao, pa, pa ? 1000 * rao / pa : 0, rao / co
  printf "  the library'"'"'s own account (the report'"'"'s header): %s\n", acct
  printf "  --measure none: %.3fx the program alone%s\n", n / a,
         n <= 1.1 * a ? "" : "  MISSED (target <= 1.1x)"
  exit !(ro <= co / 10 && n <= 1.1 * a) }'
