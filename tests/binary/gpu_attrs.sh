#!/bin/sh
# gpu_attrs.sh OCCCALC OUTDIR CU...: on a GPU machine, builds each file as
# a cubin for the device's own architecture and checks that every kernel
# occcalc --module reads offline (src/ptxas/binary.c) has the registers
# and static shared memory the driver reports for it (cuFuncGetAttribute,
# through occcalc --module FILE --device 0 --kernel NAME). Skips (77)
# without a GPU, nvcc or python3.
occcalc=$1 out=$2
shift 2
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "skipped: no GPU"; exit 77; }
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
command -v "$NVCC" >/dev/null 2>&1 || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d '.\r ')
mkdir -p "$out"
checked=0 failed=0
for cu in "$@"; do
  base=$(basename "$cu" .cu)
  cubin=$out/$base.sm_$cc.cubin
  "$NVCC" -cubin -arch=sm_$cc "$cu" -o "$cubin" ||
    { echo "gpu-binary: nvcc failed on $cu"; exit 1; }
  "$occcalc" --module "$cubin" --block 128 --jsonl >"$out/$base.jsonl" 2>/dev/null ||
    { echo "gpu-binary: --module $cubin failed offline"; exit 1; }
  while IFS='	' read -r name regs smem; do
    "$occcalc" --module "$cubin" --device 0 --kernel "$name" --block 128 --json \
      >"$out/live.json" 2>"$out/live.err" ||
      { echo "gpu-binary: $name: --device 0 failed: $(head -1 "$out/live.err")"; failed=1; continue; }
    live=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
m = j["verify"]["module"]
print(m["regs_per_thread"], j["kernel"]["smem_static_bytes"])' "$out/live.json") ||
      { echo "gpu-binary: $name: no module attributes in the live report"; failed=1; continue; }
    if [ "$live" != "$regs $smem" ]; then
      echo "gpu-binary: $name: offline regs/static smem $regs $smem, driver $live"
      failed=1
    fi
    checked=$((checked + 1))
  done <<EOT
$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    k = j["kernel"]
    print("\t".join([k["mangled_name"], str(k["regs_per_thread"]), str(k["smem_static_bytes"])]))' "$out/$base.jsonl")
EOT
done
[ $checked -gt 0 ] || { echo "gpu-binary: no kernel compared"; exit 1; }
[ $failed = 0 ] || exit 1
echo "gpu-binary: $checked kernels read offline equal the driver's attributes (sm_$cc)"
