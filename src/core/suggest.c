/* suggest.c - the suggestions (see suggest.h for the contract). */
#include "core/suggest.h"

#include <string.h>

#include "core/sweep.h"

static void set_step(const occ_sweep *s, int threads, int64_t value,
                     int blocks, occ_suggest_step *step) {
  int warps = occ_sweep_warps(s, threads);
  step->value = value;
  step->active_blocks_per_sm = blocks;
  step->active_warps_per_sm = blocks * warps;
  step->occupancy = (double)step->active_warps_per_sm / s->max_warps_per_sm;
}

/* cudaOccupancyMaxPotentialBlockSize's answer and every block size that
 * reaches the same occupancy, from the core's one implementation. */
static occ_status best_block_sizes(const occ_sweep *s, const occ_kernel *k,
                                   occ_suggestion *out) {
  occ_block_choice choice;
  occ_status status = occ_best_block_sizes(
      &s->device, k, &choice, out->best_block_sizes,
      OCC_SUGGEST_MAX_BLOCK_SIZES, &out->best_block_count);
  if (status != OCC_OK) return status;
  out->best_block_size = choice.block_size;
  out->smallest_best_block_size = choice.smallest_block_size;
  out->best_active_blocks_per_sm = choice.active_blocks_per_sm;
  out->min_grid_size = choice.min_grid_size;
  out->best_active_warps_per_sm = out->best_occupancy = 0;
  if (choice.block_size == 0) return OCC_OK;
  occ_suggest_step at_best;
  set_step(s, choice.block_size, choice.block_size, choice.active_blocks_per_sm,
           &at_best);
  out->best_active_warps_per_sm = at_best.active_warps_per_sm;
  out->best_occupancy = at_best.occupancy;
  return OCC_OK;
}

/* Fewer registers: scanning down, each count where the blocks rise is the
 * largest that reaches that step. */
static void register_steps(const occ_sweep *s, occ_suggestion *o) {
  int blocks_now = o->active_blocks_per_sm;
  o->reg_step_count = 0;
  for (int regs = o->regs_per_thread - 1; regs >= 0; regs--) {
    int blocks = occ_sweep_blocks(s, o->threads_per_block, regs, o->smem_bytes);
    if (blocks <= blocks_now || o->reg_step_count >= OCC_SUGGEST_MAX_STEPS)
      continue;
    set_step(s, o->threads_per_block, regs, blocks,
             &o->reg_steps[o->reg_step_count++]);
    blocks_now = blocks;
  }
}

/* Less shared memory, at allocation granularity: the largest total of
 * each smaller allocation. */
static void smem_steps(const occ_sweep *s, occ_suggestion *o) {
  int blocks_now = o->active_blocks_per_sm;
  int units = occ_sweep_smem_units(s, o->smem_bytes);
  if (units < 0) units = s->smem_max_units + 1;
  o->smem_step_count = 0;
  for (int u = units - 1; u >= 0; u--) {
    int64_t total = (int64_t)u * s->smem_unit_bytes - s->reserved_smem_bytes;
    if (total < 0) break;
    int blocks = occ_sweep_blocks(s, o->threads_per_block, o->regs_per_thread,
                                  total);
    if (blocks <= blocks_now || o->smem_step_count >= OCC_SUGGEST_MAX_STEPS)
      continue;
    set_step(s, o->threads_per_block, total, blocks,
             &o->smem_steps[o->smem_step_count++]);
    blocks_now = blocks;
  }
}

static void headroom(const occ_sweep *s, occ_suggestion *o) {
  o->regs_per_thread_max = o->regs_per_thread;
  o->smem_max_bytes = o->smem_bytes;
  if (!o->launchable) return;
  while (o->regs_per_thread_max < s->max_regs_per_thread &&
         occ_sweep_blocks(s, o->threads_per_block, o->regs_per_thread_max + 1,
                          o->smem_bytes) >= o->active_blocks_per_sm)
    o->regs_per_thread_max++;
  int units = occ_sweep_smem_units(s, o->smem_bytes);
  while (units < s->smem_max_units) {
    int64_t total =
        (int64_t)(units + 1) * s->smem_unit_bytes - s->reserved_smem_bytes;
    if (occ_sweep_blocks(s, o->threads_per_block, o->regs_per_thread, total) <
        o->active_blocks_per_sm)
      break;
    units++;
  }
  int64_t top = (int64_t)units * s->smem_unit_bytes - s->reserved_smem_bytes;
  if (top > o->smem_max_bytes) o->smem_max_bytes = top;
}

