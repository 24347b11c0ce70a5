#!/bin/sh
# links_cjson.sh: occcalc links libcjson as a normal shared library (NEEDED
# in its dynamic section, found by the loader), and writes its JSON through
# it: with cJSON_Print and cJSON_PrintUnformatted interposed (LD_PRELOAD of
# a library that answers with a marker), --json and --jsonl print the
# marker.
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
#include <string.h>
char *cJSON_Print(const void *item) { (void)item; return strdup("\"via cJSON_Print\""); }
char *cJSON_PrintUnformatted(const void *item) { (void)item; return strdup("\"via cJSON_PrintUnformatted\""); }
SHIM
${CC:-cc} -shared -fPIC -o "$dir/shim.so" "$dir/shim.c" || exit 1
# An ASan build (make sanitize) needs its runtime first in LD_PRELOAD.
asan=$(ldd "$occ" | awk '/libasan/ {print $3}')
preload="${asan:+$asan }$dir/shim.so"
args="--gpu h100 --regs 32 --block 128"
got=$(LD_PRELOAD=$preload "$occ" $args --json)
if [ "$got" != '"via cJSON_Print"' ]; then
  echo "links_cjson: --json did not go through cJSON_Print: $(echo "$got" | head -c 60)"
  fail=1
fi
got=$(LD_PRELOAD=$preload "$occ" $args --jsonl)
if [ "$got" != '"via cJSON_PrintUnformatted"' ]; then
  echo "links_cjson: --jsonl did not go through cJSON_PrintUnformatted: $(echo "$got" | head -c 60)"
  fail=1
fi
[ $fail -eq 0 ] && echo "links_cjson: libcjson.so.1 is NEEDED, and --json and --jsonl are printed by it"
exit $fail
