#!/bin/bash
# stream_test.sh: occcalc --ptxas - writes a kernel's row as soon as its
# lines are read, not at the end of the input. A writer sends a real log
# up to the next kernel's first line, then waits (10 s at most) for
# occcalc's first line before it sends the rest: a reader that waits for
# more input, or for the end, never answers in time and the test fails.
# No timing is asserted beyond that generous bound. Also: an AMD remark
# log with more than 64 KiB of warnings before its first remark is read as
# AMD's, and a log of both kinds is refused with one line.
set -u
bin=${OCCCALC:-./occcalc}
log=tests/ptxas/real/pressure.ptxas.log
amd=tests/amd/data/clang19-gfx90a-color.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "stream_test: $*"; fail=1; }

# The first kernel's lines end where the second kernel's begin.
second=$(grep -n "Compiling entry function" "$log" | sed -n '2s/:.*//p')
head -n "$second" "$log" >"$tmp/part1"
tail -n "+$((second + 1))" "$log" >"$tmp/part2"
mkfifo "$tmp/in" "$tmp/out"
"$bin" --ptxas - --jsonl --block 256 <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in" 4<"$tmp/out"
cat "$tmp/part1" >&3
if IFS= read -r -t 10 first <&4; then
  case "$first" in
    *'"_Z9recursivePi"'*) ;;
    *) bad "the first row is not the first kernel's: $first" ;;
  esac
else
  bad "no row within 10 s of the first kernel's lines (the reader waits for more input)"
fi
cat "$tmp/part2" >&3
exec 3>&-
cat <&4 >"$tmp/rest"
exec 4<&-
wait "$pid" || bad "status $? (stderr: $(cat "$tmp/err"))"
rows=$(( $(wc -l <"$tmp/rest") + 1 ))
want=$("$bin" --ptxas "$log" --jsonl --block 256 | wc -l)
[ "$rows" -eq "$want" ] || bad "$rows rows streamed, $want from the file"

# 800 warnings (over 64 KiB) before the first remark: still AMD's log.
{ for i in $(seq 800); do
    echo "k.hip:$i:3: warning: unused variable 'x$i' [-Wunused-variable] and some more words"
  done; cat "$amd"; } >"$tmp/warnings.log"
[ "$(wc -c <"$tmp/warnings.log")" -gt 65536 ] || bad "the warnings are under 64 KiB"
"$bin" --ptxas "$tmp/warnings.log" --max-block 256 --jsonl >"$tmp/amd.out" 2>"$tmp/amd.err" ||
  bad "a remark log after 64 KiB of warnings: status $? ($(cat "$tmp/amd.err"))"
[ "$(grep -c '"vendor":"amd"' "$tmp/amd.out")" -eq 4 ] || bad "not 4 AMD kernels after the warnings"

# Both kinds in one log: one line, status 2.
cat "$amd" "$log" >"$tmp/both.log"
"$bin" --ptxas "$tmp/both.log" --max-block 256 >/dev/null 2>"$tmp/both.err"
status=$?
[ "$status" -eq 2 ] || bad "a log of both kinds: status $status, expected 2"
[ "$(wc -l <"$tmp/both.err")" -eq 1 ] && grep -q "both kinds" "$tmp/both.err" ||
  bad "a log of both kinds: not one line naming it: $(cat "$tmp/both.err")"

[ $fail -eq 0 ] && echo "stream_test: passed"
exit $fail
