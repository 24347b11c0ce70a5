#!/bin/sh
# sample_gpu.sh - `occcalc run --measure sample` on a GPU, beside Nsight
# Compute (ncu --graph-profiling node --cache-control none
# --clock-control none): serial kernels of 5 us to 5 ms (serial.cu), a
# CUDA graph (graphs.cu), a PyTorch program with a captured graph
# (torch_graph.py) and two torchrun ranks on one GPU (torch_ranks.py);
# tests/run/sample_compare.py judges each (0 unexplained nulls; the
# launches marked clean within 3 points of ncu on 95 %; no launch outside
# the samples). Also: a second occcalc run on the same GPU is refused with
# one line, and runs one after another all sample; a SIGKILL, SIGTERM or
# SIGHUP of occcalc mid-run leaves the GPU usable by the next profiler.
# Usage: sample_gpu.sh [serial|graphs|torch|ranks|busy|kill|signals|bench]...
# (default: all). OCCCALC names the binary; KEEP=DIR keeps the files;
# BUILD=DIR holds (or gets) the compiled programs.
set -u
here=$(dirname "$0")
. "$here/gpu_env.sh"
gpu_env ncu
build=${BUILD:-$tmp}
mkdir -p "$build"
fail=0
metrics=sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
ncu_run() { # OUT.csv PROGRAM...
  out=$1; shift
  ncu --graph-profiling node --cache-control none --clock-control none \
    --target-processes all --print-kernel-base mangled --csv \
    --metrics $metrics "$@" >"$out" 2>"$out.err" ||
    { echo "sample_gpu: ncu $* failed: $(tail -c 300 "$out.err")"; fail=1; }
}
occ_run() { # NAME ARGS... -- PROGRAM...
  name=$1; shift
  "$OCC" run --json --output "$tmp/$name.json" "$@" 2>"$tmp/$name.err" >"$tmp/$name.out"
  rc=$?
  [ $rc = 0 ] || { echo "sample_gpu: occcalc run $* exited $rc: $(tail -c 400 "$tmp/$name.err")"; fail=1; }
}
compare() { # NAME NCU.csv
  python3 "$here/sample_compare.py" "$tmp/$1.json" "$2" "$1" >"$tmp/$1.cmp" || {
    fail=1
    # What missed: the launches marked clean, beside ncu.
    grep ' clean ' "$tmp/$1.cmp" | head -n 20
  }
  grep -v clean-tally "$tmp/$1.cmp" | tail -n 3
}
build_cu() { # NAME
  [ -x "$build/$1" ] || nvcc -O2 -arch=native -o "$build/$1" "$here/$1.cu" ||
    { echo "sample_gpu: nvcc $1.cu failed"; exit 1; }
}
case_serial() {
  build_cu serial
  ncu_run "$tmp/ncu-serial.csv" "$build/serial"
  for us in ${INTERVALS:-20}; do
    occ_run serial-$us --sample-interval $us -- "$build/serial"
    compare serial-$us "$tmp/ncu-serial.csv"
  done
}
case_graphs() {
  build_cu graphs
  ncu_run "$tmp/ncu-graphs.csv" "$build/graphs" 3
  for us in ${INTERVALS:-20}; do
    occ_run graphs-$us --sample-interval $us -- "$build/graphs" 3
    compare graphs-$us "$tmp/ncu-graphs.csv"
  done
}
case_torch() {
  python3 -c 'import torch' 2>/dev/null || { echo "sample_gpu: torch: skipped: no PyTorch"; return; }
  ncu_run "$tmp/ncu-torch.csv" python3 "$here/torch_graph.py" 20
  occ_run torch --trace "$tmp/torch-trace.json" --svg "$tmp/torch.svg" -- \
    python3 "$here/torch_graph.py" 20
  compare torch "$tmp/ncu-torch.csv"
  # The real run's trace against the trace format, one slice a launch.
  n=$(python3 -c "import json; print(json.load(open('$tmp/torch.json'))['launch_count'])")
  python3 "$here/trace_check.py" "$tmp/torch-trace.json" "$n" &&
    echo "sample_gpu: torch: the trace of $n launches reads back" || fail=1
}
case_ranks() {
  python3 -c 'import torch' 2>/dev/null || { echo "sample_gpu: ranks: skipped: no PyTorch"; return; }
  ncu_run "$tmp/ncu-ranks.csv" python3 -m torch.distributed.run --nproc_per_node 2 "$here/torch_ranks.py"
  occ_run ranks -- python3 -m torch.distributed.run --nproc_per_node 2 "$here/torch_ranks.py"
  compare ranks "$tmp/ncu-ranks.csv"
}
# A second run on the GPU while the first samples it: one line, status 5,
# its program not run.
case_busy() {
  build_cu serial
  # The second run waits up to 2 s for a run that is ending: this one
  # samples for 8 s.
  "$OCC" run --measure sample -- sleep 8 2>"$tmp/busy-first.err" &
  first=$!
  sleep 2
  "$OCC" run -- "$build/serial" >"$tmp/busy.out" 2>"$tmp/busy.err"
  rc=$?
  wait $first
  lines=$(wc -l <"$tmp/busy.err")
  echo "sample_gpu: busy: second run exited $rc with $lines line(s): $(head -c 300 "$tmp/busy.err")"
  [ "$rc" = 5 ] && [ "$lines" = 1 ] && ! [ -s "$tmp/busy.out" ] || fail=1
  # Runs one after the other take turns: the second is never refused
  # while the first's sampler is still disabling.
  for i in 1 2 3; do
    "$OCC" run --json --output "$tmp/turn-$i.json" -- "$build/serial" \
      >/dev/null 2>"$tmp/turn-$i.err" || {
      echo "sample_gpu: busy: back-to-back run $i failed: $(head -c 300 "$tmp/turn-$i.err")"
      fail=1
    }
  done
  python3 -c 'import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))["measure"]["devices"][0]
    assert d["state"] == "sampled", (f, d["state"], d["reason"])' \
    "$tmp"/turn-*.json && echo "sample_gpu: busy: 3 back-to-back runs all sampled" || fail=1
}
# occcalc killed mid-run: its sampler stops on its own, and the next
# profiler session on the GPU starts.
case_kill() {
  build_cu serial
  "$OCC" run -- python3 -c 'import time; time.sleep(5)' 2>"$tmp/kill.err" &
  occ=$!
  sleep 2
  kill -KILL $occ
  wait $occ 2>/dev/null
  sleep 4
  occ_run after-kill -- "$build/serial" 1
  n=$(python3 -c "import json,sys; d=json.load(open('$tmp/after-kill.json')); print(sum(1 for r in d['rows'] for l in r['launches'] if l['achieved_occupancy'] is not None))")
  echo "sample_gpu: kill: after a SIGKILL of occcalc, the next run measured $n launches"
  [ "${n:-0}" -gt 0 ] || fail=1
  ncu --metrics $metrics --csv "$build/serial" 1 >"$tmp/after-kill-ncu.csv" 2>&1 &&
    echo "sample_gpu: kill: ncu after it: ok" || { echo "sample_gpu: kill: ncu failed after it"; fail=1; }
}
# SIGTERM and SIGHUP to occcalc mid-run: forwarded to the program, the
# sampling stopped and disabled, occcalc ends of the same signal, and the
# next run samples the GPU at once.
case_signals() {
  build_cu serial
  env --default-signal=TERM true 2>/dev/null ||
    { echo "sample_gpu: signals: skipped: env has no --default-signal"; return; }
  for sig in TERM:15 HUP:1; do
    num=${sig#*:}
    sig=${sig%:*}
    # A signal ignored when occcalc starts stays ignored (nohup), and a
    # harness may start this script so: occcalc gets the default.
    env --default-signal=$sig "$OCC" run -- python3 -c 'import time; time.sleep(6)' \
      2>"$tmp/sig-$sig.err" &
    occ=$!
    sleep 2
    kill -$sig $occ
    wait $occ
    died=$?  # not rc: occ_run sets that
    want=$((128 + num))
    occ_run after-$sig -- "$build/serial" 1
    n=$(python3 -c "import json,sys; d=json.load(open('$tmp/after-$sig.json')); print(sum(1 for r in d['rows'] for l in r['launches'] if l['achieved_occupancy'] is not None))")
    echo "sample_gpu: signals: SIG$sig: occcalc exited $died (want $want); the next run measured $n launches"
    [ "$died" = "$want" ] && [ "${n:-0}" -gt 0 ] || fail=1
  done
}
# Wall time: the program alone, under occcalc run, under ncu (medians).
case_bench() {
  build_cu graphs
  python3 "$here/sample_bench.py" "$OCC" "$build/graphs" 3 | tee "$tmp/bench.txt"
}
for c in ${*:-serial graphs torch ranks busy kill signals bench}; do
  case_$c
done
# The launches marked clean, over every program compared: 95 % within 3
# points of ncu.
tally=$(cat "$tmp"/*.cmp 2>/dev/null | awk '$2 == "clean-tally" { w += $3; n += $4 }
  END { printf "%d %d", w, n }')
set -- $tally
echo "sample_gpu: clean launches within 3 points of ncu, over every program: $1 of $2"
[ "$2" -eq 0 ] || [ $(($1 * 100)) -ge $(($2 * 95)) ] || fail=1
[ -n "${KEEP:-}" ] || rm -rf "$tmp"
exit $fail
