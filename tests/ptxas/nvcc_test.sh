#!/bin/sh
# nvcc_test.sh DUMP OUTDIR CU...: compiles each kernel file with
# `nvcc -Xptxas -v` for every target below and checks that the reader
# (DUMP) finds every kernel ptxas reported, with the numbers an independent
# reading (extract.awk) finds; where cuobjdump exists, that its report of
# the same objects agrees on registers, shared memory and stack. A file
# that uses features of newer targets says so in a line
# "nvcc_test: targets from NN" and is compiled for those alone. Skips
# (77) without nvcc.
dump=$1 out=$2
shift 2
here=$(dirname "$0")
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "skipped: no nvcc"; exit 77
fi
CUOBJDUMP=${CUOBJDUMP:-$(dirname "$NVCC")/cuobjdump}
targets="75 80 86 90 100 120"
mkdir -p "$out"
failed=0 kernels=0 files=0
for cu in "$@"; do
  base=$(basename "$cu" .cu)
  log="$out/$base.log"
  from=$(sed -n 's/.*nvcc_test: targets from \([0-9][0-9]*\).*/\1/p' "$cu" | head -1)
  codes=""
  for t in $targets; do
    [ -n "$from" ] && [ "$t" -lt "$from" ] && continue
    codes="$codes -gencode arch=compute_$t,code=sm_$t"
  done
  if ! "$NVCC" -c -Xptxas -v $codes "$cu" -o "$out/$base.o" >"$log" 2>&1; then
    echo "nvcc_test: nvcc failed on $cu:"; cat "$log"; failed=1; continue
  fi
  files=$((files + 1))
  awk -f "$here/extract.awk" "$log" | sort >"$out/$base.want"
  "$dump" "$log" | awk '$1 == "ptxas" {
      printf "%s %s %s %s %s %s %s %s\n", $2, $3, $4, $5, $6, $8, $9, $11 }' |
    sort >"$out/$base.got"
  n=$(wc -l <"$out/$base.want")
  reported=$(grep -c "Compiling entry function" "$log")
  if [ "$n" -ne "$reported" ] || [ "$n" -eq 0 ]; then
    echo "nvcc_test: $cu: ptxas reported $reported kernels, extract.awk read $n"
    failed=1
  fi
  if ! diff -u "$out/$base.want" "$out/$base.got"; then
    echo "nvcc_test: $cu: the reader disagrees with extract.awk"; failed=1
  fi
  kernels=$((kernels + n))
  if [ -x "$CUOBJDUMP" ]; then
    "$CUOBJDUMP" --dump-resource-usage "$out/$base.o" >"$out/$base.cuobjdump" 2>&1
    sh "$here/agree.sh" "$dump" "$log" "$out/$base.cuobjdump" || failed=1
  fi
done
[ -x "$CUOBJDUMP" ] || echo "nvcc_test: no cuobjdump here; its agreement is checked on the stored reports only"
echo "nvcc_test: $files files, $kernels kernels x targets compared"
[ $failed -eq 0 ]
