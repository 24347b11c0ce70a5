#!/bin/sh
# gpu.sh: make bench-gpu, on a machine with a GPU.
# 1. End-to-end wall time of the README example (live) against build/bench_floor
#    (context + JIT of the same probe PTX + the occupancy API), alternated,
#    median of 5 after one warm-up each, with the driver's JIT cache on
#    (its default) and off (CUDA_CACHE_DISABLE=1: every run compiles).
# 2. verify --sweep 1000 with the cost per configuration broken down.
set -u
./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>&1 ||
  { echo "skipped: no GPU"; exit 77; }
example="./occcalc --regs 48 --smem 4096 --block 128 --device 0"

ms() { # ms COMMAND...: wall milliseconds of one run
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1 || echo "bench-gpu: $* failed" >&2
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

median5() { sort -n | sed -n 3p; }

compare() { # compare LABEL ENV...: prints the two medians and the ratio
  label=$1
  shift
  env "$@" ./build/bench_floor >/dev/null 2>&1
  env "$@" $example >/dev/null 2>&1
  : >/tmp/occ_floor.$$
  : >/tmp/occ_tool.$$
  : >/tmp/occ_counter.$$
  for i in 1 2 3 4 5; do
    ms env "$@" ./build/bench_floor >>/tmp/occ_floor.$$
    ms env "$@" $example >>/tmp/occ_tool.$$
    ms env "$@" $example --counter >>/tmp/occ_counter.$$
  done
  f=$(median5 </tmp/occ_floor.$$) t=$(median5 </tmp/occ_tool.$$) c=$(median5 </tmp/occ_counter.$$)
  rm -f /tmp/occ_floor.$$ /tmp/occ_tool.$$ /tmp/occ_counter.$$
  echo "bench-gpu: $label: floor $f ms, occcalc --device 0 $t ms ($(awk "BEGIN{printf \"%.2f\", $t/$f}")x, target <= 1.5x), with --counter $c ms ($(awk "BEGIN{printf \"%.2f\", $c/$f}")x)"
  awk "BEGIN{exit !($t <= 1.5 * $f)}"
}

fail=0
compare "JIT cache on" CUDA_CACHE_DISABLE=0 || fail=1
compare "JIT cache off" CUDA_CACHE_DISABLE=1 || fail=1
t0=$(date +%s%N)
# Timed whatever the verdict (status 4 is a disagreement, not a failure
# of the benchmark); a CUDA error fails it.
CUDA_CACHE_DISABLE=1 ./occcalc verify --sweep 1000 --seed 2 --counter
rc=$?
t1=$(date +%s%N)
[ $rc -eq 0 ] || [ $rc -eq 4 ] || fail=1
s=$(((t1 - t0) / 1000000))
echo "bench-gpu: verify --sweep 1000 --counter (JIT cache off): $s ms end to end (target < 60000)"
[ "$s" -lt 60000 ] || fail=1
exit $fail
