/* sweep.c - the sweep engine (see sweep.h for the contract).
 *
 * Every table entry is computed by occ_compute itself on a representative
 * configuration, so the engine cannot drift from the core's rules: it only
 * remembers them. */
#include "core/sweep.h"

#include <stdlib.h>
#include <string.h>

static int min_int(int a, int b) { return a < b ? a : b; }
static uint16_t clamp16(int v) { return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v; }

/* log2(v) for a power of two, else -1 (the engine then divides). */
static int exact_log2(int v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int shift = 0;
  while ((1 << shift) != v) shift++;
  return shift;
}

static occ_status compute_one(const occ_sweep *s, int threads, int regs,
                              int64_t smem_bytes, occ_result *r) {
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = threads;
  k.regs_per_thread = regs;
  k.smem_dynamic_bytes = smem_bytes;
  k.barriers = s->barriers;
  k.carveout_pct = s->carveout_pct;
  return occ_compute(&s->device, &k, r);
}

/* The threads of a block of warps, capped at the device maximum so the
 * last (possibly partial) warp count is the one its largest block has. */
static int threads_of(const occ_sweep *s, int warps) {
  return min_int(warps * s->warp_size, s->max_threads_per_block);
}

static occ_status fill_warps_and_regs(occ_sweep *s) {
  int stride = s->max_warps_per_block + 1;
  for (int w = 1; w <= s->max_warps_per_block; w++) {
    for (int regs = 0; regs <= s->max_regs_per_thread; regs++) {
      occ_result r;
      occ_status status = compute_one(s, threads_of(s, w), regs, 0, &r);
      if (status != OCC_OK) return status;
      s->limit_warps[w] = r.limit_warps;
      s->limit_regs[regs * stride + w] = r.limit_regs;
      int fused = min_int(min_int(r.limit_warps, r.limit_regs), s->const_limit);
      s->fused_regs_warps[regs * stride + w] = clamp16(fused);
    }
  }
  for (int regs = 0; regs <= s->max_regs_per_thread; regs++) {
    s->limit_regs[regs * stride] = 0; /* an empty block never launches */
    s->fused_regs_warps[regs * stride] = 0;
  }
  s->limit_warps[0] = 0;
  return OCC_OK;
}

/* Units below the reserved memory cannot be asked for; they copy the first
 * reachable entry so the table has no holes. */
static occ_status fill_smem(occ_sweep *s) {
  int first = (int)((s->reserved_smem_bytes + s->smem_unit_bytes - 1) /
                    s->smem_unit_bytes);
  for (int u = first; u <= s->smem_max_units; u++) {
    occ_result r;
    int64_t request = (int64_t)u * s->smem_unit_bytes - s->reserved_smem_bytes;
    occ_status status = compute_one(s, s->warp_size, 0, request, &r);
    if (status == OCC_ERR_SMEM_CONFIG && u > first) {
      s->smem_max_units = u - 1; /* the core rejects larger requests */
      break;
    }
    if (status != OCC_OK) return status;
    s->limit_smem[u] = r.limit_smem;
    s->fused_smem[u] = clamp16(r.limit_smem);
  }
  for (int u = 0; u < first; u++) {
    s->limit_smem[u] = s->limit_smem[first];
    s->fused_smem[u] = s->fused_smem[first];
  }
  return OCC_OK;
}

static occ_status fill_constants(occ_sweep *s) {
  occ_result r;
  occ_status status = compute_one(s, 1, 0, 0, &r);
  if (status != OCC_OK) return status;
  s->limit_blocks = r.limit_blocks;
  s->limit_barriers = r.limit_barriers;
  s->const_limit = min_int(r.limit_blocks, r.limit_barriers);
  s->max_warps_per_sm = r.max_warps_per_sm;
  return OCC_OK;
}

static bool alloc_tables(occ_sweep *s) {
  size_t warps = (size_t)s->max_warps_per_block + 1;
  size_t regs = (size_t)s->max_regs_per_thread + 1;
  size_t units = (size_t)s->smem_max_units + 1;
  s->limit_warps = calloc(warps, sizeof *s->limit_warps);
  s->limit_regs = calloc(warps * regs, sizeof *s->limit_regs);
  s->fused_regs_warps = calloc(warps * regs, sizeof *s->fused_regs_warps);
  s->limit_smem = calloc(units, sizeof *s->limit_smem);
  s->fused_smem = calloc(units, sizeof *s->fused_smem);
  return s->limit_warps && s->limit_regs && s->fused_regs_warps &&
         s->limit_smem && s->fused_smem;
}

static void set_shape(occ_sweep *s, const occ_device *d) {
  s->warp_size = d->warp_size;
  s->warp_shift = exact_log2(d->warp_size);
  s->max_threads_per_block = d->max_threads_per_block;
  s->max_warps_per_block =
      (d->max_threads_per_block + d->warp_size - 1) / d->warp_size;
  s->max_regs_per_thread = d->max_regs_per_thread;
  s->reserved_smem_bytes = d->reserved_smem_per_block_bytes;
  s->smem_unit_bytes = d->smem_alloc_unit_bytes;
  s->smem_unit_shift = exact_log2(d->smem_alloc_unit_bytes);
  /* No block can have more than the opt-in cap plus the reserved part. */
  s->smem_max_units = (int)((d->smem_per_block_optin_bytes +
                             d->reserved_smem_per_block_bytes) /
                            d->smem_alloc_unit_bytes);
}

