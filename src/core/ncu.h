/* ncu.h - the launch statistics Nsight Compute reports for a launch, under
 * its own conventions, from the calculator's result: its shared-memory
 * limit follows the configuration the driver chose (not the occupancy
 * API's), its register count is at least 16, its barrier limit is capped
 * at the block limit. Measured on an H200 (ncu on 512 launches of
 * kernels/config_survey.cu, tests/survey/h200-config-ncu.csv); the headline
 * limits of occ_result keep the occupancy API's rule. */
#ifndef OCC_NCU_H
#define OCC_NCU_H

#include <stdbool.h>
#include <stdint.h>

#include "core/occ.h"

/* The register count ncu (and CUPTI's activity record) reports: the
 * allocation of fewer than 16 registers a thread is the same as of 16 when
 * registers go per warp in units of 256 (16 x 32 = 512 = 2 units), and on
 * every device of the database 16 registers never limit residency. */
#define OCC_NCU_REGS_FLOOR 16

/* What occcalc knows of launch__occupancy_limit_shared_mem. */
typedef enum occ_ncu_smem_limit {
  OCC_NCU_SMEM_LIMIT_KNOWN,     /* occupancy_limit_shared_mem holds it */
  OCC_NCU_SMEM_LIMIT_NONE,      /* the block allocates no shared memory
                                   (no per-block reserve: before cc 8.0), so
                                   nothing divides the configuration; ncu's
                                   figure for such a launch was not measured */
  OCC_NCU_SMEM_LIMIT_UNKNOWN    /* the configuration the driver chooses is
                                   not known (shared_mem_config_size 0) */
} occ_ncu_smem_limit;

typedef struct occ_ncu {
  int occupancy_limit_registers;
  occ_ncu_smem_limit shared_mem_limit;
  int occupancy_limit_shared_mem;      /* 0 unless shared_mem_limit is known */
  int occupancy_limit_warps;
  int occupancy_limit_blocks;
  int occupancy_limit_barriers;
  int registers_per_thread;
  bool shared_mem_config_known;        /* occ_launch_config_known */
  /* The configuration (and the shared-memory limit it gives) is assumed,
   * not derived: occ_smem_config_basis. */
  bool shared_mem_config_assumed;
  int64_t shared_mem_config_size;      /* 0 where not known */
  int64_t shared_mem_per_block_static;
  int64_t shared_mem_per_block_dynamic;
  int64_t shared_mem_per_block_driver;
  double maximum_warps_per_active_cycle_pct; /* ncu's unit: percent */
  bool has_waves;
  double waves_per_multiprocessor;
  /* launch__cluster_max_active: the clusters active at once (what
   * cudaOccupancyMaxActiveClusters answers), known for a cluster launch
   * on a board whose domains were measured; occ_ncu_values leaves it
   * unknown, the model sets it (model/cluster.c). */
  bool has_cluster_max_active;
  int64_t cluster_max_active;
  /* launch__occupancy_cluster_pct and launch__occupancy_cluster_gpu_pct,
   * known with cluster_max_active. Nsight Compute's definitions, read off
   * its values on an H100 (tests/survey/h100-ncu-cluster.csv, 8 cluster
   * launches, all equal to 2 decimals): the blocks of the clusters active
   * at once over every block slot of the GPU (SMs x the architecture's
   * blocks per SM), in percent; and that times
   * sm__maximum_warps_per_active_cycle_pct / 100. */
  double occupancy_cluster_pct;
  double occupancy_cluster_gpu_pct;
} occ_ncu;

/* Fills *ncu for kernel on device, given occ_compute's result (and waves,
 * NULL without a grid). Returns OCC_OK, or the core's error for the
 * kernel with ncu's register floor. */
occ_status occ_ncu_values(const occ_device *device, const occ_kernel *kernel,
                          const occ_result *result, const occ_waves *waves,
                          occ_ncu *ncu);

#endif
