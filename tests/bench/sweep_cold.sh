#!/bin/sh
# sweep_cold.sh (GPU): `verify --sweep 1000` with the driver's JIT
# cache off (CUDA_CACHE_DISABLE=1), the cold case the target is set for (at most
# 10 s on an H100). With OCCCALC_BEFORE=PATH, that binary runs alternated
# with this one, RUNS times each (default 2), and the medians are compared
# side by side.
set -u
runs=${RUNS:-2}
now=${OCCCALC:-./occcalc}
before=${OCCCALC_BEFORE:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # label binary
  start=$(date +%s.%N)
  CUDA_CACHE_DISABLE=1 "$2" verify --sweep 1000 --device 0 >"$tmp/$1.out" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | awk '{ printf "%.2f", $1 - $3 }') $rc" >>"$tmp/$1.times"
}
i=0
while [ $i -lt "$runs" ]; do
  one now "$now"
  [ -n "$before" ] && one before "$before"
  i=$((i + 1))
done
median() { sort -n "$tmp/$1.times" | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
grep -q ' 0$' "$tmp/now.times" || { echo "bench-gpu-sweep-cold: the sweep failed:"; tail -5 "$tmp/now.out"; exit 1; }
m=$(median now)
echo "bench-gpu-sweep-cold: verify --sweep 1000, JIT cache off: $m s (median of $runs; target <= 10 s)"
grep -E 'all checks agree|cluster cases' "$tmp/now.out" | sed 's/^/  /'
if [ -n "$before" ]; then
  b=$(median before)
  echo "  before ($before): $b s; now/before $(awk -v a="$m" -v b="$b" 'BEGIN { printf "%.2f", a / b }')x"
fi
awk -v m="$m" 'BEGIN { exit !(m <= 10) }'
