/* sweep.h - the sweep engine: active blocks per SM for many configurations
 * of one device, fast.
 *
 * Charts and suggestions evaluate thousands of configurations that differ
 * only in threads per block, registers per thread and shared memory. For a
 * fixed device, carveout preference and barrier count, every limit is a
 * function of one of those inputs (or of two: registers and warps per
 * block), so occ_sweep_new tabulates them once and an evaluation is a few
 * table loads and a min, with no division when the warp size and the
 * shared-memory allocation unit are powers of two (they are on every
 * NVIDIA architecture). The answers are those of occ_compute, which the
 * tests check on every architecture's full grid.
 */
#ifndef OCC_SWEEP_H
#define OCC_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/occ.h"

typedef struct occ_sweep {
  occ_device device;          /* what the tables were built from */
  int carveout_pct;
  int barriers;
  int warp_size;
  int warp_shift;             /* log2(warp_size), or -1: divide */
  int max_threads_per_block;
  int max_warps_per_block;    /* ceil(max_threads_per_block / warp_size) */
  int max_warps_per_sm;
  int max_regs_per_thread;    /* register tables cover 0..this */
  int64_t reserved_smem_bytes;
  int smem_unit_bytes;
  int smem_unit_shift;        /* log2(smem_unit_bytes), or -1: divide */
  int smem_max_units;         /* smem tables cover 0..this many units */
  int const_limit;            /* min(blocks limit, barriers limit) */
  int limit_blocks;
  int limit_barriers;         /* OCC_UNLIMITED when none */

  /* Per-limit tables, for the limiter bits. Values are blocks per SM,
   * OCC_UNLIMITED where the limit does not apply. */
  int *limit_warps;           /* [warps per block], 1..max_warps_per_block */
  int *limit_regs;            /* [regs * (max_warps_per_block + 1) + warps] */
  int *limit_smem;            /* [allocated units], 0..smem_max_units */
  /* The fused table the fast path reads: min(warps, blocks, barriers,
   * registers limits), clamped to 16 bits. */
  uint16_t *fused_regs_warps; /* same index as limit_regs */
  uint16_t *fused_smem;       /* limit_smem clamped to 16 bits */
} occ_sweep;

/* Tabulates the limits of device for a carveout preference (0..100 or
 * OCC_CARVEOUT_DEFAULT) and a barrier count. Returns OCC_OK and *sweep to
 * free with occ_sweep_free, or an error (OCC_ERR_NOMEM when the tables
 * could not be allocated) with *sweep NULL. */
occ_status occ_sweep_new(const occ_device *device, int carveout_pct,
                         int barriers, occ_sweep **sweep);

/* Frees a sweep; NULL is fine. */
void occ_sweep_free(occ_sweep *sweep);

/* Sweeps kept for reuse: a command that evaluates many configurations on
 * a few devices (the charts and the suggestions of one configuration, and
 * of every kernel of a compiler report) builds each device's tables once.
 * Zero-initialized: empty. built counts the sweeps made (the tests read
 * it). */
#define OCC_SWEEP_CACHE_SIZE 8
typedef struct occ_sweep_cache {
  occ_sweep *sweeps[OCC_SWEEP_CACHE_SIZE];
  size_t count;   /* sweeps held */
  size_t next;    /* the one replaced when full */
  size_t built;
} occ_sweep_cache;

/* The sweep of device, carveout preference and barrier count: the one the
 * cache holds for the same (a device equal byte for byte), else a new one
 * it keeps (occ_sweep_new's statuses). *sweep is the cache's until
 * occ_sweep_cache_free. */
occ_status occ_sweep_cache_get(occ_sweep_cache *cache, const occ_device *device,
                               int carveout_pct, int barriers,
                               const occ_sweep **sweep);

/* Frees every sweep of the cache and empties it. */
void occ_sweep_cache_free(occ_sweep_cache *cache);

