/* json_out.c - the JSON object of one report and the parts every JSON
 * document shares: the root, the device and the kernel (schema 3; the keys
 * are a contract documented in man/occcalc.1). Sizes are bytes in keys
 * ending _bytes; every occupancy is a fraction from 0 to 1; a limit that
 * does not apply is null. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void limit(occ_jw *w, const char *key, int value) {
  occ_jw_int_or_null(w, key, value, value != OCC_UNLIMITED);
}

int occ_print_json(FILE *out, const cJSON *obj) {
  if (!occ_json_write_formatted(out, obj)) {
    occ_msg(stderr, "out of memory writing JSON");
    return -1;
  }
  fputc('\n', out);
  return 0;
}

void occ_jw_device(occ_jw *w, const char *key, const occ_device *d) {
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  occ_jw_object(w, key);
  occ_jw_string(w, "name", d->name);
  occ_jw_string(w, "source", d->source ? d->source : "database");
  occ_jw_string_or_null(w, "limits_from",
                        d->limits_from[0] ? d->limits_from : NULL);
  occ_jw_string(w, "cc", cc);
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++) {
    int64_t v = occ_device_field_get(d, &fields[i]);
    /* An SM count of 0 means unknown (a generic architecture). */
    occ_jw_int_or_null(w, fields[i].key, v,
                       v != 0 || fields[i].offset !=
                                     offsetof(occ_device, sm_count));
    if (fields[i].offset == offsetof(occ_device, sm_count) && d->sm_count == 0)
      occ_jw_null(w, "sm_count_source");
    else if (fields[i].offset == offsetof(occ_device, sm_count))
      occ_jw_string(w, "sm_count_source",
                    d->sm_count_source ? d->sm_count_source
                    : d->source        ? d->source
                                       : "database");
    if (fields[i].offset == offsetof(occ_device, max_threads_per_sm))
      occ_jw_int(w, "max_warps_per_sm", d->max_threads_per_sm / d->warp_size);
  }
  occ_jw_ints(w, "max_block_dim", d->max_block_dim, 3);
  occ_jw_array(w, "smem_configs_bytes");
  for (int i = 0; i < d->smem_config_count; i++)
    occ_jw_int(w, NULL, d->smem_configs_bytes[i]);
  occ_jw_close(w);
  occ_jw_close(w);
}

/* The kernel object; carveout_pct null also where the SM has no carveout
 * (a preference given before cc 7.0 is ignored, so the launch has none). */
static void kernel(occ_jw *w, const char *key, const occ_kernel *k,
                   const char *name, const char *mangled_name,
                   bool carveout_ignored) {
  occ_jw_object(w, key);
  occ_jw_string_or_null(w, "name", name);
  occ_jw_string_or_null(w, "mangled_name", mangled_name);
  occ_jw_ints(w, "block", k->block, 3);
  occ_jw_int(w, "regs_per_thread", k->regs_per_thread);
  occ_jw_int(w, "smem_static_bytes", k->smem_static_bytes);
  /* The block's whole dynamic request; the part that grows with it is
   * smem_dynamic_per_thread_bytes (0 unless given). */
  occ_jw_int(w, "smem_dynamic_bytes", occ_kernel_smem_dynamic_bytes(k));
  occ_jw_int(w, "smem_dynamic_per_thread_bytes", k->smem_dynamic_per_thread_bytes);
  occ_jw_int(w, "barriers", k->barriers);
  occ_jw_int_or_null(w, "carveout_pct", k->carveout_pct,
                     k->carveout_pct != OCC_CARVEOUT_DEFAULT &&
                         !carveout_ignored);
  occ_jw_close(w);
}

void occ_jw_kernel(occ_jw *w, const char *key, const occ_kernel *k,
                   const char *name, const char *mangled_name) {
  kernel(w, key, k, name, mangled_name, false);
}

void occ_jw_root_members(occ_jw *w) {
  occ_jw_int(w, "schema", OCC_JSON_SCHEMA);
  occ_jw_string(w, "occcalc_version", OCC_VERSION);
}

/* The basis of the SM's configuration (occ_smem_config_basis): "derived"
 * or "assumed"; null with the configuration. */
static void config_basis(occ_jw *w, const occ_result *r) {
  if (occ_launch_config_known(r))
    occ_jw_string(w, "smem_config_basis",
                  occ_figure_basis_name(r->smem_config_basis));
  else
    occ_jw_null(w, "smem_config_basis");
}

/* smem_config_bytes is the SM's configuration: the driver's at launch, as
 * the report's "SM configured" line, ncu and CUPTI have it (null where not
 * known); api_smem_config_bytes the occupancy API's assumption, which
 * limits.shared_memory divides (null where no block fits). */
