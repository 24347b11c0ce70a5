/* suggest_json.c - the "suggest" JSON object (schema 3). Keys
 * (man/occcalc.1 has the same list); every occupancy is a fraction:
 *   best_block_sizes: [threads, ...] ascending; max_potential_block_size
 *   (the largest, cudaOccupancyMaxPotentialBlockSize's answer),
 *   smallest_best_block_size, best_active_blocks_per_sm,
 *   best_active_warps_per_sm, best_occupancy, min_grid_blocks: null when
 *   no block size can launch (min_grid_blocks also when the SM count is
 *   unknown);
 *   register_steps: [{regs_per_thread, active_blocks_per_sm,
 *   active_warps_per_sm, occupancy, launch_bounds, maxrregcount}];
 *   smem_steps: [{smem_bytes (static + dynamic), smem_dynamic_bytes (null
 *   when the static part alone is larger), active_blocks_per_sm,
 *   active_warps_per_sm, occupancy}];
 *   headroom: {regs_per_thread_max, extra_regs_per_thread, smem_max_bytes,
 *   extra_smem_bytes}, null when it cannot launch;
 *   carveout: {options: [{carveout_pct, smem_config_bytes, smem_used_bytes,
 *   launch_active_blocks_per_sm (what the SM holds at launch, occ.h),
 *   launch_smem_config_bytes (what the driver configures, null unknown),
 *   active_blocks_per_sm, active_warps_per_sm, occupancy}],
 *   smallest_best: {carveout_pct, smem_config_bytes}} (options empty and
 *   smallest_best null where the architecture has no carveout). */
#include <stdio.h>

#include "render/suggest_out.h"

/* Adds a number, or null when present is false. */
static bool add_num(cJSON *o, const char *key, double value, bool present) {
  return present ? cJSON_AddNumberToObject(o, key, value) != NULL
                 : cJSON_AddNullToObject(o, key) != NULL;
}

static bool add_occupancy(cJSON *o, int blocks, int warps, double occupancy) {
  return add_num(o, "active_blocks_per_sm", blocks, true) &&
         add_num(o, "active_warps_per_sm", warps, true) &&
         add_num(o, "occupancy", occupancy, true);
}

static bool add_best(cJSON *o, const occ_suggestion *s) {
  bool any = s->best_block_count > 0;
  cJSON *sizes = cJSON_CreateIntArray(s->best_block_sizes, s->best_block_count);
  if (!sizes || !cJSON_AddItemToObject(o, "best_block_sizes", sizes)) {
    cJSON_Delete(sizes);
    return false;
  }
  return add_num(o, "max_potential_block_size", s->best_block_size, any) &&
         add_num(o, "smallest_best_block_size", s->smallest_best_block_size, any) &&
         add_num(o, "best_active_blocks_per_sm", s->best_active_blocks_per_sm, any) &&
         add_num(o, "best_active_warps_per_sm", s->best_active_warps_per_sm, any) &&
         add_num(o, "best_occupancy", s->best_occupancy, any) &&
         add_num(o, "min_grid_blocks", (double)s->min_grid_size,
                 any && s->sm_count > 0);
}

static bool add_reg_steps(cJSON *o, const occ_suggestion *s) {
  cJSON *steps = cJSON_AddArrayToObject(o, "register_steps");
  for (int i = 0; steps && i < s->reg_step_count; i++) {
    const occ_suggest_step *st = &s->reg_steps[i];
    char bounds[64], maxrreg[32];
    snprintf(bounds, sizeof bounds, "__launch_bounds__(%d, %d)",
             s->threads_per_block, st->active_blocks_per_sm);
    snprintf(maxrreg, sizeof maxrreg, "-maxrregcount=%lld", (long long)st->value);
    cJSON *e = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(steps, e) ||
        !add_num(e, "regs_per_thread", (double)st->value, true) ||
        !add_occupancy(e, st->active_blocks_per_sm, st->active_warps_per_sm,
                       st->occupancy) ||
        !cJSON_AddStringToObject(e, "launch_bounds", bounds) ||
        !cJSON_AddStringToObject(e, "maxrregcount", maxrreg))
      return false; /* e, when created, belongs to steps already */
  }
  return steps != NULL;
}