/* Each configuration with the smallest carveout percentage that selects
 * it (the driver rounds a preference up to a configuration). */
static occ_status carveout_explorer(const occ_device *d, const occ_kernel *k,
                                    occ_suggestion *o) {
  o->carveout_count = 0;
  o->carveout_best = -1;
  if (d->smem_config_count == 0) return OCC_OK;
  occ_kernel with = *k;
  for (int pct = 0; pct <= 100; pct++) {
    with.carveout_pct = pct;
    occ_result r;
    occ_status status = occ_compute(d, &with, &r);
    if (status != OCC_OK) return status;
    if (o->carveout_count > 0 &&
        o->carveouts[o->carveout_count - 1].smem_config_bytes ==
            r.smem_preference_bytes)
      continue;
    occ_carveout_option *c = &o->carveouts[o->carveout_count++];
    c->carveout_pct = pct;
    c->smem_config_bytes = r.smem_preference_bytes;
    c->smem_used_bytes = r.smem_config_bytes;
    c->active_blocks_per_sm = r.active_blocks_per_sm;
    c->active_warps_per_sm = r.active_warps_per_sm;
    c->occupancy = r.occupancy;
    c->launch_active_blocks_per_sm = r.launch_active_blocks_per_sm;
    c->launch_smem_config_bytes = r.launch_smem_config_bytes;
  }
  int best_blocks = 0;
  for (int i = 0; i < o->carveout_count; i++)
    if (o->carveouts[i].active_blocks_per_sm > best_blocks)
      best_blocks = o->carveouts[i].active_blocks_per_sm;
  for (int i = 0; i < o->carveout_count && o->carveout_best < 0; i++)
    if (best_blocks > 0 && o->carveouts[i].active_blocks_per_sm == best_blocks)
      o->carveout_best = i;
  return OCC_OK;
}

static void set_now(const occ_kernel *k, const occ_result *r,
                    occ_suggestion *o) {
  o->threads_per_block = r->threads_per_block;
  o->regs_per_thread = k->regs_per_thread;
  o->smem_static_bytes = k->smem_static_bytes;
  o->smem_bytes = k->smem_static_bytes + occ_kernel_smem_dynamic_bytes(k);
  o->active_blocks_per_sm = r->active_blocks_per_sm;
  o->active_warps_per_sm = r->active_warps_per_sm;
  o->occupancy = r->occupancy;
  o->limited_by = r->limited_by;
  o->launchable = r->launchable;
}

occ_status occ_suggest_on(const occ_sweep *s, const occ_device *device,
                          const occ_kernel *kernel, occ_suggestion *out) {
  memset(out, 0, sizeof *out);
  occ_result now;
  occ_status status = occ_compute(device, kernel, &now);
  if (status != OCC_OK) return status;
  set_now(kernel, &now, out);
  out->sm_count = device->sm_count > 0 ? device->sm_count : 0;
  status = best_block_sizes(s, kernel, out);
  if (status != OCC_OK) return status;
  register_steps(s, out);
  smem_steps(s, out);
  headroom(s, out);
  return carveout_explorer(device, kernel, out);
}

occ_status occ_suggest(const occ_device *device, const occ_kernel *kernel,
                       occ_suggestion *out) {
  occ_sweep *s = NULL;
  occ_status status =
      occ_sweep_new(device, kernel->carveout_pct, kernel->barriers, &s);
  if (status != OCC_OK) {
    /* The kernel's own error first, as before the sweep was asked for. */
    occ_result now;
    occ_status own = occ_compute(device, kernel, &now);
    memset(out, 0, sizeof *out);
    return own != OCC_OK ? own : status;
  }
  status = occ_suggest_on(s, device, kernel, out);
  occ_sweep_free(s);
  return status;
}