/* Total shared memory a kernel asks for (static + dynamic, bytes) in
 * allocation units of its block, reserved memory included; -1 when past
 * the tables (the block cannot launch). */
static inline int occ_sweep_smem_units(const occ_sweep *s, int64_t smem_bytes) {
  if (smem_bytes < 0 || smem_bytes > OCC_KERNEL_SMEM_MAX) return -1;
  int64_t bytes = smem_bytes + s->reserved_smem_bytes + s->smem_unit_bytes - 1;
  int64_t units = s->smem_unit_shift >= 0 ? bytes >> s->smem_unit_shift
                                          : bytes / s->smem_unit_bytes;
  return units > s->smem_max_units ? -1 : (int)units;
}

/* Warps of a block of threads, 0 when the block is empty or too large. */
static inline int occ_sweep_warps(const occ_sweep *s, int threads_per_block) {
  if (threads_per_block < 1 || threads_per_block > s->max_threads_per_block)
    return 0;
  int t = threads_per_block + s->warp_size - 1;
  return s->warp_shift >= 0 ? t >> s->warp_shift : t / s->warp_size;
}

/* Active blocks per SM from precomputed indexes: warps per block
 * (occ_sweep_warps, 0 = cannot launch), registers per thread and shared
 * memory units (occ_sweep_smem_units, -1 = cannot launch). The inner loop
 * of a sweep hoists the index computations out and calls this. */
static inline int occ_sweep_blocks_at(const occ_sweep *s, int warps,
                                      int regs_per_thread, int smem_units) {
  if (warps == 0 || smem_units < 0 || regs_per_thread < 0 ||
      regs_per_thread > s->max_regs_per_thread)
    return 0;
  int a = s->fused_regs_warps[regs_per_thread * (s->max_warps_per_block + 1) +
                              warps];
  int b = s->fused_smem[smem_units];
  return a < b ? a : b;
}

/* Active blocks per SM of a configuration: what occ_compute answers in
 * active_blocks_per_sm for a block of threads_per_block threads, with
 * regs_per_thread registers and smem_bytes of static plus dynamic shared
 * memory, under the sweep's device, carveout and barrier count. */
static inline int occ_sweep_blocks(const occ_sweep *s, int threads_per_block,
                                   int regs_per_thread, int64_t smem_bytes) {
  return occ_sweep_blocks_at(s, occ_sweep_warps(s, threads_per_block),
                             regs_per_thread,
                             occ_sweep_smem_units(s, smem_bytes));
}

/* Active blocks per SM for every block size threads_first..threads_last
 * (inclusive, each >= 1) at one register count and shared-memory size:
 * blocks_out[i] is occ_sweep_blocks(s, threads_first + i, regs_per_thread,
 * smem_bytes). The row shares its register row and shared-memory limit, so
 * each block size costs one store. */
void occ_sweep_blocks_by_threads(const occ_sweep *s, int regs_per_thread,
                                 int64_t smem_bytes, int threads_first,
                                 int threads_last, int *blocks_out);

/* One evaluation with its explanation. */
typedef struct occ_sweep_point {
  int active_blocks_per_sm;
  int active_warps_per_sm;
  double occupancy;           /* 0..1 */
  unsigned limited_by;        /* occ_limiter bits, as occ_compute sets them */
} occ_sweep_point;

/* Evaluates a configuration with the limiter bits (slower than
 * occ_sweep_blocks: reads every per-limit table). Outside the tables (a
 * block too large, too many registers, too much shared memory) it asks
 * occ_compute, so the bits are the core's everywhere; returns the core's
 * status there, OCC_OK otherwise. */
occ_status occ_sweep_eval(const occ_sweep *s, int threads_per_block,
                    int regs_per_thread, int64_t smem_bytes,
                    occ_sweep_point *point);

/* The largest total (static + dynamic) shared memory, in bytes, a block of
 * the sweep can ask for and still launch. */
int64_t occ_sweep_smem_max_bytes(const occ_sweep *s);

#endif
