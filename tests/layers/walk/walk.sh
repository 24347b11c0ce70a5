#!/bin/sh
# walk.sh BINARY [FLOW...]: the data flows one way. For each flow, gdb
# (walk.py) records every call between two layers of src/ while occcalc
# runs it, and this checks that
#  - no layer calls a layer above it (core text db ptxas model render live
#    inject cli, lowest first);
#  - the renderer calls no layer below it: it only reads the model's item
#    (typed configurations and --ptxas);
#  - typed configurations: the command line enters each lower layer once:
#    the database once (the device), the model once (the item, its
#    sections included), the renderer once (the item written);
#  - a compiler report (--ptxas): the model and the renderer are entered
#    as often as each other (each kernel's item built once and written
#    once);
#  - run (over a fake program's launch records, no GPU needed): no call
#    up, and the renderer calls no layer below it, as for the others.
# A call into text/ (escaping outside text, the one-line diagnostic) is a
# leaf helper every layer above the core may use, as it would use libc: it
# is not counted as an entry. A function of a higher layer found running
# under a lower one (a callback through a function pointer, which no
# direct call shows) fails a compiler report's case, whose command line
# pulls lines and kernels from the readers; elsewhere it is listed with
# the case.
# FLOW (typed, ptxas, run) selects those flows' cases alone; none, all
# (make test-walk WALK_FLOWS=run).
# BINARY is built with every call kept as a call (tests/layers/layers.mk), so that no
# call hides in a jump; run's cases need build/fake_launches and the
# injection library beside BINARY.
set -u
bin=${1:?usage: walk.sh BINARY [FLOW...]}
shift
if ! command -v gdb >/dev/null 2>&1; then
  echo "walk: gdb is missing (tests/harness/deps.sh installs it)"; exit 1
fi
order="core text db ptxas model render live inject cli"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# FLOW ARGS...: the flow names the checks (typed, ptxas, run).
grep -v '^#' <<'CASES' | grep . >"$tmp/flows"
typed --regs 48 --smem 4096 --block 128 --arch sm_90
typed --regs 48 --smem 4096 --block 128 --gpu h100 --grid 1000 --json
typed --regs 64 --block 256 --gpu a100 --explain --ncu
typed --regs 32 --block 128 --arch sm_90 --chart block --csv
typed --regs 40 --block 96 --gpu h100 --suggest
typed --regs 32 --block 128 --gpu h100 --cluster 2 --grid 264 --jsonl
ptxas --ptxas tests/ptxas/logs/gencode_warnings.log --block 256
ptxas --ptxas tests/ptxas/logs/gencode_warnings.log --gpu h100 --json
run run --json -- build/fake_launches 0
CASES
if [ $# -gt 0 ]; then
  for flow in "$@"; do grep "^$flow " "$tmp/flows"; done >"$tmp/picked"
  if [ ! -s "$tmp/picked" ]; then
    echo "walk: no case of flow '$*': the flows are typed, ptxas, run"; exit 2
  fi
  mv "$tmp/picked" "$tmp/flows"
fi
cut -d' ' -f2- "$tmp/flows" >"$tmp/cases"
OCC_WALK_ORDER="$order" OCC_WALK_CASES="$tmp/cases" OCC_WALK_OUT="$tmp/walk" \
  gdb -nx -batch -x tests/layers/walk/walk.py "$bin" >"$tmp/gdb" 2>&1
n=0
while IFS=' ' read -r flow args; do
  n=$((n + 1))
  out="$tmp/walk.$n"
  if [ ! -s "$out" ]; then
    echo "walk: '$args': no call between layers recorded (gdb: $(tail -1 "$tmp/gdb"))"
    fail=1; continue
  fi
  verdict=$(awk -v order="$order" -v args="$args" -v flow="$flow" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    $1 == "callback" { callback[$2 "/" $3 " runs " $4 "/" $5 " " $6]++; next }
    $3 == "text" { next }
    { from = $1; to = $3
      if (rank[to] > rank[from]) { print "walk: \x27" args "\x27: " $1 "/" $2 " calls up into " $3 "/" $4 " (" $5 ")"; bad = 1 }
      if (from == "cli") entered[to]++
      if (from == "cli" && $5 == "occ_render_item") written++
      if (from == "cli" && $5 == "occ_model_build") built++
      if (from == "render") { print "walk: \x27" args "\x27: the renderer calls " $3 "/" $4 " (" $5 "): it should only read the item"; bad = 1 } }
    END { if (flow == "typed") {
            for (l in entered) if (entered[l] > 1) { print "walk: \x27" args "\x27: the command line enters " l " " entered[l] " times"; bad = 1 }
            if (entered["db"] != 1 || entered["model"] != 1 || entered["render"] != 1) { print "walk: \x27" args "\x27: expected one entry each into db, model and render, got " entered["db"]+0 ", " entered["model"]+0 ", " entered["render"]+0; bad = 1 }
          }
          if (flow == "ptxas" && (built < 1 || built != written)) { print "walk: \x27" args "\x27: " built+0 " items built, " written+0 " written: expected each kernel\x27s built once and written once"; bad = 1 }
          if (flow == "ptxas") for (c in callback) { print "walk: \x27" args "\x27: a callback: " c ": the command line should pull, not be called back"; bad = 1 }
          if (!bad) {
            s = "db " entered["db"]+0 ", model " entered["model"]+0 ", render " entered["render"]+0
            for (c in callback) s = s "; callback: " c
            print s
          }
          exit bad }' "$out")
  if [ $? -ne 0 ]; then
    echo "$verdict"; sed 's/^/  /' "$out"; fail=1
  else
    echo "walk: $flow '$args': $(grep -vc '^callback' "$out") calls between layers, none up; entries: $verdict"
  fi
done <"$tmp/flows"
[ "$fail" -eq 0 ] && echo "walk: $n cases ($(cut -d' ' -f1 "$tmp/flows" | uniq | paste -sd, -)), passed"
exit "$fail"
