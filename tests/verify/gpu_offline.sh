#!/bin/sh
# gpu_offline.sh: the live verifier's paths that need no GPU, run on every
# machine (CI has no GPU and no driver). CUDA_VISIBLE_DEVICES=-1 hides any
# GPU, so the "no device" path is tested on a GPU machine too.
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS LINES DESCRIPTION -- COMMAND...: the status, and that many
# lines on stderr, each starting "occcalc: ".
expect() {
  want=$1 lines=$2 what=$3
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  n=$(wc -l <"$tmp/err")
  if [ $rc -ne "$want" ] || [ "$n" -ne "$lines" ] ||
     { [ "$lines" -gt 0 ] && grep -qv '^occcalc: ' "$tmp/err"; }; then
    echo "gpu-offline: $what: status $rc (want $want), $n stderr lines (want $lines)"
    cat "$tmp/err"
    fail=1
  fi
}

hide="env CUDA_VISIBLE_DEVICES=-1"
expect 5 1 "no device" -- $hide ./occcalc --regs 48 --smem 4096 --block 128 --device 0
[ -s "$tmp/out" ] && { echo "gpu-offline: no device: wrote to stdout"; fail=1; }
# Without a driver dlopen names libcuda.so.1; with one, the hidden GPU
# makes cuInit (or the count) fail with CUDA_ERROR_NO_DEVICE; without the
# CUDA runtime (opened first), dlopen says so.
grep -Eq -- '--device 0: (dlopen \(src/live/gpu[a-z_]*\.c:[0-9]+\): no NVIDIA driver: libcuda\.so\.1|cu(Init|DeviceGetCount) \(src/live/gpu[a-z_]*\.c:[0-9]+\): CUDA_ERROR_NO_DEVICE: |dlopen \(src/live/cudart\.c:[0-9]+\): no CUDA runtime: )' "$tmp/err" ||
  { echo "gpu-offline: the error does not name the CUDA call:"; cat "$tmp/err"; fail=1; }
expect 5 1 "no device, all" -- $hide ./occcalc --regs 48 --block 128 --device all --json
expect 5 1 "no device, sweep" -- $hide ./occcalc verify --sweep 10
# Without --device the message names the default, not an option never typed.
grep -q '^occcalc: verify: device 0 (the default; --device N for another): ' "$tmp/err" &&
  ! grep -q -- '--device 0:' "$tmp/err" ||
  { echo "gpu-offline: verify without --device blames an option:"; cat "$tmp/err"; fail=1; }
expect 5 1 "no device, sweep --device 0" -- $hide ./occcalc verify --sweep 10 --device 0
grep -q -- '^occcalc: --device 0: ' "$tmp/err" ||
  { echo "gpu-offline: verify --device 0 does not name it:"; cat "$tmp/err"; fail=1; }
expect 5 1 "no device, module" -- $hide ./occcalc --block 128 --device 0 --module x.cubin --kernel k
# The CUDA runtime (whose occupancy API verify and --module ask) missing:
# one line naming it, before anything else is tried, and only where it is
# needed (--no-verify reads the device without it).
nocudart="env OCCCALC_CUDART=$tmp/no/libcudart.so.13"
for args in "--regs 48 --block 128 --device 0" "--regs 48 --block 128 --device all" \
    "verify --sweep 10" "--block 128 --device 0 --module x.cubin --kernel k"; do
  expect 5 1 "no CUDA runtime: $args" -- $nocudart ./occcalc $args
  grep -Eq "^occcalc: (--device [0-9a-z]*|verify: device 0 \\(the default; --device N for another\\)): dlopen \\(src/live/cudart\\.c:[0-9]*\\): no CUDA runtime: OCCCALC_CUDART: $tmp/no/libcudart\.so\.13: cannot open" "$tmp/err" ||
    { echo "gpu-offline: no CUDA runtime: $args: not named:"; cat "$tmp/err"; fail=1; }
done
$nocudart ./occcalc --regs 48 --block 128 --device 0 --no-verify >/dev/null 2>"$tmp/err"
if grep -q "CUDA runtime" "$tmp/err"; then
  echo "gpu-offline: --no-verify needs the CUDA runtime:"; cat "$tmp/err"; fail=1
fi
expect 2 2 "bad device index" -- ./occcalc --regs 48 --block 128 --device x
expect 2 2 "--no-verify alone" -- ./occcalc --regs 48 --block 128 --no-verify
expect 2 2 "--module without --kernel" -- ./occcalc --block 128 --device 0 --module x.cubin
expect 2 2 "--kernel without --module" -- ./occcalc --block 128 --device 0 --kernel k
expect 2 2 "--sweep outside verify" -- ./occcalc --sweep 5
expect 2 2 "verify without --sweep" -- ./occcalc verify
expect 2 2 "verify --sweep 0" -- ./occcalc verify --sweep 0
expect 2 2 "--device with --gpu" -- ./occcalc --regs 48 --block 128 --device 0 --gpu h100
# Everything offline keeps working in the same binary.
expect 0 0 "offline calculation" -- ./occcalc --gpu 'H100 SXM' --regs 48 --smem 4096 --block 128
# The numbers themselves, on their own lines ('10' alone matched "H100").
grep -q '^  active blocks       10 per SM$' "$tmp/out" &&
  grep -q '^  occupancy         62.5 % (limited by registers)$' "$tmp/out" ||
  { echo "gpu-offline: offline report lost"; fail=1; }

# The binary must start where there is no driver: no libcuda, and CUPTI is
# only loaded with dlopen.
if ldd ./occcalc | grep -E 'libcuda\.|libcupti|libcudart\.so'; then
  echo "gpu-offline: ./occcalc links a CUDA library dynamically"
  fail=1
fi
[ $fail -eq 0 ] && echo "gpu-offline: the no-GPU paths behave"
exit $fail
