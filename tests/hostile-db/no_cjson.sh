#!/bin/sh
# no_cjson.sh: occcalc does not link libcjson (only --data opens it, with
# dlopen), and a --data run whose libcjson.so.1 lacks the parser stops with
# status 2, one line naming what is missing, and nothing on stdout.
set -u
occ=${1:-./occcalc}
fail=0
if readelf -d "$occ" | grep -q 'NEEDED.*libcjson'; then
  echo "no_cjson: $occ links libcjson (every run would pay to map it)"
  fail=1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A libcjson.so.1 with none of cJSON's calls, found first through
# LD_LIBRARY_PATH.
echo 'int occ_not_cjson(void) { return 0; }' > "$dir/empty.c"
${CC:-cc} -shared -fPIC -o "$dir/libcjson.so.1" "$dir/empty.c" || exit 1
LD_LIBRARY_PATH=$dir "$occ" --data data/gpus.json --gpu h100 --regs 32 --block 128 \
  >"$dir/out" 2>"$dir/err"
rc=$?
want="occcalc: --data: data/gpus.json: libcjson.so.1 has no cJSON_ParseWithLengthOpts (cJSON 1.7.13 or later is needed)"
if [ $rc -ne 2 ] || [ -s "$dir/out" ] || [ "$(cat "$dir/err")" != "$want" ]; then
  echo "no_cjson: --data with a libcjson.so.1 lacking the parser: status $rc, stderr:"
  cat "$dir/err"
  fail=1
fi
# Without --data the library is never opened.
if ! LD_LIBRARY_PATH=$dir "$occ" --gpu h100 --regs 32 --block 128 --json >/dev/null; then
  echo "no_cjson: a run without --data opened libcjson"
  fail=1
fi
[ $fail -eq 0 ] && echo "no_cjson: libcjson is not linked, and opened only for --data"
exit $fail
