#!/bin/sh
# cluster_ncu.sh: occcalc's Nsight Compute cluster figures against what
# Nsight Compute reported for the same cluster launches on an H100
# (tests/survey/h100-ncu-cluster.csv, recorded by tests/survey/cluster_ncu_record.sh):
# launch__cluster_max_active exactly, launch__occupancy_cluster_pct,
# launch__occupancy_cluster_gpu_pct and sm__maximum_warps_per_active_cycle_pct
# to ncu's two decimals.
set -u
OCC=${OCCCALC:-./occcalc}
data=tests/survey/h100-ncu-cluster.csv
fail=0 n=0
while IFS= read -r line; do
  case $line in '#'*|args,*|'') continue ;; esac
  args=${line%%\",*}; args=${args#\"}
  want=${line#*\",}
  eval "set -- $args"
  got=$("$OCC" --gpu 'H100 SXM' "$@" --json 2>/dev/null | jq -r '.ncu |
    [.launch__cluster_max_active, .launch__occupancy_cluster_pct,
     .launch__occupancy_cluster_gpu_pct, .sm__maximum_warps_per_active_cycle_pct,
     .launch__registers_per_thread] | map(tostring) | join(",")')
  if ! awk -v got="$got" -v want="$want" 'BEGIN {
      ng = split(got, g, ","); nw = split(want, w, ",")
      if (ng != 5 || nw != 5 || g[1] != w[1] || g[5] != w[5]) exit 1
      for (i = 2; i <= 4; i++) { d = g[i] - w[i]; if (d < 0) d = -d; if (d > 0.0051) exit 1 }
    }'; then
    echo "cluster-ncu: $args: occcalc $got, ncu $want"
    fail=1
  fi
  n=$((n + 1))
done <"$data"
[ "$n" -ge 8 ] || { echo "cluster-ncu: only $n launches read from $data"; fail=1; }
[ $fail -eq 0 ] && echo "cluster-ncu: $n cluster launches equal Nsight Compute's cluster figures"
exit $fail
