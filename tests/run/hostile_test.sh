#!/bin/sh
# hostile_test.sh: `occcalc run` and the output files under hostile
# programs, descriptors, signals and paths, on the CPU: a program that prints on
# stdout under --json, --jsonl and --csv; closed descriptors 0-2; a
# relative TMPDIR and a program that changes directory; SIGTERM, SIGHUP
# and a reader that goes away (EPIPE) while the program runs, which must
# leave neither the program nor a temporary file behind; a program that
# stops itself; a gate over a crashed program; --device's range;
# OCCCALC_INJECT naming a directory or a device; the note without a
# driver; the demangler bomb; output files that are devices, FIFOs,
# /dev/std* names, symbolic and hard links, read-only modes, full disks,
# and --svg DIR/ and its cap.
#
# OCCCALC=PATH runs another build's binary (its libocc_inject.so beside
# it): each case here was seen failing on the build before the fixes.
# Cases that need root (mknod, a private /dev) say "skipped" without it.
set -u
OCC=${OCCCALC:-./occcalc}
case $OCC in /*) ;; *) OCC=$(pwd)/$OCC ;; esac
fake=$(pwd)/build/fake_launches
named=$(pwd)/build/named_launch
fail=0
tmp=$(mktemp -d)
pids=
cleanup() {
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
no() { echo "hostile: $*"; fail=1; }
skip() { echo "hostile: skipped: $*"; }

# st CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err; $st.
st() {
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  st=$?
}
err1() { head -c 300 "$tmp/err"; }

# bomb LEVELS: the demangler bomb (tests/run/bomb.sh).
. "$(dirname "$0")/bomb.sh"

# wait_for FILE: up to 5 s for FILE to have content.
wait_for() {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# --- the demangler: a 314-byte bomb in under 1 s and 100 MB ---
name=$(bomb 31)
[ ${#name} -eq 314 ] || no "bomb: ${#name} bytes, not 314"
printf "ptxas info    : Compiling entry function '%s' for 'sm_90'\nptxas info    : Used 8 registers\n" \
  "$name" >"$tmp/bomb.log"
measure() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M' -o "$tmp/time" timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
  else
    timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
  fi
  st=$?
}
within() {
  [ -s "$tmp/time" ] || return 0
  # (GNU time's first line says so when the command failed)
  tail -1 "$tmp/time" >"$tmp/time1"
  read -r secs kb <"$tmp/time1"
  awk -v s="$secs" -v k="$kb" 'BEGIN { exit !(s < 1 && k < 100000) }' ||
    no "bomb $1: ${secs} s, ${kb} KB (the limits: 1 s, 100000 KB)"
  rm -f "$tmp/time"
}
measure "$OCC" --ptxas "$tmp/bomb.log" --gpu h100 --json
[ "$st" -eq 0 ] || no "bomb --ptxas: status $st"
within --ptxas
grep -qF "\"$name\"" "$tmp/out" || no "bomb --ptxas: the mangled name is not shown"
grep -q "^occcalc: note: 1 kernel name shown mangled: longer than 65536 bytes demangled$" "$tmp/err" ||
  no "bomb --ptxas: no note ($(err1))"
measure "$OCC" run --json -- "$named" "$name" 32
[ "$st" -eq 0 ] || no "bomb run: status $st"
within run
[ -s "$tmp/out" ] && jq -e --arg n "$name" '.rows[0].kernel.name == $n' "$tmp/out" >/dev/null 2>&1 ||
  no "bomb run --json: not the mangled name"
grep -q "shown mangled" "$tmp/err" || no "bomb run: no note ($(err1))"
# A real template name still demangles.
st "$OCC" run --json -- "$named" _Z6reduceILi256EEvPKfPfi 32
[ -s "$tmp/out" ] && jq -e '.rows[0].kernel.name == "reduce<256>(float const*, float*, int)"' "$tmp/out" >/dev/null 2>&1 ||
  no "run: a template kernel no longer demangles"

# --- the program's stdout never enters the report's stream ---
for fmt in json jsonl csv; do
  st "$OCC" run --$fmt -- sh -c 'echo hello from the program; exec "$0" 0' "$fake"
  [ "$st" -eq 0 ] || no "--$fmt with a printing program: status $st ($(err1))"
  grep -q "hello" "$tmp/out" && no "--$fmt: the program's stdout is inside the report"
  grep -q "^hello from the program$" "$tmp/err" || no "--$fmt: the program's stdout is lost"
  case $fmt in
  json) [ -s "$tmp/out" ] && jq -e '.launch_count == 4' "$tmp/out" >/dev/null 2>&1 || no "--json does not parse" ;;
  jsonl) jq -e -s 'length == 4' "$tmp/out" >/dev/null 2>&1 || no "--jsonl does not parse" ;;
  csv) head -1 "$tmp/out" | grep -q '^kernel,' || no "--csv: the first line is not the header" ;;
  esac
done
# The text report is on stderr: the program keeps its stdout.
out=$("$OCC" run -- sh -c 'echo mine; exec "$0" 0' "$fake" 2>/dev/null)
[ "$out" = mine ] || no "text report: the program's stdout is '$out'"

# --- closed descriptors 0-2 become /dev/null, never the records' file ---
"$OCC" run -- sh -c '[ "$(readlink /proc/$$/fd/0)" = /dev/null ]' <&- 2>/dev/null ||
  no "stdin closed: the program's stdin is not /dev/null"
"$OCC" run --json --output "$tmp/closed1.json" -- \
  sh -c 'echo stray; exec "$0" 0' "$fake" >&- 2>/dev/null
[ -s "$tmp/closed1.json" ] && jq -e '.launch_count == 4' "$tmp/closed1.json" >/dev/null 2>&1 ||
  no "stdout closed: the program's output went into the records"
"$OCC" run --json -- sh -c 'echo stray >&2; exec "$0" 0' "$fake" 2>&- >"$tmp/out"
[ -s "$tmp/out" ] && jq -e '.launch_count == 4' "$tmp/out" >/dev/null 2>&1 ||
  no "stderr closed: the program's errors went into the records"
# ... nor inherited by the program at all (close-on-exec).
st "$OCC" run -- sh -c 'ls -l /proc/$$/fd/ | grep -q occcalc-run- && exit 9; exit 0'
[ "$st" -eq 0 ] || no "the program inherits the records' descriptor"

# --- a relative TMPDIR and a program that changes directory ---
mkdir "$tmp/rel"
(cd "$tmp" && TMPDIR=rel "$OCC" run --json -- sh -c 'cd / && exec "$0" 0' "$fake" \
  >"$tmp/out" 2>"$tmp/err")
[ -s "$tmp/out" ] && jq -e '.launch_count == 4' "$tmp/out" >/dev/null 2>&1 ||
  no "relative TMPDIR: records lost after chdir ($(err1))"

# --- SIGTERM and SIGHUP: forwarded, waited for, cleaned up, re-raised ---
# Under nohup SIGHUP is ignored, occcalc inherits that (rightly: it must
# not die of a hang-up it was told to ignore), and a shell cannot reset a
# signal ignored at its start: occcalc is started with SIGHUP's default
# disposition by env --default-signal (coreutils 8.31), or the SIGHUP
# case is skipped, saying why.
hup_ignored=$(awk '/^SigIgn:/ { print (substr($2, length($2)) ~ /[13579bdf]/) ? 1 : 0 }' /proc/$$/status 2>/dev/null)
for pair in TERM:15 HUP:1; do
  sig=${pair%:*}
  launch=""
  if [ "$sig" = HUP ] && [ "${hup_ignored:-0}" = 1 ]; then
    if env --default-signal=HUP true 2>/dev/null; then
      launch="env --default-signal=HUP"
    else
      skip "SIGHUP: it is ignored (nohup) and this env cannot restore its default"
      continue
    fi
  fi
  d=$tmp/sig$sig
  mkdir "$d"
  TMPDIR=$d $launch "$OCC" run --jsonl --output "$d/out.jsonl" -- \
    sh -c 'echo $$ >"$0.tmp"; "$1" 0; mv "$0.tmp" "$0"; exec sleep 60' \
    "$tmp/pid$sig" "$fake" >/dev/null 2>&1 &
  occ=$!
  pids="$pids $occ"
  wait_for "$tmp/pid$sig"
  sleep 0.3 # the records are read and streamed
  kill -s "$sig" "$occ"
  wait "$occ" 2>/dev/null
  got=$?
  child=$(cat "$tmp/pid$sig" 2>/dev/null)
  pids="$pids $child"
  [ "$got" -eq $((128 + ${pair#*:})) ] || no "SIG$sig: status $got"
  sleep 0.1
  [ -n "$child" ] && kill -0 "$child" 2>/dev/null && no "SIG$sig: the program is left running"
  left=$(ls "$d")
  [ -z "$left" ] || no "SIG$sig: left behind: $left"
done

# --- a reader that goes away: the stream ends quietly, the program too ---
d=$tmp/sigPIPE
mkdir "$d"
{
  TMPDIR=$d timeout 20 "$OCC" run --jsonl -- \
    sh -c 'echo $$ >"$0"; while :; do "$1" 0; sleep 0.1; done' "$tmp/pidPIPE" "$fake" \
    2>"$tmp/pipe-err"
  echo $? >"$tmp/pipe-status"
} | head -1 >"$tmp/pipe-out"
child=$(cat "$tmp/pidPIPE" 2>/dev/null)
pids="$pids $child"
[ "$(cat "$tmp/pipe-status")" = 141 ] || no "EPIPE: status $(cat "$tmp/pipe-status")"
[ ! -s "$tmp/pipe-err" ] || no "EPIPE: not quiet: $(head -c 200 "$tmp/pipe-err")"
[ -s "$tmp/pipe-out" ] && jq -e . "$tmp/pipe-out" >/dev/null 2>&1 || no "EPIPE: the first line does not parse"
sleep 0.3
[ -n "$child" ] && kill -0 "$child" 2>/dev/null && no "EPIPE: the program is left running"
left=$(ls "$d")
[ -z "$left" ] || no "EPIPE: left behind: $left"

# --- a program that stops itself is continued, never a hang ---
st timeout 10 "$OCC" run -- sh -c 'kill -STOP $$; exit 4'
[ "$st" -eq 4 ] || no "a stopped program: status $st, not its own 4"
grep -q "^occcalc: note: sh stopped 1 time (Stopped (signal)); occcalc continued it each time$" "$tmp/err" ||
  no "a stopped program: no note ($(err1))"

# --- a failed gate and a crashed program: the crash's status wins ---
st "$OCC" run --min-occupancy 90 -- sh -c '"$0" _Z1kPf 255; kill -SEGV $$' "$named"
[ "$st" -eq 139 ] || no "gate over a crash: status $st, not 139"
grep -q "^occcalc: below --min-occupancy 90%: k(float\*) on .*: 12.5%$" "$tmp/err" || no "gate over a crash: the gate's line is lost"
st "$OCC" run --min-occupancy 90 -- "$named" _Z1kPf 255
[ "$st" -eq 3 ] || no "gate alone: status $st, not 3"

# --- --device: the range and 'all' that the message gives ---
st "$OCC" run --device all -- true
[ "$st" -eq 0 ] || no "run --device all: status $st ($(err1))"
st "$OCC" run --device 99 -- true
[ "$st" -eq 0 ] || no "run --device 99 (within the accepted range): status $st ($(err1))"
grep -q "that --kernel or --device selects" "$tmp/err" || no "run --device 99: no note"
for v in x -1 1048577; do
  st "$OCC" run --device "$v" -- true
  [ "$st" -eq 2 ] && grep -q "(accepted: 0 to 1048576 or 'all')" "$tmp/err" ||
    no "run --device $v: status $st, '$(err1)'"
done

# --- OCCCALC_INJECT: a readable regular file, or a message naming it ---
for bad in "$tmp" /dev/zero "$tmp/no-such.so"; do
  rm -f "$tmp/ran"
  OCCCALC_INJECT=$bad st "$OCC" run -- touch "$tmp/ran"
  [ "$st" -eq 5 ] || no "OCCCALC_INJECT=$bad: status $st"
  [ ! -e "$tmp/ran" ] || no "OCCCALC_INJECT=$bad: the program ran"
  grep -q "^occcalc: run: OCCCALC_INJECT: '$bad': " "$tmp/err" || no "OCCCALC_INJECT=$bad: '$(err1)'"
  grep -q "set OCCCALC_INJECT" "$tmp/err" && no "OCCCALC_INJECT=$bad: told to set it"
done

# --- no driver: the note says so ---
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  skip "the no-driver note (a driver is installed)"
else
  st "$OCC" run -- true
  grep -q "^occcalc: note: true launched no CUDA kernel, and none can run here: .*no NVIDIA driver" "$tmp/err" ||
    no "no driver: '$(err1)'"
fi

# --- output files ---
calc() { "$OCC" --gpu h100 --regs 32 --block 128 "$@"; }
# A regular file keeps its mode; a symbolic link stays one.
printf old >"$tmp/m.svg"
chmod 600 "$tmp/m.svg"
ln "$tmp/m.svg" "$tmp/hard.svg"
ln -s m.svg "$tmp/link.svg"
calc --svg "$tmp/m.svg" >/dev/null 2>&1 || no "--svg FILE failed"
[ "$(stat -c %a "$tmp/m.svg")" = 600 ] || no "--svg: mode 600 became $(stat -c %a "$tmp/m.svg")"
grep -q '<svg' "$tmp/m.svg" || no "--svg: the file was not written"
# (documented: a hard link keeps the old content)
[ "$(cat "$tmp/hard.svg")" = old ] || no "--svg: the other hard link changed"
calc --svg "$tmp/link.svg" >/dev/null 2>&1
[ -L "$tmp/link.svg" ] || no "--svg: the symbolic link was replaced by a file"
# A new file: what the umask gives.
(umask 027 && calc --svg "$tmp/new.svg" >/dev/null 2>&1)
[ "$(stat -c %a "$tmp/new.svg")" = 640 ] || no "--svg: a new file is $(stat -c %a "$tmp/new.svg") under umask 027"
# A FIFO is written, not replaced.
mkfifo "$tmp/fifo"
timeout 10 cat "$tmp/fifo" >"$tmp/fifo.out" &
calc --svg "$tmp/fifo" >/dev/null 2>"$tmp/err"
wait
[ -p "$tmp/fifo" ] || no "--svg FIFO: replaced"
grep -q '<svg' "$tmp/fifo.out" || no "--svg FIFO: nothing came out of it"
# A descriptor's name writes to the descriptor, at its offset.
printf 'first\n' >"$tmp/append.svg"
calc --svg /proc/self/fd/1 >>"$tmp/append.svg" 2>"$tmp/err" || no "--svg /proc/self/fd/1: $(err1)"
[ "$(head -1 "$tmp/append.svg")" = first ] && grep -q '<svg' "$tmp/append.svg" ||
  no "--svg /proc/self/fd/1: not appended to stdout"

# Character devices as root: a copy of /dev/null and of /dev/full, and the
# real /dev names in a private /dev (a tmpfs in a private mount namespace,
# so that a build that replaces them harms nothing).
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null &&
  mknod "$tmp/full" c 1 7 2>/dev/null; then
  calc --svg "$tmp/null" >/dev/null 2>&1 || no "--svg NULLDEV: status $?"
  [ -c "$tmp/null" ] || no "--svg NULLDEV: no longer a character device"
  st calc --svg "$tmp/full"
  [ "$st" -eq 1 ] || no "--svg FULLDEV: status $st, not 1"
  grep -q "^occcalc: --svg: error writing '$tmp/full': No space left on device$" "$tmp/err" ||
    no "--svg FULLDEV: '$(err1)'"
  [ -c "$tmp/full" ] || no "--svg FULLDEV: replaced"
  st "$OCC" run --json --output "$tmp/full" -- "$fake" 0
  [ "$st" -eq 1 ] || no "run --output FULLDEV: status $st, not 1"
  grep -q "^occcalc: --output: error writing '$tmp/full': No space left on device$" "$tmp/err" ||
    no "run --output FULLDEV: '$(err1)'"
  st "$OCC" run --jsonl --output "$tmp/full" -- "$fake" 0
  [ "$st" -eq 1 ] || no "run --jsonl --output FULLDEV: status $st, not 1"
  grep -q "^occcalc: --output: error writing '$tmp/full': No space left on device$" "$tmp/err" ||
    no "run --jsonl --output FULLDEV: '$(err1)'"
  if unshare -m --propagation private true 2>/dev/null; then
    unshare -m --propagation private sh -c '
      mount -t tmpfs tmpfs /dev || exit 99
      mknod -m 666 /dev/null c 1 3 && ln -s /proc/self/fd /dev/fd &&
        ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd/2 /dev/stderr
      "$0" --gpu h100 --regs 32 --block 128 --svg /dev/null >/dev/null 2>&1 || echo "--svg /dev/null failed"
      [ -c /dev/null ] || echo "--svg /dev/null: no longer a character device"
      "$0" --gpu h100 --regs 32 --block 128 --svg /dev/stdout >"$1" 2>/dev/null
      [ -L /dev/stdout ] || echo "--svg /dev/stdout: the /dev entry was replaced"
      grep -q "<svg" "$1" || echo "--svg /dev/stdout: nothing on stdout"
      "$0" run --json --output /dev/stderr -- "$2" 0 2>"$1" >/dev/null
      [ -L /dev/stderr ] || echo "run --output /dev/stderr: the /dev entry was replaced"
      grep -q "launch_count" "$1" || echo "run --output /dev/stderr: nothing on stderr"
    ' "$OCC" "$tmp/devout" "$fake" >"$tmp/ns" 2>&1
    [ ! -s "$tmp/ns" ] || no "private /dev: $(cat "$tmp/ns")"
  else
    skip "/dev/null and /dev/stdout in a private /dev (no mount namespace)"
  fi
else
  skip "character devices (root's mknod)"
fi

# run --output: checked before the program runs, messages name --output.
printf x >"$tmp/afile"
for bad in "$tmp/afile/" "$tmp/afile/sub" /proc/occcalc-x "$tmp" "$tmp/no/dir/f"; do
  rm -f "$tmp/ran"
  st "$OCC" run --json --output "$bad" -- touch "$tmp/ran"
  [ "$st" -eq 2 ] || no "run --output $bad: status $st"
  [ ! -e "$tmp/ran" ] || no "run --output $bad: the program ran"
  head -1 "$tmp/err" | grep -q "^occcalc: --output: cannot write '$bad': " ||
    no "run --output $bad: '$(err1)'"
done
# --jsonl --output: nothing created or truncated until the program runs.
printf keep >"$tmp/kept.jsonl"
st "$OCC" run --jsonl --output "$tmp/kept.jsonl" -- "$tmp/no-such-program"
[ "$st" -eq 127 ] || no "--jsonl --output, no program: status $st"
[ "$(cat "$tmp/kept.jsonl")" = keep ] || no "--jsonl --output: truncated though the program never ran"
st "$OCC" run --jsonl --output "$tmp/never.jsonl" -- "$tmp/no-such-program"
[ ! -e "$tmp/never.jsonl" ] || no "--jsonl --output: created though the program never ran"
st "$OCC" run --jsonl --output "$tmp/kept.jsonl" -- "$fake" 0
[ "$st" -eq 0 ] && [ "$(wc -l <"$tmp/kept.jsonl")" -eq 4 ] || no "--jsonl --output: status $st, $(wc -l <"$tmp/kept.jsonl") lines"
jq -e -s 'length == 4' "$tmp/kept.jsonl" >/dev/null 2>&1 || no "--jsonl --output does not parse"

# A program that puts a symbolic link where --output will be cannot
# redirect the report (the path is resolved before it runs).
for fmt in json jsonl; do
  printf precious >"$tmp/victim"
  rm -f "$tmp/planted.$fmt"
  st "$OCC" run --$fmt --output "$tmp/planted.$fmt" -- \
    sh -c 'ln -s victim "$0"; exec "$1" 0' "$tmp/planted.$fmt" "$fake"
  [ "$(cat "$tmp/victim")" = precious ] || no "--$fmt --output: a planted link redirected the report"
  [ -f "$tmp/planted.$fmt" ] && [ ! -L "$tmp/planted.$fmt" ] || no "--$fmt --output: the report is not the file named"
done

# --svg DIR/ creates DIR; at most 1000 files in it.
log=tests/ptxas/logs/cuda2_no_target.log
st "$OCC" --ptxas "$log" --gpu h100 --svg "$tmp/charts/"
[ "$st" -eq 0 ] && [ "$(ls "$tmp/charts" 2>/dev/null | wc -l)" -eq 2 ] ||
  no "--svg DIR/: status $st, $(ls "$tmp/charts" 2>/dev/null | wc -l) files ($(err1))"
st "$OCC" --ptxas "$log" --gpu h100 --svg "$tmp/nodir"
[ "$st" -eq 2 ] && [ ! -e "$tmp/nodir" ] || no "--svg DIR without '/': status $st"
awk 'BEGIN { for (i = 0; i < 1001; i++)
  printf "ptxas info    : Compiling entry function '\''_Z1k%dPf'\'' for '\''sm_90'\''\nptxas info    : Used 32 registers\n", i }' \
  >"$tmp/many.log"
st "$OCC" --ptxas "$tmp/many.log" --svg "$tmp/many/"
[ "$st" -eq 1 ] || no "--svg past 1000 files: status $st"
[ "$(ls "$tmp/many" | wc -l)" -eq 1000 ] || no "--svg past 1000 files: $(ls "$tmp/many" | wc -l) files"
grep -q "^occcalc: --svg: stopped at 1000 files in '$tmp/many/'" "$tmp/err" || no "--svg cap: '$(err1)'"

[ $fail -eq 0 ] && echo "hostile: run and the output files hold under hostile programs and paths"
exit $fail
