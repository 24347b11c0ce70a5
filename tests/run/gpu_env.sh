# gpu_env.sh: the preamble of run's GPU tests, sourced, then called as
# `gpu_env [ncu] [torch]`. It checks what the test needs (a GPU always,
# ncu and PyTorch when named: a missing one prints "skipped: no ..." and
# exits 77), then sets OCC (occcalc, or $OCCCALC) and tmp (a new
# directory, or $KEEP to keep the files).
gpu_env() {
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
    { echo "skipped: no GPU"; exit 77; }
  for need in "$@"; do
    case $need in
    ncu) command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; } ;;
    torch) python3 -c 'import torch' 2>/dev/null ||
             { echo "skipped: no PyTorch"; exit 77; } ;;
    esac
  done
  OCC=${OCCCALC:-./occcalc}
  tmp=${KEEP:-$(mktemp -d)}
  mkdir -p "$tmp"
}
