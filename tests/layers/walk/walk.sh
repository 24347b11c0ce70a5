#!/bin/sh
# walk.sh BINARY: the data flows one way. For typed configurations in each
# output format, gdb (walk.py) records every call between two layers of
# src/ while occcalc computes and writes it, and this checks that
#  - no layer calls a layer above it (core db ptxas model render live
#    inject cli, lowest first);
#  - the command line enters each lower layer once: the database once (the
#    device), the model once (the item, its sections included), the
#    renderer once (the item written);
#  - the renderer calls no layer below it: it only reads the model's item.
# A call into text/ (escaping outside text, the one-line diagnostic) is a
# leaf helper every layer above the core may use, as it would use libc: it
# is not counted as an entry.
# BINARY is built with every call kept as a call (walk.mk), so that no
# call hides in a jump.
set -u
bin=${1:?usage: walk.sh BINARY}
if ! command -v gdb >/dev/null 2>&1; then
  echo "walk: gdb is missing (tests/harness/deps.sh installs it)"; exit 1
fi
order="core text db ptxas model render live inject cli"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
grep -v '^#' <<'CASES' | grep . >"$tmp/cases"
--regs 48 --smem 4096 --block 128 --arch sm_90
--regs 48 --smem 4096 --block 128 --gpu h100 --grid 1000 --json
--regs 64 --block 256 --gpu a100 --explain --ncu
--regs 32 --block 128 --arch sm_90 --chart block --csv
--regs 40 --block 96 --gpu h100 --suggest
--regs 32 --block 128 --gpu h100 --cluster 2 --grid 264 --jsonl
CASES
OCC_WALK_CASES="$tmp/cases" OCC_WALK_OUT="$tmp/walk" \
  gdb -nx -batch -x tests/layers/walk/walk.py "$bin" >"$tmp/gdb" 2>&1
n=0
while IFS= read -r args; do
  n=$((n + 1))
  out="$tmp/walk.$n"
  if [ ! -s "$out" ]; then
    echo "walk: '$args': no call between layers recorded (gdb: $(tail -1 "$tmp/gdb"))"
    fail=1; continue
  fi
  verdict=$(awk -v order="$order" -v args="$args" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    $3 == "text" { next }
    { from = $1; to = $3
      if (rank[to] > rank[from]) { print "walk: \x27" args "\x27: " $1 "/" $2 " calls up into " $3 "/" $4 " (" $5 ")"; bad = 1 }
      if (from == "cli") entered[to]++
      if (from == "render") { print "walk: \x27" args "\x27: the renderer calls " $3 "/" $4 " (" $5 "): it should only read the item"; bad = 1 } }
    END { for (l in entered) if (entered[l] > 1) { print "walk: \x27" args "\x27: the command line enters " l " " entered[l] " times"; bad = 1 }
          if (entered["db"] != 1 || entered["model"] != 1 || entered["render"] != 1) { print "walk: \x27" args "\x27: expected one entry each into db, model and render, got " entered["db"]+0 ", " entered["model"]+0 ", " entered["render"]+0; bad = 1 }
          exit bad }' "$out")
  if [ $? -ne 0 ]; then
    echo "$verdict"; sed 's/^/  /' "$out"; fail=1
  else
    echo "walk: '$args': $(wc -l <"$out") calls between layers, db, model and render entered once each"
  fi
done <"$tmp/cases"
[ "$fail" -eq 0 ] && echo "walk: $n configurations, passed"
exit "$fail"
