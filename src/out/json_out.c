/* json_out.c - the JSON object of one report and the parts every JSON
 * document shares: the root, the device and the kernel (schema 2; the keys
 * are a contract documented in man/occcalc.1). Sizes are bytes in keys
 * ending _bytes; every occupancy is a fraction from 0 to 1; a limit that
 * does not apply is null. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/devfields.h"
#include "out/json_tree.h"
#include "out/report.h"
#include "out/report_text.h"
#include "out/vocab.h"
#include "core/ncu.h"
#include "out/text_safe.h"

/* The tree reports allocation failure by returning NULL; the helpers below
 * keep building and the final check catches it. */
static void add_int_or_null(occ_jnode *obj, const char *key, int64_t value, bool present) {
  if (present)
    occ_jadd_int(obj, key, value);
  else
    occ_jadd_null(obj, key);
}

static void add_limit(occ_jnode *obj, const char *key, int limit) {
  add_int_or_null(obj, key, limit, limit != OCC_UNLIMITED);
}

int occ_print_json(FILE *out, const occ_jnode *obj) {
  if (!obj) {
    occ_msg(stderr, "out of memory writing JSON");
    return -1;
  }
  occ_json_write_formatted(out, obj);
  fputc('\n', out);
  return 0;
}

occ_jnode *occ_json_device(const occ_device *d) {
  occ_jnode *obj = occ_jobject();
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  occ_jadd_string(obj, "name", d->name);
  occ_jadd_string(obj, "source", d->source ? d->source : "database");
  occ_jadd_string(obj, "cc", cc);
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++) {
    int64_t v = occ_device_field_get(d, &fields[i]);
    /* An SM count of 0 means unknown (a generic architecture). */
    add_int_or_null(obj, fields[i].key, v, v != 0 || fields[i].offset !=
                                                         offsetof(occ_device, sm_count));
    if (fields[i].offset == offsetof(occ_device, max_threads_per_sm))
      occ_jadd_number(obj, "max_warps_per_sm", d->max_threads_per_sm / d->warp_size);
  }
  occ_jnode *dims = occ_jadd_array(obj, "max_block_dim");
  for (int i = 0; i < 3; i++) occ_jappend(dims, occ_jnumber(d->max_block_dim[i]));
  occ_jnode *configs = occ_jadd_array(obj, "smem_configs_bytes");
  for (int i = 0; i < d->smem_config_count; i++)
    occ_jappend(configs, occ_jnumber((double)d->smem_configs_bytes[i]));
  return obj;
}

occ_jnode *occ_json_kernel(const occ_kernel *k, const char *name) {
  occ_jnode *obj = occ_jobject();
  if (name)
    occ_jadd_string(obj, "name", name);
  else
    occ_jadd_null(obj, "name");
  occ_jadd(obj, "block", occ_jint_array(k->block, 3));
  occ_jadd_number(obj, "regs_per_thread", k->regs_per_thread);
  occ_jadd_number(obj, "smem_static_bytes", (double)k->smem_static_bytes);
  occ_jadd_number(obj, "smem_dynamic_bytes", (double)k->smem_dynamic_bytes);
  occ_jadd_number(obj, "barriers", k->barriers);
  add_int_or_null(obj, "carveout_pct", k->carveout_pct,
                  k->carveout_pct != OCC_CARVEOUT_DEFAULT);
  /* The last key is missing only when an allocation failed. */
  if (!occ_jget(obj, "carveout_pct") ||
      !occ_jget(obj, "block")) {
    occ_jfree(obj);
    return NULL;
  }
  return obj;
}

occ_jnode *occ_json_root(void) {
  occ_jnode *root = occ_jobject();
  if (!occ_jadd_number(root, "schema", OCC_JSON_SCHEMA) ||
      !occ_jadd_string(root, "occcalc_version", OCC_VERSION)) {
    occ_jfree(root);
    return NULL;
  }
  return root;
}

/* smem_config_bytes is the SM's configuration: the driver's at launch, as
 * the report's "SM configured" line, ncu and CUPTI have it (null where not
 * known); api_smem_config_bytes the occupancy API's assumption, which
 * limits.shared_memory divides (null where no block fits). */
