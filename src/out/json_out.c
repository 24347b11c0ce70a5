/* json_out.c - the JSON object of one report (schema 1; the keys are a
 * contract documented in man/occcalc.1). Sizes are bytes in keys ending
 * _bytes; a limit that does not apply is null. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/devfields.h"
#include "out/report.h"
#include "out/report_text.h"
#include "out/vocab.h"

/* cJSON reports allocation failure by returning NULL; the helpers below
 * keep building and the final check catches it. */
static void add_int_or_null(cJSON *obj, const char *key, int64_t value, bool present) {
  if (present)
    cJSON_AddNumberToObject(obj, key, (double)value);
  else
    cJSON_AddNullToObject(obj, key);
}

static void add_limit(cJSON *obj, const char *key, int limit) {
  add_int_or_null(obj, key, limit, limit != OCC_UNLIMITED);
}

int occ_print_json(FILE *out, const cJSON *obj) {
  char *text = obj ? cJSON_Print(obj) : NULL;
  if (!text) {
    fprintf(stderr, "occcalc: out of memory writing JSON\n");
    return -1;
  }
  fprintf(out, "%s\n", text);
  free(text);
  return 0;
}

cJSON *occ_json_device(const occ_device *d) {
  cJSON *obj = cJSON_CreateObject();
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  cJSON_AddStringToObject(obj, "name", d->name);
  cJSON_AddStringToObject(obj, "source", d->source ? d->source : "database");
  cJSON_AddStringToObject(obj, "cc", cc);
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++) {
    int64_t v = occ_device_field_get(d, &fields[i]);
    /* An SM count of 0 means unknown (a generic architecture). */
    add_int_or_null(obj, fields[i].key, v, v != 0 || fields[i].offset !=
                                                         offsetof(occ_device, sm_count));
    if (fields[i].offset == offsetof(occ_device, max_threads_per_sm))
      cJSON_AddNumberToObject(obj, "max_warps_per_sm", d->max_threads_per_sm / d->warp_size);
  }
  cJSON *dims = cJSON_AddArrayToObject(obj, "max_block_dim");
  for (int i = 0; i < 3; i++) cJSON_AddItemToArray(dims, cJSON_CreateNumber(d->max_block_dim[i]));
  cJSON *configs = cJSON_AddArrayToObject(obj, "smem_configs_bytes");
  for (int i = 0; i < d->smem_config_count; i++)
    cJSON_AddItemToArray(configs, cJSON_CreateNumber((double)d->smem_configs_bytes[i]));
  return obj;
}

static cJSON *json_kernel(const occ_report *rep) {
  const occ_kernel *k = rep->kernel;
  cJSON *obj = cJSON_CreateObject();
  if (rep->kernel_name)
    cJSON_AddStringToObject(obj, "name", rep->kernel_name);
  else
    cJSON_AddNullToObject(obj, "name");
  cJSON_AddItemToObject(obj, "block", cJSON_CreateIntArray(k->block, 3));
  cJSON_AddNumberToObject(obj, "threads_per_block", rep->result->threads_per_block);
  cJSON_AddNumberToObject(obj, "regs_per_thread", k->regs_per_thread);
  cJSON_AddNumberToObject(obj, "smem_static_bytes", (double)k->smem_static_bytes);
  cJSON_AddNumberToObject(obj, "smem_dynamic_bytes", (double)k->smem_dynamic_bytes);
  cJSON_AddNumberToObject(obj, "barriers", k->barriers);
  return obj;
}

static cJSON *json_allocated(const occ_result *r) {
  cJSON *obj = cJSON_CreateObject();
  cJSON_AddNumberToObject(obj, "regs_per_warp", r->regs_per_warp);
  cJSON_AddNumberToObject(obj, "regs_per_block", r->regs_per_block);
  cJSON_AddNumberToObject(obj, "smem_per_block_bytes", (double)r->smem_per_block_bytes);
  add_int_or_null(obj, "smem_config_bytes", r->smem_config_bytes, r->launchable || r->smem_config_bytes > 0);
  return obj;
}

