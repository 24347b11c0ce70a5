#!/bin/sh
# report.sh: `occcalc report` over a job's generated run --json
# reports (tests/bench/gen_reports.py: each configuration a kernel of its
# own with a 1.6 KB C++ template name, 3 metrics), text and --json: wall
# time (the better of two runs), CPU time (user + system) and peak RSS, for
# 8 ranks x 100 configurations, 64 x 1,000 and 64 x 5,000, and one row of
# 10,000 and of 40,000 metrics. Fails (status 1) when 64 x 5,000 takes 5 s
# or more of wall time or 300 MB or more of RSS, when the CPU time per rank
# and configuration of 64 x 5,000 is more than 1.5x that of 64 x 1,000
# (not linear in R x K), or when 40,000 metrics take more than 6x the time
# of 10,000 (not linear in the metrics). The reports are written under
# build/bench-report (1.5 GB for 64 x 5,000) and removed after.
set -u
. tests/bench/verdict.sh
OCC=${OCCCALC:-./occcalc}
FORGE=${FORGE:-build/forge}
dir=build/bench-report
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
status=0

# The model row: a report of `occcalc run --json` over a forged launch
# with its counters.
OCCCALC_INJECT=${OCCCALC_INJECT:-build/libocc_inject.so} \
  "$OCC" run --json --output "$dir/template.json" -- "$FORGE" launch counters \
  values=50,20000 >/dev/null 2>&1 || { echo "bench-report: no template report"; exit 1; }

# measure LABEL FILES...: for text and --json, the better wall time of
# two runs, its CPU time and peak RSS; $wall (s) and $rss_mb the worse of
# the two formats.
measure() {
  label=$1
  shift
  wall=0 max_kb=0 max_cpu=0
  for fmt in text json; do
    best="" cpu="" kb=""
    flag=""
    [ $fmt = json ] && flag=--json
    for run in 1 2; do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$OCC" report $flag "$@" \
        >/dev/null 2>"$dir/err" || { echo "bench-report: $label: status $? ($(head -c 200 "$dir/err"))"; exit 1; }
      read -r e u s m <"$dir/time"
      if [ -z "$best" ] || awk -v a="$e" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best=$e cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') kb=$m
      fi
    done
    printf '  %-34s %-5s %7.2f s wall %7.2f s CPU %7.1f MB RSS\n' "$label" \
      $fmt "$best" "$cpu" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
    awk -v a="$best" -v b="$wall" 'BEGIN { exit !(a > b) }' && wall=$best
    awk -v a="$cpu" -v b="$max_cpu" 'BEGIN { exit !(a > b) }' && max_cpu=$cpu
    [ "$kb" -gt "$max_kb" ] && max_kb=$kb
  done
  rss_mb=$(awk -v k="$max_kb" 'BEGIN { print k / 1024 }')
}

# job RANKS CONFIGS: generates and measures one job; $per_row_us is its
# CPU time per rank and configuration (CPU, not wall: other work on the
# machine stretches the wall time of one size and not the other).
job() {
  rm -f "$dir"/rank*.json
  python3 tests/bench/gen_reports.py "$dir/template.json" "$dir" "$1" "$2" ||
    { echo "bench-report: the generator failed"; exit 1; }
  measure "$1 ranks x $2 configurations" "$dir"/rank*.json
  per_row_us=$(awk -v w="$max_cpu" -v r="$1" -v k="$2" 'BEGIN { print w * 1e6 / (r * k) }')
}

echo "bench-report: occcalc report over generated run --json reports"
echo "  (1.6 KB template names, 3 metrics; the worse of text and --json; $(nproc) processors)"
job 8 100
job 64 1000
small=$per_row_us
job 64 5000
large=$per_row_us
verdict "64 x 5,000: wall time" "$wall" s "<=" 5 || status=1
verdict "64 x 5,000: peak RSS" "$rss_mb" MB "<=" 300 || status=1
verdict "CPU per rank x configuration, 64 x 5,000 / 64 x 1,000" \
  "$(awk -v a="$small" -v b="$large" 'BEGIN { printf "%.2f", b / a }')" x "<=" 1.5 || status=1
echo "    ($small us at 64 x 1,000, $large us at 64 x 5,000: linear when about 1)"
echo "  512 ranks x 5,000 (12 GB of reports, not generated): about $(awk -v w="$wall" -v c="$max_cpu" 'BEGIN { printf "%.0f s wall, %.0f s CPU", w * 8, c * 8 }') at the same rate"
# Memory past 64 ranks grows by the ranks' figures, 40 bytes a rank and
# configuration, held twice while the halves are summed at worst.
echo "  and about $(awk -v m="$rss_mb" 'BEGIN { printf "%.0f", m + (512 - 64) * 5000 * 40 * 1.5 / 1048576 }') MB (the ranks' figures: 40 bytes per rank and configuration)"

# One row of many metrics: a hash per name, not a scan per metric.
rm -f "$dir"/rank*.json
python3 tests/bench/gen_reports.py "$dir/template.json" "$dir" 1 1 --metrics 10000 || exit 1
measure "1 row of 10,000 metrics" "$dir/rank0.json"
ten=$wall
python3 tests/bench/gen_reports.py "$dir/template.json" "$dir" 1 1 --metrics 40000 || exit 1
measure "1 row of 40,000 metrics" "$dir/rank0.json"
verdict "40,000 metrics, as a multiple of 10,000's time" \
  "$(awk -v a="$ten" -v b="$wall" 'BEGIN { printf "%.2f", (a > 0.01 ? b / a : b / 0.01) }')" \
  x "<=" 6 || status=1
echo "    (40,000 metrics: $wall s; linear when about 4)"
exit $status
