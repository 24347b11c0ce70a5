#!/bin/sh
# unlimited_check.sh: the core's "unlimited" (OCC_UNLIMITED, INT32_MAX) never
# reaches an output. Every architecture of the database, kernels with and
# without registers, shared memory and a carveout preference, through every
# writer that takes a configuration (report, --ncu, --explain, --suggest,
# charts, JSON, JSONL, CSV).
set -u
fail=0 runs=0
archs=$(./occcalc --list-gpus --json | jq -r '.architectures[].cc')
[ -n "$archs" ] || { echo "unlimited: no architecture listed"; exit 1; }
for cc in $archs; do
  for kernel in "--regs 0 --barriers 0" "--regs 32" "--regs 32 --smem 1K" \
                "--regs 32 --carveout 25" "--regs 32 --dyn-smem 2K --carveout 0"; do
    for out in "--ncu --explain --suggest --grid 1000" \
               "--json --explain --suggest --grid 1000" "--jsonl" \
               "--chart all --csv"; do
      runs=$((runs + 1))
      # shellcheck disable=SC2086
      if ./occcalc --cc "$cc" $kernel --block 128 $out 2>&1 | grep -q 2147483647; then
        echo "unlimited: 2147483647 in: occcalc --cc $cc $kernel --block 128 $out"
        fail=1
      fi
    done
  done
done
[ $fail -eq 0 ] && echo "unlimited: no INT32_MAX in $runs runs"
exit $fail
