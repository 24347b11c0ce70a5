#!/bin/sh
# process.sh: whole-process wall time of one report and one --json
# report, each against the minimal C program that evaluates
# cuda_occupancy.h once for the same configuration (build/bench_floor_calc),
# with /bin/true beside them. All four alternate in one loop
# (build/bench_spawn: spawn to reap, stdout to /dev/null), so they see the
# same machine; medians of 200 runs each. Fails if a report takes more than
# 1.3x the floor or more than 8 MiB of peak RSS (1.3x: cJSON is a shared
# library every run maps), verdict.sh's way.
set -eu
. tests/bench/verdict.sh
runs=200
max_ratio=1.3
max_rss_mib=8
args="--gpu h100 --regs 48 --smem 4096 --block 128"
medians=$(./build/bench_spawn $runs floor ./build/bench_floor_calc \
  -- report ./occcalc $args -- json ./occcalc $args --json -- true /bin/true)
median() { echo "$medians" | awk -v l="$1" '$1 == l {print $2}'; }
floor=$(median floor)
rss_kb=$(/usr/bin/time -f %M ./occcalc $args --json 2>&1 >/dev/null | tail -1)
echo "process: occcalc $args [--json], medians of $runs alternating runs"
status=0
for kind in report json; do
  us=$(median $kind)
  verdict "occcalc ($kind), as a multiple of the floor" \
    "$(awk -v t="$us" -v f="$floor" 'BEGIN {printf "%.2f", t / f}')" x "<=" \
    $max_ratio || status=1
  printf '    (%.3f ms)\n' "$(echo "$us" | awk '{print $1 / 1000}')"
done
printf '  %-26s%.3f ms  (bench_floor_calc: cuda_occupancy.h once)\n' floor \
  "$(echo "$floor" | awk '{print $1 / 1000}')"
printf '  %-26s%.3f ms  (fork+exec)\n' /bin/true \
  "$(median true | awk '{print $1 / 1000}')"
verdict "peak RSS (--json)" "$(awk -v k="$rss_kb" 'BEGIN {printf "%.1f", k / 1024}')" \
  MiB "<=" $max_rss_mib || status=1
exit $status
