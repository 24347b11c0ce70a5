#!/bin/sh
# run_records.sh: occcalc run against a program that varies its launch
# configuration 40,000 times (tests/run/forge.c, no GPU), in each report
# format, and the 314-byte demangler bomb through --ptxas: median CPU
# time (user + system, the program's included; the wall time, printed
# beside it, measures the neighbours on a shared 2-core machine) and peak
# RSS of 3 runs each, against the targets (under 2 s and 200 MB; under 1 s
# and 100 MB). The configurations are the reader's and the renderers'
# work, not the program's: forge writes its records in about 0.1 s. Fails
# when a target is missed (verdict.sh).
set -u
. tests/bench/verdict.sh
OCC=${OCCCALC:-./occcalc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# median of 3 by CPU time: "CPU_SECONDS KB WALL_SECONDS"
measure() {
  for i in 1 2 3; do
    /usr/bin/time -f '%U %S %M %e' -o "$tmp/t" "$@" >/dev/null 2>&1
    tail -1 "$tmp/t" | awk '{printf "%.2f %s %s\n", $1 + $2, $3, $4}'
  done | sort -n | sed -n 2p
}
check() { # what cpu_secs kb max_secs max_kb wall_secs
  verdict "$1: CPU time" "$2" s "<=" "$4" || fail=1
  verdict "$1: peak RSS" "$(awk -v k="$3" 'BEGIN { printf "%.1f", k / 1024 }')" \
    MB "<=" "$(($5 / 1024))" || fail=1
  echo "    (wall $6 s: not a target)"
}
echo "bench-run-records: medians of 3 runs"
for fmt in text --json --csv --jsonl; do
  opt=$fmt; [ "$fmt" = text ] && opt=""
  set -- $(measure "$OCC" run $opt -- build/forge launch distinct=40000)
  check "40,000 configurations, $fmt" "$1" "$2" 2 204800 "$3"
done
# The bomb as hostile_test.sh builds it: nested substitutions.
. "$(dirname "$0")/../run/bomb.sh"
printf "ptxas info    : Compiling entry function '%s' for 'sm_90'\nptxas info    : Used 8 registers\n" \
  "$(bomb 31)" >"$tmp/bomb.log"
set -- $(measure "$OCC" --ptxas "$tmp/bomb.log" --gpu h100 --json)
check "demangler bomb (314 bytes), --ptxas" "$1" "$2" 1 102400 "$3"
exit $fail
