#!/bin/sh
# run.sh: the hostile command lines. The *.case files are golden cases
# (tests/harness/golden.sh) whose arguments carry control characters written as
# bash's $'...', so bash runs them. Then what a case file cannot say: an
# environment value with a newline, and a reader of stdout that goes away
# while SIGPIPE is ignored (the run must stop at once, quietly, with 141).
bin=${OCCCALC:-./occcalc}
dir=$(dirname "$0")
fail=0
bash tests/harness/golden.sh "$dir"/*.case || fail=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# OCCCALC_GPU is echoed escaped, on one line.
env -i PATH="$PATH" LC_ALL=C OCCCALC_GPU="$(printf 'a\nb')" "$bin" --regs 32 \
    --block 32 >"$tmp/out" 2>"$tmp/err"
status=$?
if [ $status -ne 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 2 ] ||
   ! grep -q "unknown GPU 'a\\\\nb'" "$tmp/err"; then
  echo "FAIL OCCCALC_GPU with a newline (status $status):"; cat "$tmp/err"; fail=1
fi

# An endless compiler report into a reader that stops after one line. With
# SIGPIPE ignored the write fails with EPIPE; occcalc must stop there
# (before: it read on for ever) and say nothing.
endless() {
  awk 'BEGIN { for (i = 0; ; i++) {
    printf "ptxas info    : Compiling entry function '"'"'k%d'"'"' for '"'"'sm_90'"'"'\n", i
    printf "ptxas info    : Used %d registers, 0 bytes smem, 380 bytes cmem[0]\n", 16 + i % 200
    if (system("") != 0) exit 1 } }' 2>/dev/null
}
(
  trap '' PIPE
  endless | { timeout 20 "$bin" --ptxas - --gpu h100 2>"$tmp/pipe_err"
              echo $? >"$tmp/pipe_status"; } | head -1 >/dev/null
)
status=$(cat "$tmp/pipe_status")
if [ "$status" != 141 ] || [ -s "$tmp/pipe_err" ]; then
  echo "FAIL --ptxas into a closed pipe, SIGPIPE ignored: status $status (expected 141)"
  cat "$tmp/pipe_err"; fail=1
fi

# The calculator: its one write meets a reader already gone.
(
  trap '' PIPE
  { sleep 0.3; "$bin" --regs 32 --block 128 --gpu h100 --chart all 2>"$tmp/calc_err"
    echo $? >"$tmp/calc_status"; } | true
)
status=$(cat "$tmp/calc_status")
if [ "$status" != 141 ] || [ -s "$tmp/calc_err" ]; then
  echo "FAIL the calculator into a closed pipe, SIGPIPE ignored: status $status (expected 141)"
  cat "$tmp/calc_err"; fail=1
fi
[ $fail -eq 0 ] && echo "hostile-cli: environment and pipe checks passed"
exit $fail
