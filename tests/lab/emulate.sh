#!/bin/sh
# emulate.sh OUTDIR: runs the lab's programs on the CPU (tests/lab/cuda_emu.h)
# so that CI, which has no GPU, checks their results: every reduction
# variant at blocks of 64 and 1024 over a size that is no multiple of a
# block, and every transpose, each program checking itself against the
# host as on a GPU. The sources are rewritten for the emulator (smaller
# sizes, one timed run, dynamic shared memory as a host array, launches
# as calls); a rewrite that no longer applies fails the test. Skips (77)
# without a C++20 compiler (std::barrier).
out=$1
here=$(dirname "$0")
CXX=${CXX:-g++}
mkdir -p "$out"
printf '#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n' >"$out/probe.cpp"
"$CXX" -std=c++20 -pthread -o "$out/probe" "$out/probe.cpp" 2>/dev/null ||
  { echo "skipped: no C++20 compiler with <barrier>"; exit 77; }

# rewrite SRC DEST: the source as the emulator runs it.
rewrite() {
  sed -e 's/^#include <algorithm>/#include "cuda_emu.h"\n&/' \
      -e 's/extern __shared__ int sdata\[\];/int *sdata = (int *)dynamic_smem;/' \
      -e 's/N = 1u << 24;/N = 2000;/; s/DIM = 4096;/DIM = 96;/; s/RUNS = 21;/RUNS = 1;/' \
      -e 's/\([A-Za-z_.]*\)<<<\(.*\)>>>(\(.*\));/launch_config(\2); run_kernel(\1, \3);/' \
      "$1" >"$2"
  for pattern in cuda_emu.h 'N = 2000;\|DIM = 96;' 'RUNS = 1;' run_kernel; do
    grep -q "$pattern" "$2" || { echo "emulate: $1: the rewrite for $pattern no longer applies"; exit 1; }
  done
  ! grep -q '<<<.*>>>(\|extern __shared__' "$2" ||
    { echo "emulate: $1: a launch or a dynamic shared array was not rewritten"; exit 1; }
}

failed=0
for prog in reduction transpose; do
  rewrite "kernels/lab/$prog.cu" "$out/$prog.cpp"
  "$CXX" -std=c++20 -O1 -pthread -I"$here" -o "$out/$prog" "$out/$prog.cpp" || exit 1
done
# check VARIANTS PROGRAM ARGS...: the program exits 0 and says ok for each.
check() {
  want=$1 prog=$2
  shift 2
  if ! "$out/$prog" "$@" >"$out/log" 2>&1 || [ "$(grep -c ' ok$' "$out/log")" -ne "$want" ]; then
    echo "emulate: $prog $*:"; cat "$out/log"; failed=1
  fi
}
check 7 reduction all 64
check 7 reduction all 1024
check 4 transpose all
[ $failed -eq 0 ] && echo "emulate: 7 reductions at 2 block sizes and 4 transposes right on the CPU"
[ $failed -eq 0 ]
