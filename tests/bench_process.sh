#!/bin/sh
# bench_process.sh: wall time (median of 200 runs) and peak RSS of one
# `occcalc --regs 48 --smem 4096 --block 128 --json` process.
set -eu
runs=200
bin=./occcalc
args="--gpu h100 --regs 48 --smem 4096 --block 128 --json"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# median_us COMMAND...: the median wall time of runs of COMMAND, in us.
median_us() {
  : >"$tmp"
  i=0
  while [ $i -lt $runs ]; do
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) >>"$tmp"
    i=$((i + 1))
  done
  sort -n "$tmp" | awk -v n=$runs 'NR == int(n / 2) + 1 {print}'
}
floor_us=$(median_us /bin/true)
median_us=$(median_us $bin $args)
rss_kb=$(/usr/bin/time -f %M $bin $args 2>&1 >/dev/null | tail -1)
echo "process: occcalc $args"
echo "  wall median of $runs runs  $(awk -v u=$median_us 'BEGIN{printf "%.2f", u/1000}') ms (target <= 2 ms; includes fork+exec)"
echo "  /bin/true, same loop      $(awk -v u=$floor_us 'BEGIN{printf "%.2f", u/1000}') ms (the fork+exec floor)"
echo "  peak RSS                  $(awk -v k=$rss_kb 'BEGIN{printf "%.1f", k/1024}') MiB (target <= 8 MiB)"
