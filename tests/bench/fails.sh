#!/bin/sh
# fails.sh MAKE: a missed benchmark target fails `make bench`. The
# rule itself (verdict.sh) on figures either side of a target, then
# `make bench`'s runner (run_targets.sh) on a real benchmark whose targets
# OCC_BENCH_TIGHTEN made 1000 times harder: bench-callgrind, an
# instruction count, so the miss does not depend on the machine's load.
# Under make sanitize valgrind cannot run the sanitized occcalc, so the
# runner is shown failing bench-core instead (a timed ratio made 1000 times
# harder misses whatever the load).
make=${1:-make}
bench=bench-callgrind
if nm -D ./occcalc 2>/dev/null | grep -q __asan_init; then bench=bench-core; fi
. tests/bench/verdict.sh
fail=0
expect() { # WANT_STATUS LABEL FIGURE UNIT OP TARGET
  want=$1
  shift
  line=$(verdict "$@")
  got=$?
  case "$line" in *"ratio "*) ;; *) echo "bench_fails: no ratio in '$line'"; fail=1 ;; esac
  if [ $got -ne "$want" ]; then
    echo "bench_fails: verdict $* gave status $got, want $want: $line"
    fail=1
  fi
}
expect 0 throughput 75.5 MB/s ">=" 50
expect 1 throughput 49.9 MB/s ">=" 50
expect 0 time 1.9 s "<=" 2
expect 1 time 2.1 s "<=" 2
OCC_BENCH_TIGHTEN=2 expect 1 throughput 75.5 MB/s ">=" 50
OCC_BENCH_TIGHTEN=2 expect 1 time 1.9 s "<=" 2
# A measurement that gave no figure misses (it once passed as 0).
for figure in "" "x" "1.2.3"; do
  line=$(verdict nothing "$figure" s "<=" 2)
  got=$?
  case "$got:$line" in 1:*"no figure"*"MISSED"*) ;; *)
    echo "bench_fails: verdict on figure '$figure' gave status $got: $line"; fail=1 ;;
  esac
done
out=$(OCC_BENCH_TIGHTEN=1000 sh tests/harness/run_targets.sh "$make" $bench 2>&1)
status=$?
if [ $status -eq 0 ]; then
  echo "bench_fails: $bench with targets 1000x harder passed:"
  echo "$out"
  fail=1
fi
for want in "MISSED" "ratio " "$bench: FAILED" "1 failed"; do
  case "$out" in *"$want"*) ;; *)
    echo "bench_fails: no '$want' in the output of a missed $bench:"
    echo "$out"
    fail=1 ;;
  esac
done
[ $fail -eq 0 ] && echo "bench_fails: a missed target fails make bench, with figure, target and ratio"
exit $fail
