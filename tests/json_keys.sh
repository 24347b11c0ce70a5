#!/bin/sh
# json_keys.sh: every key of the JSON contract (schema 1, man page "JSON
# OUTPUT") is present, with the right type, with and without --grid.
set -u
fail=0
check() {
  desc=$1 json=$2 filter=$3
  if ! printf '%s' "$json" | jq -e "$filter" >/dev/null 2>&1; then
    echo "json_keys: $desc: failed: $filter"
    fail=1
  fi
}
with_grid=$(./occcalc --gpu h100 --regs 48 --smem 4096 --block 40x2 --grid 1000 --json)
plain=$(./occcalc --arch sm_90 --regs 0 --block 128 --barriers 0 --json)
for json in "$with_grid" "$plain"; do
  check top "$json" '.schema == 1 and (.occcalc_version|type) == "string"'
  for k in name source cc sm_count warp_size max_threads_per_block max_threads_per_sm \
      max_warps_per_sm max_blocks_per_sm regs_per_sm regs_per_block max_regs_per_thread \
      reg_alloc_unit sub_partitions smem_per_sm_bytes smem_per_block_bytes \
      smem_per_block_optin_bytes reserved_smem_per_block_bytes smem_alloc_unit_bytes; do
    check device "$json" ".device | has(\"$k\")"
  done
  for k in name block threads_per_block regs_per_thread smem_static_bytes \
      smem_dynamic_bytes barriers; do
    check kernel "$json" ".kernel | has(\"$k\")"
  done
  for k in carveout_pct warps_per_block inactive_threads active_blocks_per_sm \
      active_warps_per_sm active_threads_per_sm occupancy launchable waves limited_by; do
    check top "$json" "has(\"$k\")"
  done
  for k in regs_per_warp regs_per_block smem_per_block_bytes smem_config_bytes; do
    check allocated "$json" ".allocated | has(\"$k\")"
  done
  for k in warps blocks registers shared_memory barriers; do
    check limits "$json" ".limits | has(\"$k\")"
  done
  for k in smem_config_bytes active_blocks_per_sm active_warps_per_sm occupancy \
      differs_from_api; do
    check at_launch "$json" ".at_launch | has(\"$k\")"
  done
  check types "$json" '(.occupancy|type) == "number" and (.launchable|type) == "boolean" and (.limited_by|type) == "array" and (.kernel.block|length) == 3'
done
check grid "$with_grid" '.waves.blocks_per_wave == 1716 and .active_blocks_per_sm == 13 and .waves.full_waves == 0 and .inactive_threads == 16'
check source "$with_grid" '.device.source == "database" and .device.cc == "9.0" and .kernel.name == null and .carveout_pct == null'
check nulls "$plain" '.waves == null and .limits.registers == null and .limits.barriers == null and .device.sm_count == null'
carve=$(./occcalc --gpu h100 --regs 32 --block 64 --dyn-smem 7168 --carveout 28 --json)
check at_launch "$carve" '.active_blocks_per_sm == 8 and .at_launch.active_blocks_per_sm == 12 and .at_launch.smem_config_bytes == 102400 and .at_launch.differs_from_api'
[ $fail -eq 0 ] && echo "json_keys: every key of schema 1 present"
exit $fail
