#!/bin/sh
# bench_process.sh: wall time and peak RSS of one
# `occcalc --regs 48 --smem 4096 --block 128 --json` process, beside the
# fork+exec floor (/bin/true): the two alternate in one loop, so both see
# the same machine; medians of 200 runs each.
set -eu
runs=200
bin=./occcalc
args="--gpu h100 --regs 48 --smem 4096 --block 128 --json"
floor=$(mktemp) own=$(mktemp)
trap 'rm -f "$floor" "$own"' EXIT
# elapsed_us FILE COMMAND...: runs COMMAND once, appends its wall time (us).
elapsed_us() {
  file=$1
  shift
  s=$(date +%s%N)
  "$@" >/dev/null
  e=$(date +%s%N)
  echo $(((e - s) / 1000)) >>"$file"
}
i=0
while [ $i -lt $runs ]; do
  elapsed_us "$floor" /bin/true
  elapsed_us "$own" $bin $args
  i=$((i + 1))
done
median() { sort -n "$1" | awk -v n=$runs 'NR == int(n / 2) + 1 {printf "%.2f", $1 / 1000}'; }
rss_kb=$(/usr/bin/time -f %M $bin $args 2>&1 >/dev/null | tail -1)
echo "process: occcalc $args"
echo "  occcalc, median of $runs  $(median "$own") ms (target <= 2 ms; fork+exec included)"
echo "  /bin/true, same loop    $(median "$floor") ms (the fork+exec floor)"
echo "  peak RSS                $(awk -v k=$rss_kb 'BEGIN{printf "%.1f", k/1024}') MiB (target <= 8 MiB)"