static occ_jnode *json_allocated(const occ_result *r) {
  occ_jnode *obj = occ_jobject();
  occ_jadd_number(obj, "regs_per_warp", r->regs_per_warp);
  occ_jadd_number(obj, "regs_per_block", r->regs_per_block);
  occ_jadd_number(obj, "smem_per_block_bytes", (double)r->smem_per_block_bytes);
  add_int_or_null(obj, "smem_config_bytes", r->launch_smem_config_bytes,
                  occ_launch_config_known(r));
  add_int_or_null(obj, "api_smem_config_bytes", r->smem_config_bytes,
                  r->launchable || r->smem_config_bytes > 0);
  return obj;
}

/* What the SM holds when the kernel is launched: the same as the
 * occupancy API's answer except under a carveout preference (occ.h). */
static occ_jnode *json_at_launch(const occ_device *d, const occ_result *r) {
  occ_jnode *obj = occ_jobject();
  int warps = r->launch_active_blocks_per_sm * r->warps_per_block;
  /* Null where it is not known: an architecture whose default choice was
   * not measured, for blocks with no shared memory of their own. */
  bool known = occ_launch_config_known(r);
  add_int_or_null(obj, "smem_config_bytes", r->launch_smem_config_bytes, known);
  add_int_or_null(obj, "l1_bytes", d->l1_smem_bytes - r->launch_smem_config_bytes,
                  known && d->l1_smem_bytes > 0);
  occ_jadd_number(obj, "active_blocks_per_sm", r->launch_active_blocks_per_sm);
  occ_jadd_number(obj, "active_warps_per_sm", warps);
  occ_jadd_number(obj, "occupancy", occ_launch_occupancy(r));
  occ_jadd_bool(obj, "differs_from_api",
                        r->launch_active_blocks_per_sm != r->active_blocks_per_sm);
  return obj;
}

occ_jnode *occ_json_ncu(const occ_report *rep) {
  occ_ncu n;
  if (occ_ncu_values(rep->device, rep->kernel, rep->result, rep->waves, &n) != OCC_OK)
    return occ_jnull();
  occ_jnode *o = occ_jobject();
  occ_jadd_number(o, "launch__occupancy_limit_registers", n.occupancy_limit_registers);
  add_int_or_null(o, "launch__occupancy_limit_shared_mem", n.occupancy_limit_shared_mem,
                  n.shared_mem_limit == OCC_NCU_SMEM_LIMIT_KNOWN);
  occ_jadd_number(o, "launch__occupancy_limit_warps", n.occupancy_limit_warps);
  occ_jadd_number(o, "launch__occupancy_limit_blocks", n.occupancy_limit_blocks);
  occ_jadd_number(o, "launch__occupancy_limit_barriers", n.occupancy_limit_barriers);
  occ_jadd_number(o, "launch__registers_per_thread", n.registers_per_thread);
  add_int_or_null(o, "launch__shared_mem_config_size", n.shared_mem_config_size,
                  n.shared_mem_config_known);
  occ_jadd_number(o, "launch__shared_mem_per_block_static",
                          (double)n.shared_mem_per_block_static);
  occ_jadd_number(o, "launch__shared_mem_per_block_dynamic",
                          (double)n.shared_mem_per_block_dynamic);
  occ_jadd_number(o, "launch__shared_mem_per_block_driver",
                          (double)n.shared_mem_per_block_driver);
  occ_jadd_number(o, "sm__maximum_warps_per_active_cycle_pct",
                          n.maximum_warps_per_active_cycle_pct);
  if (n.has_waves)
    occ_jadd_number(o, "launch__waves_per_multiprocessor",
                            n.waves_per_multiprocessor);
  else
    occ_jadd_null(o, "launch__waves_per_multiprocessor");
  return o;
}

static occ_jnode *json_waves(const occ_waves *w) {
  occ_jnode *obj = occ_jobject();
  occ_jadd_number(obj, "grid_blocks", (double)w->grid_blocks);
  occ_jadd_number(obj, "blocks_per_wave", (double)w->blocks_per_wave);
  occ_jadd_number(obj, "full_waves", (double)w->full_waves);
  occ_jadd_number(obj, "tail_blocks", (double)w->tail_blocks);
  occ_jadd_number(obj, "waves", w->waves);
  return obj;
}