static bool add_smem_steps(cJSON *o, const occ_suggestion *s) {
  cJSON *steps = cJSON_AddArrayToObject(o, "smem_steps");
  for (int i = 0; steps && i < s->smem_step_count; i++) {
    const occ_suggest_step *st = &s->smem_steps[i];
    cJSON *e = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(steps, e) ||
        !add_num(e, "smem_bytes", (double)st->value, true) ||
        !add_num(e, "smem_dynamic_bytes",
                 (double)(st->value - s->smem_static_bytes),
                 st->value >= s->smem_static_bytes) ||
        !add_occupancy(e, st->active_blocks_per_sm, st->active_warps_per_sm,
                       st->occupancy))
      return false;
  }
  return steps != NULL;
}

static bool add_headroom(cJSON *o, const occ_suggestion *s) {
  if (!s->launchable) return cJSON_AddNullToObject(o, "headroom") != NULL;
  cJSON *h = cJSON_AddObjectToObject(o, "headroom");
  return h && add_num(h, "regs_per_thread_max", s->regs_per_thread_max, true) &&
         add_num(h, "extra_regs_per_thread",
                 s->regs_per_thread_max - s->regs_per_thread, true) &&
         add_num(h, "smem_max_bytes", (double)s->smem_max_bytes, true) &&
         add_num(h, "extra_smem_bytes", (double)(s->smem_max_bytes - s->smem_bytes),
                 true);
}

static bool add_carveout(cJSON *o, const occ_suggestion *s) {
  cJSON *c = cJSON_AddObjectToObject(o, "carveout");
  cJSON *options = cJSON_AddArrayToObject(c, "options");
  if (!c || !options) return false;
  for (int i = 0; i < s->carveout_count; i++) {
    const occ_carveout_option *op = &s->carveouts[i];
    cJSON *e = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(options, e) ||
        !add_num(e, "carveout_pct", op->carveout_pct, true) ||
        !add_num(e, "smem_config_bytes", (double)op->smem_config_bytes, true) ||
        !add_num(e, "smem_used_bytes", (double)op->smem_used_bytes, true) ||
        !add_num(e, "launch_active_blocks_per_sm",
                 op->launch_active_blocks_per_sm, true) ||
        !add_num(e, "launch_smem_config_bytes", (double)op->launch_smem_config_bytes,
                 op->launch_smem_config_bytes > 0) ||
        !add_occupancy(e, op->active_blocks_per_sm, op->active_warps_per_sm,
                       op->occupancy))
      return false;
  }
  if (s->carveout_best < 0) return cJSON_AddNullToObject(c, "smallest_best") != NULL;
  const occ_carveout_option *b = &s->carveouts[s->carveout_best];
  cJSON *best = cJSON_AddObjectToObject(c, "smallest_best");
  return best && add_num(best, "carveout_pct", b->carveout_pct, true) &&
         add_num(best, "smem_config_bytes", (double)b->smem_config_bytes, true);
}

cJSON *occ_suggest_json(const occ_suggestion *s) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !add_best(o, s) || !add_reg_steps(o, s) || !add_smem_steps(o, s) ||
      !add_headroom(o, s) || !add_carveout(o, s)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

void occ_jw_block_choice(occ_jw *w, const occ_block_choice *c, bool best) {
  if (!c) {
    occ_jw_null(w, "block_choice");
    return;
  }
  bool any = c->block_size > 0;
  occ_jw_object(w, "block_choice");
  occ_jw_string(w, "rule",
                best ? "largest block size reaching the highest occupancy "
                       "(cudaOccupancyMaxPotentialBlockSize)"
                     : "smallest block size reaching the highest occupancy");
  occ_jw_int_or_null(w, "smallest_best_block_size", c->smallest_block_size, any);
  occ_jw_int_or_null(w, "max_potential_block_size", c->block_size, any);
  occ_jw_int(w, "max_threads_per_block", c->max_threads_per_block);
  occ_jw_int_or_null(w, "min_grid_blocks", c->min_grid_size,
                     any && c->min_grid_size > 0);
  occ_jw_close(w);
}
