/* json_out.c - the JSON object of one report and the parts every JSON
 * document shares: the root, the device and the kernel (schema 3; the keys
 * are a contract documented in man/occcalc.1). Sizes are bytes in keys
 * ending _bytes; every occupancy is a fraction from 0 to 1; a limit that
 * does not apply is null. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/devfields.h"
#include "render/amd_out.h"
#include "render/json_write.h"
#include "render/report.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "core/ncu.h"
#include "render/ncu_rows.h"
#include "render/report_rows.h"
#include "text/text_safe.h"

/* cJSON reports allocation failure by returning NULL; the helpers below
 * keep building and the final check catches it. */
static void add_limit(cJSON *obj, const char *key, int limit) {
  occ_json_add_int_or_null(obj, key, limit, limit != OCC_UNLIMITED);
}

int occ_print_json(FILE *out, const cJSON *obj) {
  if (!occ_json_write_formatted(out, obj)) {
    occ_msg(stderr, "out of memory writing JSON");
    return -1;
  }
  fputc('\n', out);
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
    occ_json_add_int_or_null(obj, fields[i].key, v,
                             v != 0 || fields[i].offset !=
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

static void add_string_or_null(cJSON *obj, const char *key, const char *s) {
  if (s)
    cJSON_AddStringToObject(obj, key, s);
  else
    cJSON_AddNullToObject(obj, key);
}

cJSON *occ_json_kernel(const occ_kernel *k, const char *name,
                       const char *mangled_name) {
  cJSON *obj = cJSON_CreateObject();
  add_string_or_null(obj, "name", name);
  add_string_or_null(obj, "mangled_name", mangled_name);
  cJSON_AddItemToObject(obj, "block", cJSON_CreateIntArray(k->block, 3));
  cJSON_AddNumberToObject(obj, "regs_per_thread", k->regs_per_thread);
  cJSON_AddNumberToObject(obj, "smem_static_bytes", (double)k->smem_static_bytes);
  cJSON_AddNumberToObject(obj, "smem_dynamic_bytes", (double)k->smem_dynamic_bytes);
  cJSON_AddNumberToObject(obj, "barriers", k->barriers);
  occ_json_add_int_or_null(obj, "carveout_pct", k->carveout_pct,
                           k->carveout_pct != OCC_CARVEOUT_DEFAULT);
  /* The last key is missing only when an allocation failed. */
  if (!cJSON_GetObjectItemCaseSensitive(obj, "carveout_pct") ||
      !cJSON_GetObjectItemCaseSensitive(obj, "block")) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

cJSON *occ_json_root(void) {
  cJSON *root = cJSON_CreateObject();
  if (!cJSON_AddNumberToObject(root, "schema", OCC_JSON_SCHEMA) ||
      !cJSON_AddStringToObject(root, "occcalc_version", OCC_VERSION)) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

/* smem_config_bytes is the SM's configuration: the driver's at launch, as
 * the report's "SM configured" line, ncu and CUPTI have it (null where not
 * known); api_smem_config_bytes the occupancy API's assumption, which
 * limits.shared_memory divides (null where no block fits). */
static cJSON *json_allocated(const occ_result *r) {
  cJSON *obj = cJSON_CreateObject();
  cJSON_AddNumberToObject(obj, "regs_per_warp", r->regs_per_warp);
  cJSON_AddNumberToObject(obj, "regs_per_block", r->regs_per_block);
  cJSON_AddNumberToObject(obj, "smem_per_block_bytes", (double)r->smem_per_block_bytes);
  occ_json_add_int_or_null(obj, "smem_config_bytes",
                           r->launch_smem_config_bytes,
                           occ_launch_config_known(r));
  occ_json_add_int_or_null(obj, "api_smem_config_bytes", r->smem_config_bytes,
                           r->launchable || r->smem_config_bytes > 0);
  return obj;
}

/* What the SM holds when the kernel is launched: the same as the
 * occupancy API's answer except under a carveout preference (occ.h). */
static cJSON *json_at_launch(const occ_device *d, const occ_result *r) {
  cJSON *obj = cJSON_CreateObject();
  int warps = r->launch_active_blocks_per_sm * r->warps_per_block;
  /* Null where it is not known: an architecture whose default choice was
   * not measured, for blocks with no shared memory of their own. */
  bool known = occ_launch_config_known(r);
  occ_json_add_int_or_null(obj, "smem_config_bytes",
                           r->launch_smem_config_bytes, known);
  occ_json_add_int_or_null(obj, "l1_bytes",
                           d->l1_smem_bytes - r->launch_smem_config_bytes,
                           known && d->l1_smem_bytes > 0);
  cJSON_AddNumberToObject(obj, "active_blocks_per_sm", r->launch_active_blocks_per_sm);
  cJSON_AddNumberToObject(obj, "active_warps_per_sm", warps);
  cJSON_AddNumberToObject(obj, "occupancy", occ_launch_occupancy(r));
  cJSON_AddBoolToObject(obj, "differs_from_api",
                        r->launch_active_blocks_per_sm != r->active_blocks_per_sm);
  return obj;
}

cJSON *occ_json_ncu(const occ_report *rep) {
  if (!rep->ncu) return cJSON_CreateNull();
  occ_ncu_value rows[OCC_NCU_ROW_COUNT];
  occ_ncu_values_rows(rep->ncu, rows);
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < OCC_NCU_ROW_COUNT; i++)
    if (rows[i].known)
      cJSON_AddNumberToObject(o, rows[i].key, rows[i].value);
    else
      cJSON_AddNullToObject(o, rows[i].key);
  return o;
}

cJSON *occ_json_waves(const occ_waves *w) {
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
  cJSON *root = occ_json_root();
  if (!root) return NULL;
  cJSON_AddItemToObject(root, "device", occ_json_device(rep->device));
  cJSON *kernel = occ_json_kernel(rep->kernel, rep->kernel_name,
                                  rep->mangled_name);
  /* Before cc 7.0 the SM has no carveout: a preference given is ignored
   * (the report says so), so the launch has none. */
  if (kernel && r->carveout_ignored)
    cJSON_ReplaceItemInObjectCaseSensitive(kernel, "carveout_pct", cJSON_CreateNull());
  cJSON_AddItemToObject(root, "kernel", kernel);
  cJSON_AddNumberToObject(root, "threads_per_block", r->threads_per_block);
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
  occ_report_value rows[OCC_OCCUPANCY_ROW_COUNT];
  occ_occupancy_rows(rep, rows);
  for (int i = 0; i < OCC_OCCUPANCY_ROW_COUNT; i++)
    cJSON_AddNumberToObject(root, rows[i].key, rows[i].value);
  cJSON_AddItemToObject(root, "at_launch", json_at_launch(rep->device, r));
  cJSON_AddItemToObject(root, "ncu", occ_json_ncu(rep));
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
    cJSON_AddItemToObject(root, "waves", occ_json_waves(rep->waves));
  else
    cJSON_AddNullToObject(root, "waves");
  cJSON_AddItemToObject(root, "cluster", occ_json_cluster(rep));
  /* What a compiler report adds (occ_ptxas_json): null for other sources,
   * so every report has the same keys. */
  cJSON_AddNullToObject(root, "compiler");
  cJSON_AddNullToObject(root, "block_choice");
  /* Any allocation failure above left a key out: report it whole or not at all. */
  if (!cJSON_GetObjectItemCaseSensitive(root, "block_choice") ||
      !cJSON_GetObjectItemCaseSensitive(root, "waves") ||
      !cJSON_GetObjectItemCaseSensitive(root, "cluster") ||
      !cJSON_GetObjectItemCaseSensitive(root, "device") ||
      !cJSON_GetObjectItemCaseSensitive(root, "kernel")) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

/* One device of the list, with the database's family and reference. */
static bool add_listed(cJSON *array, const occ_device *d, const char *family,
                       const char *reference) {
  cJSON *obj = occ_json_device(d);
  if (!obj || !cJSON_AddStringToObject(obj, "family", family) ||
      !cJSON_AddStringToObject(obj, "reference", reference) ||
      !cJSON_AddItemToArray(array, obj)) {
    cJSON_Delete(obj);
    return false;
  }
  return true;
}

cJSON *occ_json_gpu_list(const occ_gpu_catalog *c) {
  cJSON *root = occ_json_root();
  cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
  cJSON *archs = cJSON_AddArrayToObject(root, "architectures");
  bool ok = gpus && archs;
  for (size_t i = 0; ok && i < c->gpu_count; i++)
    ok = add_listed(gpus, &c->gpus[i].device, c->gpus[i].family,
                    c->gpus[i].reference);
  for (size_t i = 0; ok && i < c->arch_count; i++)
    ok = add_listed(archs, &c->archs[i].device, c->archs[i].family,
                    c->archs[i].reference);
  /* AMD's, apart: their device objects have AMD's keys (vendor "amd"). */
  cJSON *amd_gpus = cJSON_AddArrayToObject(root, "amd_gpus");
  cJSON *amd_archs = cJSON_AddArrayToObject(root, "amd_architectures");
  ok = ok && amd_gpus && amd_archs;
  for (size_t i = 0; ok && i < c->amd_gpu_count; i++) {
    const occ_listed_amd *g = &c->amd_gpus[i];
    cJSON *obj = occ_amd_json_listed(&g->gpu.arch, g->gpu.name, g->gpu.cu_count,
                                     g->family, g->reference);
    ok = obj && cJSON_AddItemToArray(amd_gpus, obj);
  }
  for (size_t i = 0; ok && i < c->amd_arch_count; i++) {
    const occ_listed_amd *a = &c->amd_archs[i];
    cJSON *obj = occ_amd_json_listed(&a->gpu.arch, NULL, -1, a->family,
                                     a->reference);
    ok = obj && cJSON_AddItemToArray(amd_archs, obj);
  }
  if (!ok) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

cJSON *occ_json_limited_by(const occ_result *r) {
  cJSON *limited_by = cJSON_CreateArray();
  for (int i = 0; limited_by && i < OCC_LIMITER_COUNT; i++)
    if ((r->limited_by >> i) & 1)
      cJSON_AddItemToArray(limited_by, cJSON_CreateString(occ_limiter_key(i)));
  return limited_by;
}
