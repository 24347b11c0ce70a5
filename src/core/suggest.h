/* suggest.h - what to change: the best block sizes, the register and
 * shared-memory values that gain occupancy, the headroom that costs none,
 * and the carveout explorer. Computed with the sweep engine and the core
 * from the kernel's numbers, never templated; suggest_text.c and
 * suggest_json.c only write what occ_suggest filled. */
#ifndef OCC_SUGGEST_H
#define OCC_SUGGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/occ.h"

#define OCC_SUGGEST_MAX_BLOCK_SIZES 1024
/* Each step gains at least one block per SM, so a device's block limit
 * bounds the steps; 64 is above every architecture's 32. */
#define OCC_SUGGEST_MAX_STEPS 64

/* A value of one resource and the occupancy it allows. */
typedef struct occ_suggest_step {
  int64_t value;             /* registers per thread, or static + dynamic
                                shared memory per block in bytes: the most
                                the kernel may use to reach this step */
  int active_blocks_per_sm;
  int active_warps_per_sm;
  double occupancy;          /* 0..1 */
} occ_suggest_step;

/* The kernel on one shared-memory configuration of the SM. */
typedef struct occ_carveout_option {
  int carveout_pct;          /* the smallest preference that selects it */
  int64_t smem_config_bytes; /* the configuration the preference selects */
  int64_t smem_used_bytes;   /* what the SM gets: larger when one block
                                needs more than the preference */
  int active_blocks_per_sm;
  int active_warps_per_sm;
  double occupancy;
  int launch_active_blocks_per_sm; /* what the SM holds at launch (occ.h) */
  int64_t launch_smem_config_bytes; /* what the driver configures at
                                       launch; 0: not known (occ.h) */
} occ_carveout_option;

typedef struct occ_suggestion {
  /* The kernel as it is. */
  int threads_per_block;
  int regs_per_thread;
  int64_t smem_static_bytes, smem_bytes; /* static; static + dynamic */
  int active_blocks_per_sm;
  int active_warps_per_sm;
  double occupancy;
  unsigned limited_by;       /* occ_limiter bits */
  bool launchable;

  /* Block sizes (multiples of the warp size, and the device maximum) that
   * reach the most active threads per SM, ascending. */
  int best_block_count;
  int best_block_sizes[OCC_SUGGEST_MAX_BLOCK_SIZES];
  int best_block_size;           /* the largest: what
                                    cudaOccupancyMaxPotentialBlockSize picks */
  int smallest_best_block_size;
  int best_active_blocks_per_sm; /* at best_block_size */
  int best_active_warps_per_sm;
  double best_occupancy;
  int64_t min_grid_size;         /* blocks for one full wave at best size;
                                    0 when the SM count is unknown */
  int sm_count;                  /* the device's; 0 when unknown (a generic
                                    architecture) */

  /* Fewer registers per thread: each value (the largest) that gains a step,
   * nearest first. Empty when fewer registers alone gain nothing. */
  int reg_step_count;
  occ_suggest_step reg_steps[OCC_SUGGEST_MAX_STEPS];
  /* Less shared memory per block, likewise. */
  int smem_step_count;
  occ_suggest_step smem_steps[OCC_SUGGEST_MAX_STEPS];

  /* Headroom (when launchable): the most registers per thread and shared
   * memory per block (static + dynamic) that keep the occupancy. */
  int regs_per_thread_max;
  int64_t smem_max_bytes;

  /* The carveout explorer, in ascending configuration; empty where the
   * architecture has no carveout. */
  int carveout_count;
  occ_carveout_option carveouts[OCC_MAX_SMEM_CONFIGS];
  int carveout_best;   /* index of the smallest configuration reaching the
                          best occupancy of all options; -1 when none */
} occ_suggestion;

/* Fills *suggestion for kernel on device. Returns OCC_OK, or the core's
 * error for the kernel, or OCC_ERR_NOMEM. */
occ_status occ_suggest(const occ_device *device, const occ_kernel *kernel,
                       occ_suggestion *suggestion);

typedef struct occ_sweep occ_sweep;

/* The same on a sweep of device for kernel's carveout preference and
 * barrier count (occ_sweep_cache_get), built once for many kernels. */
occ_status occ_suggest_on(const occ_sweep *sweep, const occ_device *device,
                          const occ_kernel *kernel, occ_suggestion *suggestion);

#endif
