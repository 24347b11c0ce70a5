#!/bin/sh
# layers.sh: src/ is one folder per layer and includes point down only:
# core <- text <- db <- ptxas <- model <- render <- live <- inject <- cli (a layer
# includes its own folder and those before it, never one after: the
# renderers read the model and never the live backend), no include cycle
# between files, the core includes no stdio, cJSON or CUDA header, and
# only the database loader and the writers include cJSON.
set -u
fail=0
order="core text db ptxas model render live inject cli"
rank() { n=0; for l in $order; do [ "$l" = "$1" ] && { echo $n; return; }; n=$((n + 1)); done; echo 99; }
for f in src/*/*.[ch]; do
  layer=$(basename "$(dirname "$f")")
  mine=$(rank "$layer")
  for inc in $(sed -n 's/^#include "\([a-z]*\)\/[^"]*"/\1/p' "$f"); do
    if [ "$(rank "$inc")" -gt "$mine" ]; then
      echo "layers: $f ($layer) includes from $inc, a layer above it"
      fail=1
    fi
  done
done
if grep -n '#include <\(stdio\.h\|cjson/\|cuda\|cupti\)' src/core/*.[ch]; then
  echo "layers: the core includes I/O, cJSON or CUDA (above)"
  fail=1
fi
# cJSON reads the database (db/) and writes every JSON document (render/,
# through render/json_write.h, which the command line also uses); the
# compiler-report reader and the live backend hand plain structs up, and
# the core's API carries no cJSON type.
if grep -ln '#include <cjson/' src/*/*.[ch] | grep -v '^src/\(db\|render\)/'; then
  echo "layers: cJSON included outside src/db/ and src/render/ (above)"
  fail=1
fi
# Cycles: follow each file's includes depth-first.
graph=$(for f in src/*/*.[ch]; do
  for inc in $(sed -n 's/^#include "\([a-z]*\/[^"]*\)"/\1/p' "$f"); do
    echo "${f#src/} $inc"
  done
done)
cycle=$(printf '%s\n' "$graph" | awk '
  { edges[$1] = edges[$1] " " $2 }
  function visit(n, path,   k, m, parts) {
    if (state[n] == 1) { print path " " n; found = 1; return }
    if (state[n] == 2) return
    state[n] = 1
    k = split(edges[n], parts, " ")
    for (m = 1; m <= k && !found; m++) visit(parts[m], path " " n)
    state[n] = 2
  }
  END { for (n in edges) if (!found) visit(n, "") }')
if [ -n "$cycle" ]; then
  echo "layers: include cycle:$cycle"
  fail=1
fi
[ $fail -eq 0 ] && echo "layers: includes point down ($order), no cycle"
exit $fail
