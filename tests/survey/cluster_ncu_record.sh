#!/bin/sh
# cluster_ncu_record.sh (GPU, Nsight Compute): records ncu's cluster metrics
# for occcalc's cluster probe launches, one ncu CSV per case in $OUT or
# build/ncu-cluster; tests/survey/h100-ncu-cluster.csv holds the H100's.
# The GPU machine has no libcjson: carry libcjson.so.1 in build/carry.
export LD_LIBRARY_PATH="$PWD/build/carry:${LD_LIBRARY_PATH:-}"
L=${OUT:-build}/ncu-cluster; mkdir -p $L
M=launch__cluster_max_active,launch__occupancy_cluster_pct,launch__occupancy_cluster_gpu_pct,launch__cluster_max_potential_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__cluster_dim_z,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,sm__maximum_warps_per_active_cycle_pct
i=0
while read -r args; do
  i=$((i + 1))
  ncu --clock-control none --csv --log-file $L/ncu$i.csv --metrics $M \
    ./occcalc $args --device 0 --json > $L/occ$i.json 2> $L/occ$i.err
  echo "$i $args rc=$?" >> $L/index.txt
done <<'CASES'
--regs 32 --block 128 --cluster 2
--regs 64 --block 256 --cluster 4
--regs 32 --block 128 --dyn-smem 100K --cluster 8
--regs 48 --block 512 --cluster 12 --non-portable
--regs 32 --block 64 --smem 20K --cluster 16 --non-portable
--regs 40 --block 96 --cluster 3
--regs 128 --block 256 --cluster 2
--regs 32 --block 1024 --cluster 4
CASES

echo "cluster-ncu-record: logs in $L"
