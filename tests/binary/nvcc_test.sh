#!/bin/sh
# nvcc_test.sh OCCCALC OUTDIR CU...: compiles each file with nvcc -Xptxas -v
# for sm_80 and sm_90 (a cubin per target, one fatbin of both, a shared
# library embedding both, a fatbin compressed with zstd, read where
# libzstd.so.1 is found; and with -rdc for sm_90, a relocatable cubin and
# an object: device functions are not kernels) and checks that occcalc --module reads
# every kernel ptxas reported, with the same registers, static shared
# memory, barriers and stack as occcalc --ptxas reads from the log;
# spills are not in a cubin and must read null, never 0. Skips (77)
# without nvcc or jq.
occcalc=$1 out=$2
shift 2
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
command -v "$NVCC" >/dev/null 2>&1 || { echo "skipped: no nvcc"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "skipped: no jq"; exit 77; }
mkdir -p "$out"
fields='[.compiler.arch, .kernel.mangled_name, .kernel.regs_per_thread,
         .kernel.smem_static_bytes, .kernel.barriers, .compiler.stack_bytes] | @tsv'
failed=0 checked=0
for cu in "$@"; do
  base=$(basename "$cu" .cu)
  codes="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
  log=$out/$base.log
  : > "$log"
  for t in 80 90; do
    "$NVCC" -cubin -arch=sm_$t -Xptxas -v "$cu" -o "$out/$base.sm_$t.cubin" \
      >>"$log" 2>&1 || { echo "binary: nvcc failed on $cu"; cat "$log"; exit 1; }
  done
  "$NVCC" -fatbin $codes "$cu" -o "$out/$base.fatbin" >/dev/null 2>&1 &&
  "$NVCC" -fatbin -Xfatbin -compress-all $codes "$cu" -o "$out/$base.zstd.fatbin" \
    >/dev/null 2>&1 &&
  "$NVCC" -shared -Xcompiler -fPIC $codes "$cu" -o "$out/lib$base.so" >/dev/null 2>&1 ||
    { echo "binary: nvcc -fatbin/-shared failed on $cu"; exit 1; }
  "$occcalc" --ptxas "$log" --block 128 --jsonl 2>/dev/null | jq -r "$fields" |
    sort > "$out/$base.want"
  [ -s "$out/$base.want" ] || { echo "binary: no kernel in the log of $cu"; exit 1; }
  for form in "$base.sm_80.cubin $base.sm_90.cubin" "$base.fatbin" "lib$base.so" \
              "$base.zstd.fatbin"; do
    : > "$out/$base.got"
    for f in $form; do
      "$occcalc" --module "$out/$f" --block 128 --jsonl 2>"$out/$base.err" >"$out/$base.jsonl" ||
        { echo "binary: --module $f failed:"; cat "$out/$base.err"; failed=1; continue; }
      jq -r "$fields" "$out/$base.jsonl" >> "$out/$base.got"
      spills=$(jq -r '[.compiler.spill_stores_bytes, .compiler.spill_loads_bytes] |
                      map(select(. != null)) | length' "$out/$base.jsonl" | sort -u)
      [ "$spills" = 0 ] || { echo "binary: $f: spills not null"; failed=1; }
    done
    sort -o "$out/$base.got" "$out/$base.got"
    if ! cmp -s "$out/$base.want" "$out/$base.got"; then
      echo "binary: $cu as $form differs from ptxas -v (< ptxas, > --module):"
      diff "$out/$base.want" "$out/$base.got" | head -20
      failed=1
    fi
    checked=$((checked + $(wc -l < "$out/$base.got")))
  done
  # Relocatable code (-rdc): a relocatable cubin, and an object whose
  # __nv_relfatbin holds it, against their own ptxas -v (the linker, not
  # ptxas, adds sm_90's shared-memory reserve there).
  "$NVCC" -cubin -rdc=true -arch=sm_90 -Xptxas -v "$cu" -o "$out/$base.rdc.cubin" \
    >"$out/$base.rdc.log" 2>&1 &&
  "$NVCC" -c -rdc=true -arch=sm_90 "$cu" -o "$out/$base.rdc.o" >/dev/null 2>&1 ||
    { echo "binary: nvcc -rdc failed on $cu"; exit 1; }
  "$occcalc" --ptxas "$out/$base.rdc.log" --block 128 --jsonl 2>/dev/null | jq -r "$fields" |
    sort > "$out/$base.want"
  for f in "$base.rdc.cubin" "$base.rdc.o"; do
    "$occcalc" --module "$out/$f" --block 128 --jsonl 2>/dev/null | jq -r "$fields" |
      sort > "$out/$base.got"
    if ! [ -s "$out/$base.got" ] || ! cmp -s "$out/$base.want" "$out/$base.got"; then
      echo "binary: $cu as $f differs from ptxas -v -rdc (< ptxas, > --module):"
      diff "$out/$base.want" "$out/$base.got" | head -20
      failed=1
    fi
    checked=$((checked + $(wc -l < "$out/$base.got")))
  done
done
[ "$failed" = 0 ] && echo "binary: $checked kernel readings agree with ptxas -v"
exit $failed