occ_jnode *occ_json_report(const occ_report *rep) {
  const occ_result *r = rep->result;
  occ_jnode *root = occ_json_root();
  if (!root) return NULL;
  occ_jadd(root, "device", occ_json_device(rep->device));
  occ_jnode *kernel = occ_json_kernel(rep->kernel, rep->kernel_name);
  /* Before cc 7.0 the SM has no carveout: a preference given is ignored
   * (the report says so), so the launch has none. */
  if (kernel && r->carveout_ignored)
    occ_jreplace(kernel, "carveout_pct", occ_jnull());
  occ_jadd(root, "kernel", kernel);
  occ_jadd_number(root, "threads_per_block", r->threads_per_block);
  occ_jadd_number(root, "warps_per_block", r->warps_per_block);
  occ_jadd_number(root, "inactive_threads", r->inactive_threads);
  occ_jadd(root, "allocated", json_allocated(r));
  occ_jnode *limits = occ_jadd_object(root, "limits");
  occ_jnode *limited_by = occ_jadd_array(root, "limited_by");
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    add_limit(limits, occ_limiter_key(i), occ_result_limit(r, i));
    if ((r->limited_by >> i) & 1)
      occ_jappend(limited_by, occ_jstring(occ_limiter_key(i)));
  }
  occ_jadd_number(root, "active_blocks_per_sm", r->active_blocks_per_sm);
  occ_jadd_number(root, "active_warps_per_sm", r->active_warps_per_sm);
  occ_jadd_number(root, "active_threads_per_sm", r->active_threads_per_sm);
  occ_jadd_number(root, "max_warps_per_sm", r->max_warps_per_sm);
  occ_jadd_number(root, "occupancy", r->occupancy);
  occ_jadd(root, "at_launch", json_at_launch(rep->device, r));
  occ_jadd(root, "ncu", occ_json_ncu(rep));
  occ_jadd_bool(root, "launchable", r->launchable);
  if (r->launchable)
    occ_jadd_null(root, "reason");
  else
  {
    char reason[160];
    occ_reason_detail(rep->device, rep->kernel, r, reason, sizeof reason);
    occ_jadd_string(root, "reason", reason);
  }
  if (rep->waves)
    occ_jadd(root, "waves", json_waves(rep->waves));
  else
    occ_jadd_null(root, "waves");
  /* What a compiler report adds (occ_ptxas_json): null for other sources,
   * so every report has the same keys. */
  occ_jadd_null(root, "compiler");
  occ_jadd_null(root, "block_choice");
  /* Any allocation failure above left a key out: report it whole or not at all. */
  if (!occ_jget(root, "block_choice") ||
      !occ_jget(root, "waves") ||
      !occ_jget(root, "device") ||
      !occ_jget(root, "kernel")) {
    occ_jfree(root);
    return NULL;
  }
  return root;
}

/* One device of the list, with the database's family and reference. */
static bool add_listed(occ_jnode *array, const occ_device *d, const char *family,
                       const char *reference) {
  occ_jnode *obj = occ_json_device(d);
  if (!obj || !occ_jadd_string(obj, "family", family) ||
      !occ_jadd_string(obj, "reference", reference) ||
      !occ_jappend(array, obj)) {
    occ_jfree(obj);
    return false;
  }
  return true;
}

occ_jnode *occ_json_gpu_list(const occ_gpudb *db) {
  occ_jnode *root = occ_json_root();
  occ_jnode *gpus = occ_jadd_array(root, "gpus");
  occ_jnode *archs = occ_jadd_array(root, "architectures");
  bool ok = gpus && archs;
  for (size_t i = 0; ok && i < occ_gpudb_gpu_count(db); i++) {
    occ_device d;
    const char *family, *reference;
    occ_gpudb_gpu_at(db, i, &d, &family, &reference);
    ok = add_listed(gpus, &d, family, reference);
  }
  for (size_t i = 0; ok && i < occ_gpudb_arch_count(db); i++) {
    occ_device d;
    const char *family, *reference;
    occ_gpudb_arch_at(db, i, &d, &family, &reference);
    ok = add_listed(archs, &d, family, reference);
  }
  if (!ok) {
    occ_jfree(root);
    return NULL;
  }
  return root;
}
