#!/bin/sh
# callgrind.sh: instructions executed (callgrind's Ir, the whole
# process from the dynamic loader's first instruction) by one
# `occcalc --gpu h100 --regs 48 --smem 4096 --block 128` report, beside the
# --json report, the minimal C program that evaluates cuda_occupancy.h once
# (build/bench_floor_calc) and /bin/true. Deterministic, so it holds on a
# noisy machine. Fails if the report executes more than 500,000, or the
# --json report more than 1.5x the report (verdict.sh).
set -eu
. tests/bench/verdict.sh
max_ir=500000
max_json_ratio=1.5
args="--gpu h100 --regs 48 --smem 4096 --block 128"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "bench_callgrind: valgrind is missing (make test-deps installs it)" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out" "$out".*' EXIT
# ir COMMAND...: the instructions COMMAND executes.
ir() {
  valgrind --tool=callgrind --callgrind-out-file="$out.cg" "$@" \
    >/dev/null 2>"$out"
  sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$out"
}
report=$(ir ./occcalc $args)
json=$(ir ./occcalc $args --json)
floor=$(ir ./build/bench_floor_calc)
true_ir=$(ir /bin/true)
# row LABEL COUNT NOTE: COUNT with thousands separators.
row() {
  printf '  %-20s%11s  %s\n' "$1" \
    "$(echo "$2" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$3"
}
echo "instructions (valgrind --tool=callgrind, Ir): occcalc $args"
status=0
verdict "occcalc (report)" "$report" Ir "<=" $max_ir || status=1
verdict "occcalc --json, as a multiple of the report" \
  "$(awk -v j="$json" -v r="$report" 'BEGIN {printf "%.3f", j / r}')" x "<=" \
  $max_json_ratio || status=1
row "occcalc (--json)" "$json" ""
row "floor" "$floor" "(bench_floor_calc: cuda_occupancy.h once)"
row "/bin/true" "$true_ir" ""
exit $status