static void allocated(occ_jw *w, const occ_result *r) {
  occ_jw_object(w, "allocated");
  occ_jw_int(w, "regs_per_warp", r->regs_per_warp);
  occ_jw_int(w, "regs_per_block", r->regs_per_block);
  occ_jw_int(w, "smem_per_block_bytes", r->smem_per_block_bytes);
  occ_jw_int_or_null(w, "smem_config_bytes", r->launch_smem_config_bytes,
                     occ_launch_config_known(r));
  config_basis(w, r);
  occ_jw_int_or_null(w, "api_smem_config_bytes", r->smem_config_bytes,
                     r->launchable || r->smem_config_bytes > 0);
  occ_jw_close(w);
}

/* The figures of what the SM holds at launch (occ_report_at_launch). */
static void at_launch_figures(occ_jw *w, const occ_at_launch *a) {
  occ_jw_number(w, "active_blocks_per_sm", a->active_blocks_per_sm);
  occ_jw_number(w, "active_warps_per_sm", a->active_warps_per_sm);
  occ_jw_number(w, "occupancy", a->occupancy);
  occ_jw_bool(w, "differs_from_api", a->differs_from_api);
}

/* What the SM holds when the kernel is launched: the same as the
 * occupancy API's answer except under a carveout preference (occ.h); for
 * a cluster launch, the cluster launch's, as the top-level figures, with
 * its clusters at once. */
static void at_launch(occ_jw *w, const occ_report *rep) {
  const occ_device *d = rep->device;
  const occ_result *r = rep->result;
  /* Null where it is not known: an architecture whose default choice was
   * not measured, for blocks with no shared memory of their own. */
  bool known = occ_launch_config_known(r);
  occ_jw_object(w, "at_launch");
  occ_jw_int_or_null(w, "smem_config_bytes", r->launch_smem_config_bytes,
                     known);
  occ_jw_int_or_null(w, "l1_bytes", d->l1_smem_bytes - r->launch_smem_config_bytes,
                     known && d->l1_smem_bytes > 0);
  config_basis(w, r);
  occ_at_launch a = occ_report_at_launch(rep, true);
  /* The clusters the SM's blocks at launch make, under the cluster
   * object's name for the API's count: null without clusters. */
  occ_jw_int_or_null(w, "max_active_clusters", a.max_active_clusters,
                     a.clusters_known);
  at_launch_figures(w, &a);
  occ_jw_close(w);
}

void occ_jw_ncu(occ_jw *w, const char *key, const occ_report *rep) {
  if (!rep->ncu) {
    occ_jw_null(w, key);
    return;
  }
  occ_ncu_value rows[OCC_NCU_ROW_COUNT];
  occ_ncu_values_rows(rep->ncu, rows);
  occ_jw_object(w, key);
  for (int i = 0; i < OCC_NCU_ROW_COUNT; i++)
    occ_jw_number_or_null(w, rows[i].key, rows[i].value, rows[i].known);
  /* The metrics whose figures no survey backs on this architecture. */
  occ_jw_array(w, "assumed_metrics");
  for (int i = 0; i < OCC_NCU_ROW_COUNT; i++)
    if (rows[i].assumed) occ_jw_string(w, NULL, rows[i].key);
  occ_jw_close(w);
  occ_jw_close(w);
}

void occ_jw_waves(occ_jw *w, const char *key, const occ_waves *v) {
  occ_jw_object(w, key);
  occ_jw_int(w, "grid_blocks", v->grid_blocks);
  occ_jw_int(w, "blocks_per_wave", v->blocks_per_wave);
  occ_jw_int(w, "full_waves", v->full_waves);
  occ_jw_int(w, "tail_blocks", v->tail_blocks);
  occ_jw_number(w, "waves", v->waves);
  occ_jw_close(w);
}

void occ_jw_limited_by(occ_jw *w, const char *key, const occ_result *r) {
  occ_jw_array(w, key);
  for (int i = 0; i < OCC_LIMITER_COUNT; i++)
    if ((r->limited_by >> i) & 1) occ_jw_string(w, NULL, occ_limiter_key(i));
  occ_jw_close(w);
}

/* The device under key, its text from memo when memo holds this device
 * in this layout, else written (into memo when it fits). */
static void device_memo(occ_jw *w, const char *key, const occ_device *d,
                        occ_device_text *memo) {
  bool streamed = w->out || w->capture;
  if (!memo || !streamed) {
    occ_jw_device(w, key, d);
    return;
  }
  if (memo->len == 0 || memo->formatted != w->formatted ||
      memo->depth != w->depth || memcmp(&memo->device, d, sizeof *d) != 0) {
    memo->len = 0;
    occ_jw capture;
    occ_jw_capture(&capture, w->formatted, w->depth);
    occ_jw_device(&capture, NULL, d);
    size_t len;
    const char *text = occ_jw_captured(&capture, &len);
    if (!text || len > sizeof memo->text) {
      occ_jw_device(w, key, d);
      return;
    }
    memcpy(memo->text, text, len);
    memo->device = *d;
    memo->formatted = w->formatted;
    memo->depth = w->depth;
    memo->len = len;
  }
  occ_jw_raw(w, key, memo->text, memo->len);
}

