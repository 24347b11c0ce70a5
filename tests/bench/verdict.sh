# verdict.sh (sourced by the benchmark scripts): the one pass/fail
# rule of `make bench`.
#
# verdict LABEL FIGURE UNIT OP TARGET prints one line
#   LABEL  FIGURE UNIT (target OP TARGET UNIT, ratio R) met|MISSED
# and returns 1 on a miss. OP is ">=" where more is better (a throughput)
# and "<=" where less is (a time, a count, a ratio); R is FIGURE/TARGET,
# so a miss is R < 1 for ">=" and R > 1 for "<=". A FIGURE that is not a
# number (a measurement that failed) is a miss.
#
# OCC_BENCH_TIGHTEN=F (default 1) makes every target F times harder, so
# that a test can show that a missed target fails `make bench`
# (tests/bench/fails.sh).
verdict() {
  awk -v l="$1" -v f="$2" -v u="$3" -v op="$4" -v t="$5" \
      -v k="${OCC_BENCH_TIGHTEN:-1}" 'BEGIN {
    if (k <= 0) k = 1
    t = op == ">=" ? t * k : t / k
    # No figure (a failed measurement) is a miss, never a pass.
    if (f !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) {
      printf "  %-44s no figure (target %s %.4g %s) MISSED\n", l, op, t, u
      exit 1
    }
    ok = op == ">=" ? f + 0 >= t : f + 0 <= t
    printf "  %-44s %s %s (target %s %.4g %s, ratio %.2f) %s\n", l, f, u, op,
           t, u, t ? f / t : 0, ok ? "met" : "MISSED"
    exit !ok }'
}