occ_status occ_sweep_new(const occ_device *device, int carveout_pct,
                         int barriers, occ_sweep **sweep) {
  *sweep = NULL;
  occ_sweep *s = calloc(1, sizeof *s);
  if (!s) return OCC_ERR_NOMEM;
  s->device = *device;
  s->carveout_pct = carveout_pct;
  s->barriers = barriers;
  /* The first core call validates the device and the settings before any
   * size below is trusted. */
  occ_status status = fill_constants(s);
  if (status == OCC_OK) {
    set_shape(s, device);
    status = alloc_tables(s) ? OCC_OK : OCC_ERR_NOMEM;
  }
  if (status == OCC_OK) status = fill_warps_and_regs(s);
  if (status == OCC_OK) status = fill_smem(s);
  if (status != OCC_OK) {
    occ_sweep_free(s);
    return status;
  }
  *sweep = s;
  return OCC_OK;
}

void occ_sweep_free(occ_sweep *s) {
  if (!s) return;
  free(s->limit_warps);
  free(s->limit_regs);
  free(s->fused_regs_warps);
  free(s->limit_smem);
  free(s->fused_smem);
  free(s);
}

occ_status occ_sweep_cache_get(occ_sweep_cache *c, const occ_device *device,
                               int carveout_pct, int barriers,
                               const occ_sweep **sweep) {
  for (size_t i = 0; i < c->count; i++) {
    const occ_sweep *s = c->sweeps[i];
    if (s->carveout_pct == carveout_pct && s->barriers == barriers &&
        memcmp(&s->device, device, sizeof *device) == 0) {
      *sweep = s;
      return OCC_OK;
    }
  }
  occ_sweep *made = NULL;
  occ_status status = occ_sweep_new(device, carveout_pct, barriers, &made);
  *sweep = made;
  if (status != OCC_OK) return status;
  c->built++;
  size_t slot;
  if (c->count < OCC_SWEEP_CACHE_SIZE) {
    slot = c->count++;
  } else { /* full: the oldest goes */
    slot = c->next;
    occ_sweep_free(c->sweeps[slot]);
    c->next = (slot + 1) % OCC_SWEEP_CACHE_SIZE;
  }
  c->sweeps[slot] = made;
  return OCC_OK;
}

void occ_sweep_cache_free(occ_sweep_cache *c) {
  for (size_t i = 0; i < c->count; i++) occ_sweep_free(c->sweeps[i]);
  *c = (occ_sweep_cache){.count = 0};
}

void occ_sweep_blocks_by_threads(const occ_sweep *s, int regs_per_thread,
                                 int64_t smem_bytes, int threads_first,
                                 int threads_last, int *blocks_out) {
  int units = occ_sweep_smem_units(s, smem_bytes);
  int threads = threads_first;
  if (units >= 0 && regs_per_thread >= 0 &&
      regs_per_thread <= s->max_regs_per_thread) {
    const uint16_t *row =
        s->fused_regs_warps + regs_per_thread * (s->max_warps_per_block + 1);
    int smem_limit = s->fused_smem[units];
    int last = min_int(threads_last, s->max_threads_per_block);
    /* Block sizes of one warp count share one answer: fill them as a run. */
    while (threads <= last) {
      int warps = occ_sweep_warps(s, threads);
      int run_end = min_int(warps * s->warp_size, last);
      int blocks = min_int(row[warps], smem_limit);
      for (; threads <= run_end; threads++)
        blocks_out[threads - threads_first] = blocks;
    }
  }
  for (; threads <= threads_last; threads++)
    blocks_out[threads - threads_first] = 0;
}

static void set_point(const occ_sweep *s, const int limits[OCC_LIMITER_COUNT],
                      int warps, occ_sweep_point *p) {
  int active = OCC_UNLIMITED;
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) active = min_int(active, limits[i]);
  p->limited_by = 0;
  for (int i = 0; i < OCC_LIMITER_COUNT; i++)
    if (limits[i] == active) p->limited_by |= 1u << i;
  p->active_blocks_per_sm = active;
  p->active_warps_per_sm = active * warps;
  p->occupancy = (double)p->active_warps_per_sm / s->max_warps_per_sm;
}

occ_status occ_sweep_eval(const occ_sweep *s, int threads_per_block,
                          int regs_per_thread, int64_t smem_bytes,
                          occ_sweep_point *point) {
  int warps = occ_sweep_warps(s, threads_per_block);
  int units = occ_sweep_smem_units(s, smem_bytes);
  if (warps == 0 || units < 0 || regs_per_thread < 0 ||
      regs_per_thread > s->max_regs_per_thread) {
    occ_result r;
    occ_status status =
        compute_one(s, threads_per_block, regs_per_thread, smem_bytes, &r);
    if (status != OCC_OK) return status;
    point->active_blocks_per_sm = r.active_blocks_per_sm;
    point->active_warps_per_sm = r.active_warps_per_sm;
    point->occupancy = r.occupancy;
    point->limited_by = r.limited_by;
    return OCC_OK;
  }
  int limits[OCC_LIMITER_COUNT] = {
      s->limit_warps[warps], s->limit_blocks,
      s->limit_regs[regs_per_thread * (s->max_warps_per_block + 1) + warps],
      s->limit_smem[units], s->limit_barriers};
  set_point(s, limits, warps, point);
  return OCC_OK;
}

int64_t occ_sweep_smem_max_bytes(const occ_sweep *s) {
  for (int u = s->smem_max_units; u >= 0; u--)
    if (s->limit_smem[u] > 0)
      return (int64_t)u * s->smem_unit_bytes - s->reserved_smem_bytes;
  return -1;
}
