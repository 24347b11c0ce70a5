#!/bin/sh
# bench_process.sh: whole-process wall time of one report and one --json
# report, each against the minimal C program that evaluates
# cuda_occupancy.h once for the same configuration (build/bench_floor_calc),
# with /bin/true beside them. All four alternate in one loop
# (build/bench_spawn: spawn to reap, stdout to /dev/null), so they see the
# same machine; medians of 200 runs each. Fails if a report takes more than
# 1.3x the floor or more than 8 MiB of peak RSS (1.3x since cJSON, a shared
# library, writes the JSON).
set -eu
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
  line=$(awk -v t="$us" -v f="$floor" -v m=$max_ratio 'BEGIN {
    r = t / f
    printf "%.3f ms  %.2fx the floor (target <= %.1fx)%s", t / 1000, r, m,
           r <= m ? "" : "  MISSED"; exit r <= m ? 0 : 1 }') || status=1
  printf '  %-26s%s\n' "occcalc ($kind)" "$line"
done
printf '  %-26s%.3f ms  (bench_floor_calc: cuda_occupancy.h once)\n' floor \
  "$(echo "$floor" | awk '{print $1 / 1000}')"
printf '  %-26s%.3f ms  (fork+exec)\n' /bin/true \
  "$(median true | awk '{print $1 / 1000}')"
line=$(awk -v k="$rss_kb" -v m=$max_rss_mib 'BEGIN {
  printf "%.1f MiB (target <= %d MiB)%s", k / 1024, m, k <= m * 1024 ? "" : "  MISSED"
  exit k <= m * 1024 ? 0 : 1 }') || status=1
printf '  %-26s%s\n' "peak RSS (--json)" "$line"
exit $status
