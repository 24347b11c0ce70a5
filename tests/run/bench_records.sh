#!/bin/sh
# bench_records.sh: occcalc run against a program that varies its launch
# configuration 40,000 times (tests/run/forge.c, no GPU), in each report
# format, and the 314-byte demangler bomb through --ptxas: median wall
# time and peak RSS of 3 runs each, against the targets (under 2 s
# and 200 MB; under 1 s and 100 MB). The configurations are the reader's
# and the renderers' work, not the program's: forge writes its records in
# about 0.1 s. Fails when a target is missed.
set -u
OCC=${OCCCALC:-./occcalc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# median of 3: "SECONDS KB"
measure() {
  for i in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>&1
    tail -1 "$tmp/t"
  done | sort -n | sed -n 2p
}
check() { # what secs kb max_secs max_kb
  ok=$(awk -v s="$2" -v k="$3" -v ms="$4" -v mk="$5" 'BEGIN { print (s < ms && k < mk) ? "met" : "MISSED" }')
  printf '  %-34s %5.2f s %7.1f MB  (target < %s s, < %d MB) %s\n' "$1" "$2" \
    "$(awk -v k="$3" 'BEGIN { print k / 1024 }')" "$4" "$(($5 / 1024))" "$ok"
  [ "$ok" = met ] || fail=1
}
echo "bench-run-records: medians of 3 runs"
for fmt in text --json --csv --jsonl; do
  opt=$fmt; [ "$fmt" = text ] && opt=""
  set -- $(measure "$OCC" run $opt -- build/forge launch distinct=40000)
  check "40,000 configurations, $fmt" "$1" "$2" 2 204800
done
# The bomb as hostile_test.sh builds it: nested substitutions.
. "$(dirname "$0")/bomb.sh"
printf "ptxas info    : Compiling entry function '%s' for 'sm_90'\nptxas info    : Used 8 registers\n" \
  "$(bomb 31)" >"$tmp/bomb.log"
set -- $(measure "$OCC" --ptxas "$tmp/bomb.log" --gpu h100 --json)
check "demangler bomb (314 bytes), --ptxas" "$1" "$2" 1 102400
exit $fail
