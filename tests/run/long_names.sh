#!/bin/sh
# long_names.sh: an output file (--svg, run's --output) whose name is as
# long as the file system takes (249 to 255 bytes) is written: the
# temporary file it is written to first has a name of fixed length in the
# same folder, never the target's name lengthened (which made a 249-byte
# name "File name too long"). Nothing temporary is left behind; a 256-byte
# name is refused with the file system's reason, status 2.
set -u
OCC=$(cd "$(dirname "${OCCCALC:-./occcalc}")" && pwd)/$(basename "${OCCCALC:-./occcalc}")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no() { echo "long_names: $*"; fail=1; }
cd "$tmp" || exit 1
args="--gpu h100 --regs 32 --block 128"
for len in 249 250 255; do
  name=$(printf "%0$((len - 4))d.svg" 0)
  # shellcheck disable=SC2086
  "$OCC" $args --svg "$name" >out 2>err
  rc=$?
  [ $rc -eq 0 ] || no "$len bytes: status $rc ($(cat err))"
  grep -q '<svg' "$name" 2>/dev/null || no "$len bytes: no chart written"
  # An existing file of that name is replaced the same way.
  # shellcheck disable=SC2086
  "$OCC" $args --svg "$name" >out 2>err || no "$len bytes, replaced: status $? ($(cat err))"
  rm -f "$name"
done
name=$(printf "%0252d.svg" 0)
# shellcheck disable=SC2086
"$OCC" $args --svg "$name" >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "File name too long" err || no "256 bytes: status $rc ($(cat err))"
left=$(ls -A)
[ "$left" = "$(printf 'err\nout')" ] || no "left behind: $left"
[ $fail -eq 0 ] && echo "long_names: output names of 249, 250 and 255 bytes written (new and replaced), 256 refused, nothing left behind"
exit $fail
