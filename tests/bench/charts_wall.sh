#!/bin/sh
# charts_wall.sh: wall time of a whole `occcalc --chart all
# --suggest` process (the three charts and every suggestion, Unicode
# terminal output), median of 50 runs after 5 warm-ups, by hyperfine when
# installed, else by a date loop. Fails when the median is over 20 ms.
set -eu
. tests/bench/verdict.sh
bin=./occcalc
set -- --gpu 'H100 SXM' --regs 48 --smem 4096 --block 128 --chart all --suggest
runs=50
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v hyperfine >/dev/null 2>&1; then
  LC_ALL=C.UTF-8 hyperfine -N --warmup 5 --runs $runs --export-json "$tmp/h.json" \
    "$bin --gpu 'H100 SXM' --regs 48 --smem 4096 --block 128 --chart all --suggest" \
    >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  median_ms=$(sed -n 's/.*"median": *\([0-9.e-]*\).*/\1/p' "$tmp/h.json" | head -1 |
    awk '{printf "%.2f", $1 * 1000}')
  how="hyperfine -N, $runs runs"
else
  i=0
  while [ $i -lt $runs ]; do
    s=$(date +%s%N)
    LC_ALL=C.UTF-8 "$bin" "$@" >/dev/null
    e=$(date +%s%N)
    echo $(((e - s) / 1000)) >>"$tmp/us"
    i=$((i + 1))
  done
  median_ms=$(sort -n "$tmp/us" | awk -v n=$runs 'NR == int(n / 2) + 1 {printf "%.2f", $1 / 1000}')
  how="date loop, $runs runs"
fi
echo "wall: occcalc --gpu 'H100 SXM' --regs 48 --smem 4096 --block 128 --chart all --suggest ($how)"
verdict "median wall time" "$median_ms" ms "<=" 20
