#!/bin/sh
# trace_view.sh [TRACE OUT.png [SLICE.png]]: an `occcalc run --trace` file
# opened in a real trace viewer, the DevTools Performance panel of a
# headless Chromium (trace_view.py: fails where the viewer reports an
# error, parses fewer events than the file holds, draws fewer slices, or
# puts a slice before its time range). With no arguments, the trace of a
# forged run (timeline_forge.py: 300 launches, two processes, three
# streams, names with <, > and &; no GPU), read back first by
# trace_check.py, its pictures left in $TRACE_VIEW_OUT when set.
# Skipped (status 77) where no Chromium is installed: CI does not install
# it (hundreds of MB); `apt-get install chromium` on Debian.
set -u
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null &&
   ! command -v chromium-browser >/dev/null; then
  echo "skipped: no chromium"
  exit 77
fi
[ $# -gt 0 ] && exec python3 tests/run/trace_view.py "$@"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${TRACE_VIEW_OUT:-$tmp}
mkdir -p "$out" || exit 1
python3 tests/run/timeline_forge.py 300 >"$tmp/words"
xargs -d '\n' ./occcalc run --measure replay --counter-launches all \
  --trace "$tmp/forged.json" -- build/forge <"$tmp/words" >/dev/null 2>"$tmp/err" || {
  echo "trace_view: forged run failed: $(head -c 300 "$tmp/err")"
  exit 1
}
python3 tests/run/trace_check.py "$tmp/forged.json" 300 >/dev/null || exit 1
python3 tests/run/trace_view.py "$tmp/forged.json" "$out/forged.png" "$out/forged-slice.png"
