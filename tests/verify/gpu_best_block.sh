#!/bin/sh
# gpu_best_block.sh OCCCALC OUTDIR [LINES]: `--block best` against the CUDA
# runtime. On a GPU machine it builds tests/verify/best_block.cu for the
# device's own architecture into OUTDIR and runs it: for kernels of several
# register counts, static shared memory and launch bounds, and a grid of
# dynamic shared memory (a constant plus bytes per thread) and block
# limits, it prints the runtime's (minGridSize, blockSize) from
# cudaOccupancyMaxPotentialBlockSizeVariableSMem (and
# cudaOccupancyMaxPotentialBlockSize where the memory is constant). Each
# case is then asked of occcalc offline (--arch, --sms, --regs, --smem,
# --dyn-smem, --dyn-smem-per-thread, --max-threads, --block best --json),
# whose .kernel.block and .block_choice.min_grid_blocks must equal the
# runtime's. Exit 1 on any difference. Skips (77) without a GPU, nvcc or
# python3.
# LINES, a file of the program's output, is compared instead of running
# the program (no GPU or nvcc needed): to replay a run recorded elsewhere.
set -u
occcalc=$1 out=$2
lines=${3:-}
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3 to read JSON"; exit 77; }
mkdir -p "$out"
if [ -z "$lines" ]; then
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 ||
    { echo "skipped: no GPU"; exit 77; }
  NVCC=${NVCC:-nvcc}
  command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
  command -v "$NVCC" >/dev/null 2>&1 || { echo "skipped: no nvcc"; exit 77; }
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | tr -d '.\r ')
  "$NVCC" -arch="sm_$cc" -o "$out/best_block" tests/verify/best_block.cu ||
    { echo "gpu-best-block: nvcc failed on tests/verify/best_block.cu (sm_$cc)"; exit 1; }
  # The runtime's device 0 is the one nvidia-smi -i 0 names.
  CUDA_DEVICE_ORDER=PCI_BUS_ID "$out/best_block" >"$out/runtime.txt" ||
    { echo "gpu-best-block: $out/best_block failed"; exit 1; }
  lines=$out/runtime.txt
fi

# value KEY LINE: the value of KEY=VALUE in a line of the program's output.
value() {
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

dev=$(grep '^device ' "$lines" | head -1)
[ -n "$dev" ] || { echo "gpu-best-block: no device line in $lines"; exit 1; }
cc=$(value cc "$dev") sms=$(value sms "$dev") dev_max=$(value max_threads_per_block "$dev")
cases=0 differ=0
while IFS= read -r line; do
  case $line in case\ *) ;; *) continue ;; esac
  kernel=$(value kernel "$line") regs=$(value regs "$line")
  smem=$(value static_smem "$line") bounds=$(value kernel_max_threads "$line")
  api=$(value api "$line") per_thread=$(value per_thread "$line")
  constant=$(value const "$line") limit=$(value limit "$line")
  rt_grid=$(value min_grid "$line") rt_block=$(value block "$line")
  # The runtime's search bound: blockSizeLimit (0: none), the device's
  # largest block and the kernel's launch bounds, the smallest of them;
  # occcalc's --max-threads is that bound (README: the runtime's
  # blockSizeLimit or the kernel's __launch_bounds__).
  max=$dev_max
  [ "$limit" -gt 0 ] && [ "$limit" -lt "$max" ] && max=$limit
  [ "$bounds" -lt "$max" ] && max=$bounds
  set -- --arch "sm_$cc" --sms "$sms" --regs "$regs" --smem "$smem" --dyn-smem "$constant" \
    --dyn-smem-per-thread "$per_thread"
  [ "$max" -lt "$dev_max" ] && set -- "$@" --max-threads "$max"
  set -- "$@" --block best --json
  cases=$((cases + 1))
  if ! "$occcalc" "$@" >"$out/occ.json" 2>"$out/occ.err"; then
    echo "gpu-best-block: $kernel ($api): occcalc $* failed: $(head -1 "$out/occ.err")"
    differ=$((differ + 1))
    continue
  fi
  # The runtime answers block 0 and min grid 0 when no size can launch;
  # occcalc's best size and min grid are then null.
  got=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
c = j["block_choice"]
if c["max_potential_block_size"] is None:
    print(0, 0)
else:
    print(c["min_grid_blocks"], j["kernel"]["block"][0])' "$out/occ.json") ||
    { echo "gpu-best-block: $kernel ($api): no block_choice in occcalc's JSON"; exit 1; }
  if [ "$got" != "$rt_grid $rt_block" ]; then
    echo "gpu-best-block: $kernel regs $regs static smem $smem, $api API," \
      "dyn smem $constant + $per_thread/thread, limit $limit:" \
      "runtime min grid $rt_grid block $rt_block, occcalc $got (occcalc $*)"
    differ=$((differ + 1))
  fi
done <"$lines"
[ $cases -gt 0 ] || { echo "gpu-best-block: no case in $lines"; exit 1; }
echo "gpu-best-block: $cases cases, $differ differ (sm_$cc, $sms SMs)"
[ $differ = 0 ]
