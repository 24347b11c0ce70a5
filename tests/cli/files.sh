#!/bin/sh
# files.sh: output files are written whole or not at all. A refused
# command line (exit 2) creates no file and leaves an existing one as it
# was; a run that fails after the options were accepted does the same; a
# write error (a file-size limit) leaves no partial file; --svg with
# --ptxas writes one file per kernel configuration into a directory.
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=./occcalc
ok() { echo "files: $1: FAILED"; fail=1; }

# expect STATUS WHAT -- ARGS...: the status, nothing on stdout for exit 2.
expect() {
  want=$1 what=$2
  shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq "$want" ] || { ok "$what: status $rc, expected $want"; cat "$tmp/err"; }
  [ "$want" -ne 2 ] || [ ! -s "$tmp/out" ] || ok "$what: wrote to stdout"
}

svg="$tmp/chart.svg"
# Refused before anything is opened: no file appears.
expect 2 "refused, new file" -- --regs 48 --block 128 --chart regs --svg "$svg" --counter
[ ! -e "$svg" ] || ok "a refused run created $svg"
expect 2 "device-dependent failure, new file" -- --arch sm_90 --regs 48 --block 128 \
  --grid 10 --svg "$svg"
[ ! -e "$svg" ] || ok "a failed run created $svg"
# An existing file is kept byte for byte.
echo "keep me" >"$svg"
expect 2 "refused, existing file" -- --regs 48 --block 0 --svg "$svg"
expect 2 "failed, existing file" -- --arch sm_90 --regs 48 --block 128 --grid 10 --svg "$svg"
[ "$(cat "$svg")" = "keep me" ] || ok "a failed run changed an existing --svg file"
# A write error: no partial file, no temporary left behind.
rm -f "$svg"
( ulimit -f 4; "$bin" --gpu h100 --regs 48 --block 128 --chart all --svg "$svg" \
    >/dev/null 2>"$tmp/err" ); rc=$?
[ $rc -eq 1 ] || ok "write error: status $rc, expected 1"
[ ! -e "$svg" ] || ok "write error: a partial $svg was left"
[ -z "$(ls "$tmp" | grep 'chart.svg.')" ] || ok "write error: a temporary file was left"
# A good run writes the whole file, readable as a plain file would be.
expect 0 "good run" -- --gpu h100 --regs 48 --block 128 --chart regs --svg "$svg"
tail -c 7 "$svg" | grep -q '</svg>' || ok "the SVG file is not complete"
mode=$(printf '%o' $((0666 & ~0$(umask))))
[ "$(stat -c %a "$svg")" = "$mode" ] || ok "the SVG file has mode $(stat -c %a "$svg"), not $mode"
# --ptxas: a directory, one file per kernel and target, named N-NAME-ARCH.
mkdir "$tmp/charts"
expect 0 "ptxas into a directory" -- --ptxas tests/ptxas/logs/gencode_warnings.log \
  --chart regs --svg "$tmp/charts"
[ "$(ls "$tmp/charts" | tr '\n' ' ')" = "1-_Z3k48Pfi-sm_75.svg 2-_Z3k48Pfi-sm_86.svg 3-_Z3k48Pfi-sm_90a.svg " ] ||
  ok "ptxas --svg files: $(ls "$tmp/charts" | tr '\n' ' ')"
expect 2 "ptxas into a file" -- --ptxas tests/ptxas/logs/gencode_warnings.log \
  --chart regs --svg "$svg"
[ $fail -eq 0 ] && echo "files: output files are whole or absent"
exit $fail
