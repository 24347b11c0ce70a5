#!/bin/sh
# agree.sh DUMP PTXAS_LOG CUOBJDUMP_REPORT: checks that every kernel and
# target of a ptxas log is in cuobjdump's report of the same build with the
# same registers, static shared memory and stack frame. cuobjdump's SHARED
# on sm_90 and newer includes the per-block reserve (the reader marks it
# "+reserve"; occcalc takes the target's reserve off): 1024 B on
# every such target of data/gpus.json.
dump=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$dump" "$2" | awk '$1 == "ptxas" { print $2, $3, $4, $5, $6 }' | sort >"$tmp/ptxas"
"$dump" "$3" | awk '$1 == "cuobjdump" {
  if (sub(/\+reserve$/, "", $5)) { sub(/^smem=/, "", $5); $5 = "smem=" ($5 - 1024) }
  print $2, $3, $4, $5, $6 }' | sort >"$tmp/cuobjdump"
missing=$(comm -23 "$tmp/ptxas" "$tmp/cuobjdump")
n=$(wc -l <"$tmp/ptxas")
if [ -n "$missing" ] || [ "$n" -eq 0 ]; then
  echo "agree: $2: kernels whose numbers cuobjdump does not confirm:"
  echo "$missing"
  exit 1
fi
echo "agree: $2: $n kernels x targets agree with cuobjdump"
