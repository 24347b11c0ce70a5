#!/bin/sh
# ptxas_check.sh OUTDIR CU...: compiles each lab program as a student
# would (`nvcc -Xptxas -v -arch=sm_90 -c`) and reads the report through
# `./occcalc --ptxas`: status 0, one table row per entry function ptxas
# compiled, and every kernel the source defines (__global__ void NAME,
# read from the source, not listed here) named in the table. Skips (77)
# without nvcc.
out=$1
unset COLUMNS
shift
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
command -v "$NVCC" >/dev/null 2>&1 || { echo "skipped: no nvcc"; exit 77; }
mkdir -p "$out"
failed=0
fail() { echo "ptxas_check: $cu: $*"; failed=1; }
for cu in "$@"; do
  base=$out/$(basename "$cu" .cu)
  if ! "$NVCC" -Xptxas -v -arch=sm_90 -c "$cu" -o "$base.o" >"$base.log" 2>&1; then
    fail "nvcc failed:"; cat "$base.log"; continue
  fi
  ./occcalc --ptxas "$base.log" --block 256 >"$base.table" 2>"$base.err"
  status=$?
  [ $status -eq 0 ] || { fail "occcalc --ptxas exited $status"; cat "$base.err"; }
  entries=$(grep -c "Compiling entry function" "$base.log")
  rows=$(grep -c '^sm_90 ' "$base.table")
  [ "$entries" -gt 0 ] && [ "$rows" -eq "$entries" ] ||
    fail "ptxas compiled $entries entry functions, the table has $rows rows"
  names=$(sed -n 's/.*__global__ void \([A-Za-z0-9_]*\).*/\1/p' "$cu")
  [ -n "$names" ] || fail "no __global__ kernel found in the source"
  for name in $names; do
    grep -Eq " ${name}[<(]" "$base.table" || fail "kernel $name is not in the table"
  done
  echo "ptxas_check: $cu: $rows kernels read, $(echo $names | wc -w) names found"
done
[ $failed -eq 0 ]
