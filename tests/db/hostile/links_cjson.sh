#!/bin/sh
# links_cjson.sh: occcalc links libcjson as a normal shared library (NEEDED
# in its dynamic section, found by the loader), and builds the sections of
# its JSON documents with it (--suggest's): with cJSON_CreateObject
# interposed (LD_PRELOAD of a library whose objects always fail, as when
# memory runs out), --json and --jsonl write nothing to stdout, say "out
# of memory" and exit 1. (The report itself is written as it is described,
# by render/json_write.c's writer, with no tree.)
set -u
occ=${1:-./occcalc}
fail=0
if ! readelf -d "$occ" | grep -q 'NEEDED.*\[libcjson\.so\.1\]'; then
  echo "links_cjson: $occ does not link libcjson.so.1 (readelf -d):"
  readelf -d "$occ" | grep NEEDED
  fail=1
fi
if ! ldd "$occ" | grep -q '^[[:space:]]*libcjson\.so\.1 => /'; then
  echo "links_cjson: ldd $occ does not find libcjson.so.1:"
  ldd "$occ"
  fail=1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/shim.c" <<'SHIM'
#include <stddef.h>
void *cJSON_CreateObject(void) { return NULL; }
SHIM
${CC:-cc} -shared -fPIC -o "$dir/shim.so" "$dir/shim.c" || exit 1
# An ASan build (make sanitize) needs its runtime first in LD_PRELOAD.
asan=$(ldd "$occ" | awk '/libasan/ {print $3}')
preload="${asan:+$asan }$dir/shim.so"
args="--gpu h100 --regs 32 --block 128 --suggest"
for format in --json --jsonl; do
  out=$(LD_PRELOAD=$preload "$occ" $args $format 2>"$dir/err")
  status=$?
  if [ $status -ne 1 ] || [ -n "$out" ] ||
     [ "$(cat "$dir/err")" != "occcalc: out of memory writing JSON" ]; then
    echo "links_cjson: $format with cJSON_CreateObject failing: status $status" \
      "(want 1), stdout '$(echo "$out" | head -c 60)' (want none)," \
      "stderr '$(head -c 80 "$dir/err")' (want 'occcalc: out of memory writing JSON')"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "links_cjson: libcjson.so.1 is NEEDED, and --json and --jsonl are built with it"
exit $fail
