#!/bin/sh
# handout_check.sh [--self-test] FILE.md: every offline example of the
# handout is run and compared byte for byte. An example is a ```console
# block: a line "$ COMMAND" and the exact output (stdout and stderr
# together) up to the next "$ " line or the block's end. COMMAND runs with
# sh from the repository root, with ./occcalc first in PATH, nvcc in PATH
# and COLUMNS=80, the width the handout is written for; each output line
# must fit 80 columns. Fails (1) on any difference, and when the file has
# no example at all.
# --self-test: changes one digit of the first example's output in a copy
# and passes only if the check of that example then fails (the check can
# fail). HANDOUT_ONLY=N runs example N alone.
# Skips (77) without nvcc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC_DIR=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
[ -x "$NVCC_DIR/nvcc" ] || { echo "skipped: no nvcc"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$1" = "--self-test" ]; then
  awk 'done == 0 && /^```console$/ { inb = 1 }
       inb && /^```$/ { inb = 0 }
       inb && !/^\$ / && done == 0 && match($0, /[0-9]/) {
         d = substr($0, RSTART, 1); $0 = substr($0, 1, RSTART - 1) \
           ((d + 1) % 10) substr($0, RSTART + 1); done = 1 }
       { print }' "$2" >"$tmp/changed.md"
  if cmp -s "$2" "$tmp/changed.md"; then
    echo "handout_check: self-test: no digit to change in $2"; exit 1
  fi
  if HANDOUT_ONLY=1 sh "$0" "$tmp/changed.md" >"$tmp/log" 2>&1; then
    echo "handout_check: self-test: a changed digit went unnoticed"; exit 1
  fi
  echo "handout_check: self-test: a changed digit fails the check"
  exit 0
fi

# Splits the examples into N.cmd (with the line number) and N.want.
mkdir -p "$tmp/ex" "$tmp/bin"
awk -v dir="$tmp/ex" '
  /^```console$/ { inb = 1; next }
  inb && /^```$/ { inb = 0; next }
  inb && /^\$ / { n++; printf "%d %s\n", NR, substr($0, 3) > (dir "/" n ".cmd");
                  printf "" > (dir "/" n ".want"); next }
  inb && n { print > (dir "/" n ".want") }
  END { print n + 0 > (dir "/count") }' "$1"
count=$(cat "$tmp/ex/count")
[ "$count" -gt 0 ] || { echo "handout_check: no \`\`\`console example in $1"; exit 1; }
ln -s "$(pwd)/occcalc" "$tmp/bin/occcalc"

failed=0 i=1 ran=0
while [ $i -le "$count" ]; do
  if [ -n "${HANDOUT_ONLY:-}" ] && [ "$HANDOUT_ONLY" -ne $i ]; then
    i=$((i + 1)); continue
  fi
  read -r line cmd <"$tmp/ex/$i.cmd"
  ran=$((ran + 1))
  PATH="$tmp/bin:$NVCC_DIR:$PATH" COLUMNS=80 sh -c "$cmd" >"$tmp/got" 2>&1 </dev/null
  if ! cmp -s "$tmp/ex/$i.want" "$tmp/got"; then
    echo "handout_check: $1:$line: \$ $cmd: the output differs:"
    diff -u "$tmp/ex/$i.want" "$tmp/got" | sed 's/^/  /'
    failed=1
  fi
  wide=$(LC_ALL=C sed 's/[\x80-\xbf]//g' "$tmp/ex/$i.want" | awk 'length > 80' | wc -l)
  if [ "$wide" -ne 0 ]; then
    echo "handout_check: $1:$line: $wide output lines over 80 columns"
    failed=1
  fi
  i=$((i + 1))
done
[ $failed -eq 0 ] && echo "handout_check: $1: $ran of $count examples run, as printed"
[ $failed -eq 0 ]