/* The same kernel's figures without clusters, for a cluster launch whose
 * top-level figures are the cluster launch's (render/report_rows.h); null
 * for any other launch. */
static void without_clusters(occ_jw *w, const occ_report *rep) {
  if (!occ_report_cluster_launch(rep)) {
    occ_jw_null(w, "without_clusters");
    return;
  }
  const occ_result *r = rep->result;
  occ_jw_object(w, "without_clusters");
  occ_jw_int(w, "active_blocks_per_sm", r->active_blocks_per_sm);
  occ_jw_int(w, "active_warps_per_sm", r->active_warps_per_sm);
  occ_jw_int(w, "active_threads_per_sm", r->active_threads_per_sm);
  occ_jw_number(w, "occupancy", r->occupancy);
  occ_jw_limited_by(w, "limited_by", r);
  if (rep->waves_without_clusters)
    occ_jw_waves(w, "waves", rep->waves_without_clusters);
  else
    occ_jw_null(w, "waves");
  occ_at_launch a = occ_report_at_launch(rep, false);
  occ_jw_object(w, "at_launch");
  at_launch_figures(w, &a);
  occ_jw_close(w);
  occ_jw_close(w);
}

void occ_jw_report_members(occ_jw *w, const occ_report *rep,
                           occ_device_text *memo) {
  const occ_result *r = rep->result;
  occ_jw_root_members(w);
  device_memo(w, "device", rep->device, memo);
  kernel(w, "kernel", rep->kernel, rep->kernel_name, rep->mangled_name,
         r->carveout_ignored);
  occ_jw_int(w, "threads_per_block", r->threads_per_block);
  occ_jw_int(w, "warps_per_block", r->warps_per_block);
  occ_jw_int(w, "inactive_threads", r->inactive_threads);
  allocated(w, r);
  occ_jw_object(w, "limits");
  for (int i = 0; i < OCC_LIMITER_COUNT; i++)
    limit(w, occ_limiter_key(i), occ_result_limit(r, i));
  occ_jw_close(w);
  const occ_cluster_result *c = occ_report_cluster_launch(rep);
  if (c && c->limited_by_cluster) {
    occ_jw_array(w, "limited_by");
    occ_jw_string(w, NULL, "cluster");
    occ_jw_close(w);
  } else {
    occ_jw_limited_by(w, "limited_by", r);
  }
  occ_report_value rows[OCC_OCCUPANCY_ROW_COUNT];
  occ_occupancy_rows(rep, rows);
  for (int i = 0; i < OCC_OCCUPANCY_ROW_COUNT; i++)
    occ_jw_number(w, rows[i].key, rows[i].value);
  at_launch(w, rep);
  occ_jw_ncu(w, "ncu", rep);
  occ_jw_bool(w, "launchable", r->launchable);
  if (r->launchable) {
    occ_jw_null(w, "reason");
  } else {
    char reason[160];
    occ_reason_detail(rep->device, rep->kernel, r, reason, sizeof reason);
    occ_jw_string(w, "reason", reason);
  }
  if (rep->waves)
    occ_jw_waves(w, "waves", rep->waves);
  else
    occ_jw_null(w, "waves");
  occ_jw_cluster(w, "cluster", rep);
  without_clusters(w, rep);
}

/* --- the same objects as trees, for documents still built as trees --- */

cJSON *occ_json_device(const occ_device *d) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_device(&w, NULL, d);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_kernel(const occ_kernel *k, const char *name,
                       const char *mangled_name) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_kernel(&w, NULL, k, name, mangled_name);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_root(void) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_object(&w, NULL);
  occ_jw_root_members(&w);
  occ_jw_close(&w);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_ncu(const occ_report *rep) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_ncu(&w, NULL, rep);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_waves(const occ_waves *v) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_waves(&w, NULL, v);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_limited_by(const occ_result *r) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_limited_by(&w, NULL, r);
  return occ_jw_end_tree(&w);
}

cJSON *occ_json_report(const occ_report *rep) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_object(&w, NULL);
  occ_jw_report_members(&w, rep, NULL);
  /* What a compiler report adds (occ_jw_ptxas_members): null for other
   * sources, so every report has the same keys. */
  occ_jw_null(&w, "compiler");
  occ_jw_null(&w, "block_choice");
  occ_jw_close(&w);
  return occ_jw_end_tree(&w);
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
