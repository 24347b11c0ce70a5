#!/bin/sh
# ptxas.sh OCCCALC DIR: `occcalc --ptxas` on synthetic logs of 10 MB and
# 100 MB (real nvcc 13.0 blocks repeated with fresh kernel names, made in
# DIR), to /dev/null: the table, --jsonl and --json.
#
# On the 100 MB log the three alternate, ROUNDS rounds (default 5), so
# that each sees the same machine, and each figure is a median. The
# throughput targets are on CPU time (user + system, from wait4): on a
# 2-core machine shared with other work the wall time measures the
# neighbours (the same run took 1.3 s of CPU and 3.8 to 6.2 s of wall
# under a load of 40); the median wall time is printed beside it.
# Targets: the table >= 100 MB/s of log (about 210 on a quiet machine,
# 140 under load), --jsonl and --json >= 50 MB/s; peak RSS under 16 MiB
# for every mode at both sizes. And, where a count is the honest measure,
# the instructions of --jsonl on a 1 MB log at most 3.5x the table's
# (callgrind; 2.6x when set): the JSON writer's own cost, whatever the
# load. Fails on a miss (verdict.sh).
bin=$1 dir=$2
here=$(dirname "$0")
rounds=${ROUNDS:-5}
. "$here/verdict.sh"
mkdir -p "$dir"
${CC:-cc} -O2 -o "$dir/rusage" "$here/rusage.c" || exit 1
for mb in 1 10 100; do
  log="$dir/ptxas-${mb}MB.log"
  bytes=$((mb * 1000 * 1000))
  if [ ! -f "$log" ] || [ "$(wc -c <"$log")" -lt "$bytes" ]; then
    awk -v bytes=$bytes -f "$here/synth.awk" "$here"/../ptxas/real/*.ptxas.log >"$log"
  fi
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# run LOG MODE: one run, its "mode wall_s cpu_s maxrss_kib" appended to tmp.
run() {
  flag=""
  [ "$2" = table ] || flag=--$2
  out=$("$dir/rusage" "$bin" --ptxas "$1" $flag)
  case "$out" in *status=0*) ;; *) echo "bench: $bin failed on $1: $out"; exit 1 ;; esac
  echo "$out" | sed "s/^wall_s=\([0-9.]*\) cpu_s=\([0-9.]*\) maxrss_kib=\([0-9]*\).*/$2 \1 \2 \3/" >>"$tmp"
}
modes="table jsonl json"
for mode in $modes; do run "$dir/ptxas-10MB.log" $mode; done
small=$(cat "$tmp")
: >"$tmp"
i=0
while [ $i -lt "$rounds" ]; do
  for mode in $modes; do run "$dir/ptxas-100MB.log" $mode; done
  i=$((i + 1))
done
log="$dir/ptxas-100MB.log"
size=$(wc -c <"$log")
kernels=$(grep -c "Compiling entry function" "$log")
# median MODE COLUMN: the median of a column (2 wall, 3 CPU, 4 RSS).
median() {
  awk -v m="$1" -v c="$2" '$1 == m {print $c}' "$tmp" | sort -n |
    awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo "bench-ptxas: $(basename "$log") ($kernels kernels), medians of $rounds alternating rounds"
fail=0
for mode in $modes; do
  target=50
  [ $mode = table ] && target=100
  cpu=$(median $mode 3) wall=$(median $mode 2)
  verdict "$mode: MB/s of log per CPU second" \
    "$(awk -v s="$size" -v t="$cpu" 'BEGIN {printf "%.1f", s / 1e6 / t}')" MB/s ">=" $target || fail=1
  awk -v s="$size" -v c="$cpu" -v w="$wall" 'BEGIN {
    printf "    (CPU %.2f s; wall %.2f s, %.1f MB/s of log: not a target)\n", c, w, s / 1e6 / w }'
done
for mode in $modes; do
  rss=$( { echo "$small"; awk -v m=$mode '$1 == m' "$tmp"; } |
    awk -v m=$mode '$1 == m && $4 > max {max = $4} END {printf "%.1f", max / 1024}')
  verdict "$mode: peak RSS, 10 MB and 100 MB logs" "$rss" MiB "<=" 16 || fail=1
done
# ir MODE...: the instructions of one run on the 1 MB log.
ir() {
  valgrind --tool=callgrind --callgrind-out-file="$tmp.cg" "$bin" --ptxas \
    "$dir/ptxas-1MB.log" "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
if command -v valgrind >/dev/null 2>&1; then
  table_ir=$(ir) jsonl_ir=$(ir --jsonl)
  rm -f "$tmp.cg"
  verdict "jsonl: instructions, as a multiple of the table's" \
    "$(awk -v j="$jsonl_ir" -v t="$table_ir" 'BEGIN {printf "%.2f", j / t}')" x "<=" 3.5 || fail=1
  echo "    (1 MB log: table $table_ir, --jsonl $jsonl_ir instructions)"
else
  echo "bench-ptxas: valgrind is missing (make test-deps installs it)"
  fail=1
fi
exit $fail
