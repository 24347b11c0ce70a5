#!/bin/sh
# lab.sh: make lab. Runs every variant of the lab's programs (build/lab)
# under `occcalc run` with the counters of $LAB_METRICS, one run per
# variant, and prints one table of them (tests/lab/table.py). Without a GPU
# it prints "skipped: no GPU" and exits 77; it fails (1) if a program
# fails (a wrong result) or occcalc does.
set -u
out=build/lab/runs
mkdir -p "$out"
if ! ./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>"$out/why"; then
  echo "skipped: no GPU ($(head -c 200 "$out/why"))"
  exit 77
fi
command -v python3 >/dev/null || { echo "lab: python3 is needed to read run's JSON"; exit 1; }

# lab_run NAME PROGRAM VARIANT: the one place the lab calls occcalc run.
lab_run() {
  ./occcalc run --metrics "$LAB_METRICS" --json -- "build/lab/$2" "$3" \
    >"$out/$1.out" 2>"$out/$1.err"
  status=$?
  if [ $status -ne 0 ]; then
    echo "lab: occcalc run -- build/lab/$2 $3 exited $status:"
    cat "$out/$1.err"
    exit 1
  fi
  tables="$tables $1=$out/$1.out,$out/$1.err"
}

tables=""
for v in 1 2 3 4 5 6 7; do lab_run "R$v" reduction $v; done
for v in 1 2 3 4; do lab_run "T$v" transpose $v; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
  sed 's/^/GPU: /'
date -u '+recorded %Y-%m-%d %H:%M UTC'
# shellcheck disable=SC2086 # one word per variant
python3 tests/lab/table.py $tables