/* What the SM holds when the kernel is launched: the same as the
 * occupancy API's answer except under a carveout preference (occ.h). */
static cJSON *json_at_launch(const occ_result *r) {
  cJSON *obj = cJSON_CreateObject();
  int warps = r->launch_active_blocks_per_sm * r->warps_per_block;
  /* Null where it is not known: blocks with no shared memory of their own. */
  add_int_or_null(obj, "smem_config_bytes", r->launch_smem_config_bytes,
                  r->launch_smem_config_bytes > 0);
  cJSON_AddNumberToObject(obj, "active_blocks_per_sm", r->launch_active_blocks_per_sm);
  cJSON_AddNumberToObject(obj, "active_warps_per_sm", warps);
  cJSON_AddNumberToObject(obj, "occupancy", occ_launch_occupancy(r));
  cJSON_AddBoolToObject(obj, "differs_from_api",
                        r->launch_active_blocks_per_sm != r->active_blocks_per_sm);
  return obj;
}

static cJSON *json_waves(const occ_waves *w) {
  cJSON *obj = cJSON_CreateObject();
  cJSON_AddNumberToObject(obj, "grid_blocks", (double)w->grid_blocks);
  cJSON_AddNumberToObject(obj, "blocks_per_wave", (double)w->blocks_per_wave);
  cJSON_AddNumberToObject(obj, "full_waves", (double)w->full_waves);
  cJSON_AddNumberToObject(obj, "tail_blocks", (double)w->tail_blocks);
  cJSON_AddNumberToObject(obj, "waves", w->waves);
  return obj;
}

cJSON *occ_json_report(const occ_report *rep) {
  const occ_result *r = rep->result;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "schema", 1);
  cJSON_AddStringToObject(root, "occcalc_version", OCC_VERSION);
  cJSON_AddItemToObject(root, "device", occ_json_device(rep->device));
  cJSON_AddItemToObject(root, "kernel", json_kernel(rep));
  add_int_or_null(root, "carveout_pct", rep->kernel->carveout_pct,
                  rep->kernel->carveout_pct != OCC_CARVEOUT_DEFAULT);
  cJSON_AddNumberToObject(root, "warps_per_block", r->warps_per_block);
  cJSON_AddNumberToObject(root, "inactive_threads", r->inactive_threads);
  cJSON_AddItemToObject(root, "allocated", json_allocated(r));
  cJSON *limits = cJSON_AddObjectToObject(root, "limits");
  cJSON *limited_by = cJSON_AddArrayToObject(root, "limited_by");
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    add_limit(limits, occ_limiter_key(i), occ_result_limit(r, i));
    if ((r->limited_by >> i) & 1)
      cJSON_AddItemToArray(limited_by, cJSON_CreateString(occ_limiter_key(i)));
  }
  cJSON_AddNumberToObject(root, "active_blocks_per_sm", r->active_blocks_per_sm);
  cJSON_AddNumberToObject(root, "active_warps_per_sm", r->active_warps_per_sm);
  cJSON_AddNumberToObject(root, "active_threads_per_sm", r->active_threads_per_sm);
  cJSON_AddNumberToObject(root, "max_warps_per_sm", r->max_warps_per_sm);
  cJSON_AddNumberToObject(root, "occupancy", r->occupancy);
  cJSON_AddItemToObject(root, "at_launch", json_at_launch(r));
  cJSON_AddBoolToObject(root, "launchable", r->launchable);
  if (r->launchable)
    cJSON_AddNullToObject(root, "reason");
  else
  {
    char reason[160];
    occ_reason_detail(rep->device, rep->kernel, r, reason, sizeof reason);
    cJSON_AddStringToObject(root, "reason", reason);
  }
  if (rep->waves)
    cJSON_AddItemToObject(root, "waves", json_waves(rep->waves));
  else
    cJSON_AddNullToObject(root, "waves");
  /* Any allocation failure above left a key out: report it whole or not at all. */
  if (!cJSON_GetObjectItemCaseSensitive(root, "waves") ||
      !cJSON_GetObjectItemCaseSensitive(root, "device")) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}
