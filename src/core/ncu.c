/* ncu.c - Nsight Compute's launch statistics (see ncu.h). */
#include "core/ncu.h"

#include <stddef.h>

static int min_int(int a, int b) { return a < b ? a : b; }

occ_status occ_ncu_values(const occ_device *d, const occ_kernel *k,
                          const occ_result *r, const occ_waves *waves,
                          occ_ncu *ncu) {
  occ_kernel floored = *k;
  if (floored.regs_per_thread < OCC_NCU_REGS_FLOOR)
    floored.regs_per_thread = OCC_NCU_REGS_FLOOR;
  occ_result at_floor;
  occ_status status = occ_compute(d, &floored, &at_floor);
  if (status != OCC_OK) return status;
  *ncu = (occ_ncu){
      .occupancy_limit_registers = at_floor.limit_regs,
      .occupancy_limit_warps = r->limit_warps,
      .occupancy_limit_blocks = r->limit_blocks,
      .occupancy_limit_barriers = min_int(r->limit_barriers, r->limit_blocks),
      .registers_per_thread = floored.regs_per_thread,
      .shared_mem_config_known = occ_launch_config_known(r),
      .shared_mem_config_assumed =
          r->smem_config_basis == OCC_FIGURE_ASSUMED,
      .shared_mem_config_size = r->launch_smem_config_bytes,
      .shared_mem_per_block_static = k->smem_static_bytes,
      .shared_mem_per_block_dynamic = occ_kernel_smem_dynamic_bytes(k),
      .shared_mem_per_block_driver = d->reserved_smem_per_block_bytes};
  /* A block's whole allocation divides the configuration; with nothing of
   * its own, the reserve alone does. Where there is nothing to divide by, or
   * the configuration is not known, there is no figure: never the core's
   * OCC_UNLIMITED, which is no figure of ncu's. */
  int64_t per = r->smem_per_block_bytes;
  bool fits = r->launch_limit_smem != OCC_UNLIMITED; /* 0: it does not fit */
  ncu->shared_mem_limit =
      per == 0 ? OCC_NCU_SMEM_LIMIT_NONE
      : r->launch_smem_config_bytes > 0 || fits ? OCC_NCU_SMEM_LIMIT_KNOWN
                                                : OCC_NCU_SMEM_LIMIT_UNKNOWN;
  if (ncu->shared_mem_limit == OCC_NCU_SMEM_LIMIT_KNOWN)
    ncu->occupancy_limit_shared_mem =
        r->launch_smem_config_bytes > 0 ? (int)(r->launch_smem_config_bytes / per)
                                        : r->launch_limit_smem;
  int blocks = min_int(min_int(ncu->occupancy_limit_registers,
                               ncu->occupancy_limit_warps),
                       min_int(ncu->occupancy_limit_blocks,
                               ncu->occupancy_limit_barriers));
  if (ncu->shared_mem_limit == OCC_NCU_SMEM_LIMIT_KNOWN)
    blocks = min_int(blocks, ncu->occupancy_limit_shared_mem);
  ncu->maximum_warps_per_active_cycle_pct =
      100.0 * blocks * r->warps_per_block / r->max_warps_per_sm;
  ncu->has_waves = waves != NULL && blocks > 0 && d->sm_count > 0;
  if (ncu->has_waves)
    ncu->waves_per_multiprocessor =
        (double)waves->grid_blocks / ((double)blocks * d->sm_count);
  return OCC_OK;
}
