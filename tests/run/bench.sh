#!/bin/sh
# bench.sh: the lab's reduction program (build/lab/reduction all, about 460
# launches) alone, under `occcalc run` (counters on, every launch
# profiled), under `occcalc run --counter-launches 3`, under `occcalc run
# --no-counters` and under `ncu --section Occupancy --section LaunchStats`,
# alternating, median of 3 wall times each. Targets: occcalc's overhead
# (its time minus the program's) at most a tenth of ncu's; --no-counters at
# most 1.1x the program alone. Prints "skipped: no GPU" and exits 77
# without one.
set -u
if ! ./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 77
fi
command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
make -s lab-build || exit 1
prog="build/lab/reduction all"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
time_of() { t0=$(now); "$@" >/dev/null 2>&1; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'; }
for i in 1 2 3; do
  time_of $prog >>"$out/alone"
  time_of ./occcalc run -- $prog >>"$out/run"
  time_of ./occcalc run --counter-launches 3 -- $prog >>"$out/run3"
  time_of ./occcalc run --no-counters -- $prog >>"$out/nocounters"
  time_of ncu --section Occupancy --section LaunchStats $prog >>"$out/ncu"
done
median() { sort -n "$out/$1" | sed -n 2p; }
profiled() {
  ./occcalc run "$@" --json --output "$out/run.json" -- $prog >/dev/null 2>&1
  jq '[.rows[].counter_launch_count] | add' "$out/run.json"
}
all=$(profiled)
three=$(profiled --counter-launches 3)
launches=$(jq .launch_count "$out/run.json")
awk -v a="$(median alone)" -v r="$(median run)" -v r3="$(median run3)" \
    -v n="$(median nocounters)" -v c="$(median ncu)" -v l="$launches" \
    -v p="$all" -v p3="$three" 'BEGIN {
  printf "bench-run: %s, %d launches, medians of 3 (s)\n", "reduction all", l
  printf "  alone %.2f, ncu %.2f, occcalc run %.2f\n", a, c, r
  printf "  occcalc run --counter-launches 3 %.2f, --no-counters %.2f\n", r3, n
  ro = r - a; r3o = r3 - a; co = c - a
  printf "  overhead: occcalc %.2f s (%d launches profiled, %.2f ms each), ncu %.2f s: %.2fx ncu%s\n",
         ro, p, p ? 1000 * ro / p : 0, co, ro / co, ro <= co / 10 ? "" : "  MISSED (target <= 0.1x)"
  printf "  --counter-launches 3: %.2f s (%d launches profiled): %.2fx ncu\n", r3o, p3, r3o / co
  printf "  --no-counters: %.2fx the program alone%s\n", n / a,
         n <= 1.1 * a ? "" : "  MISSED (target <= 1.1x)"
  exit !(ro <= co / 10 && n <= 1.1 * a) }'
