#!/bin/sh
# layers.sh: src/ is one folder per layer and includes point down only:
# core <- text <- db <- ptxas <- model <- render <- live <- inject <- cli (a layer
# includes its own folder and those before it, never one after: the
# renderers read the model and never the live backend), no include cycle
# between files, the core includes no stdio, cJSON or CUDA header, and
# only the database loader and the writers include cJSON.
# Then the same order over what was linked: nm lists each layer's objects'
# undefined symbols, and each one that a layer defines must be defined in
# the object's own layer or one below it (no call, however it is spelt,
# climbs a layer). This part needs the objects (make occcalc and the
# injection library); it takes well under a second.
set -u
fail=0
order="core text db ptxas model render live inject cli"
# The include graph, one line per include: FILE INCLUDED (paths under
# src/), read in one pass.
graph=$(awk 'match($0, /^#include "[a-z]+\/[^"]*"/) {
    inc = substr($0, 11, RLENGTH - 11); f = FILENAME; sub(/^src\//, "", f)
    print f, inc }' src/*/*.[ch])
up=$(printf '%s\n' "$graph" | awk -v order="$order" '
  BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
  NF == 2 { split($1, a, "/"); split($2, b, "/")
    r = (b[1] in rank) ? rank[b[1]] : 99
    if (r > rank[a[1]]) print "layers: src/" $1 " (" a[1] ") includes from " b[1] ", a layer above it" }')
if [ -n "$up" ]; then
  printf '%s\n' "$up"
  fail=1
fi
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
# The objects of each layer: build/LAYER/*.o, the generated tables with
# the database and the embedded probe with the live layer, the injection
# library's own objects in its tree (build/inject/inject/).
# An object whose source is gone (a file moved away) is left out.
objects=""
for l in $order; do
  for o in build/"$l"/*.o build/inject/"$l"/*.o; do
    [ "$l" != inject ] && [ "${o#build/inject/}" != "$o" ] && continue
    s=${o#build/}; s=src/${s#inject/}
    [ -e "${s%.o}.c" ] && objects="$objects $o"
  done
done
objects="$objects $(ls build/gpus_table.o build/probe_ptx.o 2>/dev/null)"
if [ -z "$(echo $objects)" ]; then
  echo "layers: no objects under build/ (run make occcalc first)"
  fail=1
else
  # shellcheck disable=SC2086
  calls=$(nm -A -g $objects | awk -v order="$order" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    function layer(file,   p) {
      if (file ~ /^build\/gpus_table\.o/) return "db"
      if (file ~ /^build\/probe_ptx\.o/) return "live"
      if (file ~ /^build\/inject\/inject\//) return "inject"
      split(file, p, "/"); return p[2]
    }
    { file = $1; sub(/:.*/, "", file) }
    $(NF - 1) == "U" { use[++uses] = layer(file) " " file " " $NF; next }
    $(NF - 1) ~ /^[TDBRCGSVW]$/ { def[$NF] = layer(file); where[$NF] = file }
    END {
      for (i = 1; i <= uses; i++) {
        split(use[i], u, " ")
        if ((u[3] in def) && rank[def[u[3]]] > rank[u[1]])
          print "layers: " u[2] " (" u[1] ") uses " u[3] ", defined in " where[u[3]] " (" def[u[3]] "), a layer above it"
      }
    }')
  if [ -n "$calls" ]; then
    printf '%s\n' "$calls"
    fail=1
  else
    echo "layers: $(echo $objects | wc -w) objects: every symbol used is defined in its own layer or below"
  fi
fi
[ $fail -eq 0 ] && echo "layers: includes point down ($order), no cycle"
exit $fail
