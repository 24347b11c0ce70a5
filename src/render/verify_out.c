/* verify_out.c - human and JSON writers of the live verification. They
 * format what the live backend measured (model/verify.h); nothing is
 * recomputed. The checks come from model/verify.c's table (occ_checks),
 * one row each. */
#include "render/verify_out.h"

#include <inttypes.h>

#include "render/report.h"

static void print_probe(FILE *out, const occ_device *device, int ordinal,
                        const occ_verify *v) {
  fprintf(out, "verify: device %d, %s (%d SMs)\n  probe kernel: %d "
          "registers/thread, %" PRId64 " B dynamic shared memory, %d threads\n",
          ordinal, device->name, device->sm_count, v->probe.regs_per_thread,
          v->probe.smem_dynamic_bytes, v->probe.block[0]);
  if (!v->regs_exact)
    fprintf(out, "  the probe could not use exactly %d registers (the JIT "
            "compiler gave %d): verified with %d, predicted for %d\n",
            v->requested.regs_per_thread, v->run.regs_per_thread,
            v->run.regs_per_thread, v->run.regs_per_thread);
}

/* The CUDA occupancy API's answer, naming the function called (a line of
 * its own: the name is 45 columns), and the driver's where it differs. */
static void print_api(FILE *out, int api, int driver, const char *kernel) {
  fprintf(out, "  %-26s %-8d cudart's answer for %s:\n    %s\n",
          "CUDA occupancy API", api, kernel, occ_gpu_api_function);
  if (driver != api)
    fprintf(out, "  %-26s %-8d differs from cudart's:\n    %s\n",
            "driver's occupancy API", driver, occ_gpu_driver_api_function);
}

static void print_measured(FILE *out, const occ_device *device,
                           const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  if (!r->launched) {
    fprintf(out, "  %-26s %-8d launch of 1 block refused: %s\n",
            "measured resident/SM", 0, r->launch_error);
    return;
  }
  char range[32];
  snprintf(range, sizeof range, "%d..%d", r->measured_min, r->measured_max);
  fprintf(out, "  %-26s %-8s min..max over %d/%d SMs, %" PRId64
          " blocks\n", "measured resident/SM", range, r->sms_seen,
          device->sm_count, r->grid_blocks);
}

/* A configuration in KB, the unit the driver's configurations come in. */
static void config_text(int64_t bytes, char *out, size_t size) {
  if (bytes % 1024 == 0)
    snprintf(out, size, "%" PRId64 " KB", bytes / 1024);
  else
    snprintf(out, size, "%" PRId64 " B", bytes);
}

/* The configuration the driver chose beside the prediction at launch; the
 * reason it was not read on a line of its own, cut at 80 columns. */
static void print_config(FILE *out, const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  int64_t predicted_bytes = v->prediction.launch_smem_config_bytes;
  char executed[24] = "?", predicted[24], note[40] = "no prediction";
  if (predicted_bytes > 0) {
    config_text(predicted_bytes, predicted, sizeof predicted);
    snprintf(note, sizeof note, "predicted %s", predicted);
  }
  if (r->smem_config_executed_bytes < 0) {
    fprintf(out, "  %-26s %-8s not read (CUPTI); %s\n    %.76s\n",
            "SM configuration", executed, note, r->smem_config_error);
    return;
  }
  config_text(r->smem_config_executed_bytes, executed, sizeof executed);
  fprintf(out, "  %-26s %-8s driver's choice (CUPTI); %s\n",
          "SM configuration", executed, note);
}

static void print_achieved(FILE *out, const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  char timeline[16], counter[sizeof r->counter_error + 8];
  snprintf(timeline, sizeof timeline, "%.1f%%", 100 * r->achieved_timeline);
  if (r->counter_ok)
    snprintf(counter, sizeof counter, "%.1f%%", 100 * r->achieved_counter);
  else
    snprintf(counter, sizeof counter, "n/a: %s",
             r->counter_error[0] ? r->counter_error : "not read");
  fprintf(out, "  %-26s %-8s timeline; counter %s\n", "achieved occupancy",
          timeline, counter);
}

static void print_coop(FILE *out, const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  if (r->cooperative_max_blocks >= 0)
    fprintf(out, "  %-26s %-8" PRId64 " launched; %" PRId64
            " refused as too large\n", "cooperative launch bound",
            r->cooperative_max_blocks, r->cooperative_max_blocks + 1);
  else
    fprintf(out, "  %-26s %-8s %s\n", "cooperative launch bound", "?",
            r->coop_note);
}

static void print_differences(FILE *out, const occ_device *device,
                              const occ_verify *v) {
  for (int i = 0; i < OCC_CHECK_COUNT; i++) {
    int64_t got, want;
    const occ_check *c = &occ_checks[i];
    if (!((v->failed >> i) & 1) || !c->judge(device, v, &got, &want))
      continue;
    fprintf(out, "  differs: %s %" PRId64 ", %s %" PRId64 "\n", c->observed,
            got, c->expected, want);
  }
}

void occ_verify_launch_reason(const occ_result *p, char *out, size_t size) {
  if (p->launch_smem_config_bytes > 0)
    snprintf(out, size, "the driver configures %" PRId64 " KB, not %" PRId64
             " KB", p->launch_smem_config_bytes / 1024,
             p->smem_config_bytes / 1024);
  else
    snprintf(out, size, "no shared memory of its own: not limited");
}

void occ_print_verify(FILE *out, const occ_device *device, int ordinal,
                      const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  print_probe(out, device, ordinal, v);
  fprintf(out, "  %-26s %-8d %.1f%% theoretical occupancy\n",
          "predicted blocks/SM", v->prediction.active_blocks_per_sm,
          100 * v->prediction.occupancy);
  const occ_result *p = &v->prediction;
  if (p->launch_active_blocks_per_sm != p->active_blocks_per_sm) {
    char why[80];
    occ_verify_launch_reason(p, why, sizeof why);
    fprintf(out, "  %-26s %-8d %s\n", "predicted at launch",
            p->launch_active_blocks_per_sm, why);
  }
  print_api(out, r->api_blocks_per_sm, r->driver_api_blocks_per_sm,
            "the probe");
  print_measured(out, device, v);
  print_config(out, v);
  print_achieved(out, v);
  print_coop(out, v);
  print_differences(out, device, v);
  fprintf(out, "  verdict: %s\n", v->agree ? "agree" : "DISAGREE");
}

static cJSON *add_object(cJSON *parent, const char *key) {
  cJSON *o = cJSON_CreateObject();
  if (o && !cJSON_AddItemToObject(parent, key, o)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static void add_string_or_null(cJSON *o, const char *key, const char *text) {
  if (text && text[0])
    cJSON_AddStringToObject(o, key, text);
  else
    cJSON_AddNullToObject(o, key);
}

/* The probe is a kernel like any other, plus how it came to be. */
static bool json_probe(cJSON *v_json, const occ_verify *v) {
  cJSON *p = occ_json_kernel(&v->probe, NULL, NULL);
  if (!p || !cJSON_AddItemToObject(v_json, "probe", p)) {
    cJSON_Delete(p);
    return false;
  }
  cJSON_AddNumberToObject(p, "regs_requested", v->requested.regs_per_thread);
  cJSON_AddBoolToObject(p, "regs_exact", v->regs_exact);
  cJSON_AddNumberToObject(p, "local_bytes_per_thread",
                          (double)v->run.local_bytes_per_thread);
  return true;
}

static bool json_measured(cJSON *o, const occ_verify *v) {
  const occ_probe_run *r = &v->run;
  cJSON *m = add_object(o, "measured_blocks_per_sm");
  if (!m) return false;
  cJSON_AddNumberToObject(m, "min", r->measured_min);
  cJSON_AddNumberToObject(m, "max", r->measured_max);
  cJSON_AddNumberToObject(m, "sms_seen", r->sms_seen);
  cJSON_AddNumberToObject(m, "grid_blocks", (double)r->grid_blocks);
  cJSON_AddBoolToObject(m, "launched", r->launched);
  add_string_or_null(m, "launch_error", r->launch_error);
  cJSON *a = add_object(o, "achieved_occupancy");
  if (!a) return false;
  occ_json_add_number_or_null(a, "timeline", r->achieved_timeline,
                              r->launched);
  occ_json_add_number_or_null(a, "counter", r->achieved_counter,
                              r->counter_ok);
  add_string_or_null(a, "counter_error", r->counter_ok ? NULL : r->counter_error);
  return true;
}

/* The configuration the driver chose (null, with the reason, when not
 * read) and the prediction at launch (null when there is none). */
static void json_config(cJSON *o, const occ_probe_run *r,
                        const occ_result *prediction) {
  bool read = r && r->smem_config_executed_bytes >= 0;
  occ_json_add_number_or_null(
      o, "smem_config_executed_bytes",
      read ? (double)r->smem_config_executed_bytes : 0, read);
  add_string_or_null(o, "smem_config_executed_error",
                     r && !read ? r->smem_config_error : NULL);
  occ_json_add_number_or_null(o, "predicted_smem_config_bytes",
                              (double)prediction->launch_smem_config_bytes,
                              prediction->launch_smem_config_bytes > 0);
}

static bool json_cost(cJSON *o, const occ_probe_run *r) {
  cJSON *t = add_object(o, "cost_ms");
  if (!t) return false;
  cJSON_AddNumberToObject(t, "jit", r->jit_ms);
  cJSON_AddNumberToObject(t, "launch", r->launch_ms);
  cJSON_AddNumberToObject(t, "counter", r->counter_ms);
  cJSON_AddNumberToObject(t, "cooperative", r->coop_ms);
  return true;
}

/* Each answer with the function that gave it. */
static void json_api(cJSON *o, int api, int driver) {
  cJSON_AddNumberToObject(o, "api_blocks_per_sm", api);
  cJSON_AddStringToObject(o, "api_function", occ_gpu_api_function);
  cJSON_AddNumberToObject(o, "driver_api_blocks_per_sm", driver);
  cJSON_AddStringToObject(o, "driver_api_function", occ_gpu_driver_api_function);
}

static bool json_failed(cJSON *o, unsigned failed) {
  cJSON *list = cJSON_AddArrayToObject(o, "differences");
  if (!list) return false;
  for (int i = 0; i < OCC_CHECK_COUNT; i++)
    if ((failed >> i) & 1)
      cJSON_AddItemToArray(list, cJSON_CreateString(occ_checks[i].key));
  return true;
}

cJSON *occ_json_verify(int ordinal, const occ_verify *v) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  const occ_probe_run *r = &v->run;
  cJSON_AddNumberToObject(o, "device_index", ordinal);
  cJSON_AddNumberToObject(o, "predicted_blocks_per_sm",
                          v->prediction.active_blocks_per_sm);
  cJSON_AddNumberToObject(o, "predicted_occupancy", v->prediction.occupancy);
  cJSON_AddNumberToObject(o, "predicted_launch_blocks_per_sm",
                          v->prediction.launch_active_blocks_per_sm);
  json_api(o, r->api_blocks_per_sm, r->driver_api_blocks_per_sm);
  json_config(o, r, &v->prediction);
  bool ok = json_measured(o, v);
  if (r->cooperative_max_blocks >= 0)
    cJSON_AddNumberToObject(o, "cooperative_max_blocks",
                            (double)r->cooperative_max_blocks);
  else
    cJSON_AddNullToObject(o, "cooperative_max_blocks");
  add_string_or_null(o, "cooperative_note", r->coop_note);
  ok = ok && json_probe(o, v) && json_cost(o, r) && json_failed(o, v->failed);
  cJSON_AddBoolToObject(o, "agree", v->agree);
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

void occ_print_sweep_case(FILE *out, int index, const occ_verify *v) {
  const occ_kernel *k = &v->requested;
  const occ_probe_run *r = &v->run;
  fprintf(out, "case %d: regs %d (probe %d) block %d smem %" PRId64 "+%" PRId64
          " carveout %d: predicted %d (at launch %d), api %d (driver %d), "
          "measured %d..%d, coop %" PRId64 ", config %" PRId64 " (predicted %" PRId64
          "), timeline %.3f, counter %.3f%s\n", index, k->regs_per_thread,
          r->regs_per_thread, k->block[0], k->smem_static_bytes,
          k->smem_dynamic_bytes, k->carveout_pct,
          v->prediction.active_blocks_per_sm,
          v->prediction.launch_active_blocks_per_sm, r->api_blocks_per_sm,
          r->driver_api_blocks_per_sm,
          r->measured_min, r->measured_max, r->cooperative_max_blocks,
          r->smem_config_executed_bytes,
          v->prediction.launch_smem_config_bytes, r->achieved_timeline,
          r->counter_ok ? r->achieved_counter : -1.0,
          v->agree ? "" : "  DISAGREE");
}

void occ_print_sweep_summary(FILE *out, const occ_device *device, int ordinal,
                             int n, uint64_t seed, const occ_sweep_summary *s) {
  fprintf(out, "sweep: %d random configurations (seed %" PRIu64 ") on device "
          "%d, %s\n", n, seed, ordinal, device->name);
  fprintf(out, "  all checks agree      %d/%d\n", s->agree, s->cases);
  for (int i = 0; i < OCC_CHECK_COUNT; i++)
    fprintf(out, "  %-21s %d/%d\n", occ_checks[i].summary, s->checks[i],
            s->cases);
  fprintf(out, "  API == measured       %d/%d (predicted %d: the driver's "
          "carveout)\n", s->api_is_measured, s->cases,
          s->cases - s->launch_differs);
  fprintf(out, "  exact probe registers %d/%d\n", s->regs_exact, s->cases);
  fprintf(out, "  agree by carveout     %d/%d with a preference, %d/%d with "
          "the default\n", s->with_carveout_agree, s->with_carveout,
          s->agree - s->with_carveout_agree, s->cases - s->with_carveout);
  fprintf(out, "  achieved, max |diff|  timeline %.3f; counter %.3f (read "
          "%d/%d)\n", s->timeline_max_diff, s->counter_max_diff,
          s->counter_ok, s->cases);
  double per = s->cases ? 1.0 / s->cases : 0;
  fprintf(out, "  cost per case         %.2f ms = JIT %.2f (%d compiles) + "
          "launches %.2f\n                        + counter %.2f + "
          "cooperative %.2f; sweep %.1f s\n", s->total_ms * per,
          s->jit_ms * per, s->jit_compiles, s->launch_ms * per,
          s->counter_ms * per, s->coop_ms * per, s->total_ms / 1e3);
}

cJSON *occ_json_sweep_case(int ordinal, int index, const occ_verify *v) {
  cJSON *c = cJSON_CreateObject();
  cJSON *kernel = occ_json_kernel(&v->requested, NULL, NULL);
  cJSON *verify = occ_json_verify(ordinal, v);
  if (!c || !kernel || !verify) {
    cJSON_Delete(c), cJSON_Delete(kernel), cJSON_Delete(verify);
    return NULL;
  }
  cJSON_AddNumberToObject(c, "index", index);
  cJSON_AddItemToObject(c, "kernel", kernel);
  cJSON_AddItemToObject(c, "verify", verify);
  return c;
}

cJSON *occ_json_sweep(const occ_device *device, const occ_sweep_summary *s,
                      uint64_t seed) {
  cJSON *root = occ_json_root();
  cJSON *dev = occ_json_device(device);
  cJSON *summary = occ_json_sweep_summary(s, seed);
  if (!root || !dev || !summary) {
    cJSON_Delete(root), cJSON_Delete(dev), cJSON_Delete(summary);
    return NULL;
  }
  cJSON_AddItemToObject(root, "device", dev);
  cJSON_AddItemToObject(root, "summary", summary);
  return root;
}

cJSON *occ_json_sweep_summary(const occ_sweep_summary *s, uint64_t seed) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  occ_json_add_int(o, "seed", (int64_t)seed);
  cJSON_AddNumberToObject(o, "cases", s->cases);
  cJSON_AddNumberToObject(o, "agree", s->agree);
  cJSON *c = add_object(o, "checks");
  cJSON *t = add_object(o, "cost_ms");
  if (!c || !t) {
    cJSON_Delete(o);
    return NULL;
  }
  for (int i = 0; i < OCC_CHECK_COUNT; i++)
    cJSON_AddNumberToObject(c, occ_checks[i].key, s->checks[i]);
  cJSON_AddNumberToObject(c, "regs_exact", s->regs_exact);
  cJSON_AddNumberToObject(o, "api_equals_measured", s->api_is_measured);
  cJSON_AddNumberToObject(o, "launch_differs_from_api", s->launch_differs);
  cJSON_AddNumberToObject(c, "counter_read", s->counter_ok);
  cJSON_AddNumberToObject(o, "cases_with_carveout", s->with_carveout);
  cJSON_AddNumberToObject(o, "agree_with_carveout", s->with_carveout_agree);
  cJSON_AddNumberToObject(o, "timeline_max_diff", s->timeline_max_diff);
  cJSON_AddNumberToObject(o, "counter_max_diff", s->counter_max_diff);
  cJSON_AddNumberToObject(t, "total", s->total_ms);
  cJSON_AddNumberToObject(t, "jit", s->jit_ms);
  cJSON_AddNumberToObject(t, "launch", s->launch_ms);
  cJSON_AddNumberToObject(t, "counter", s->counter_ms);
  cJSON_AddNumberToObject(t, "cooperative", s->coop_ms);
  cJSON_AddNumberToObject(o, "jit_compiles", s->jit_compiles);
  return o;
}

void occ_print_module_check(FILE *out, const occ_module_kernel *mk,
                            const occ_result *prediction, bool agree) {
  fprintf(out, "module kernel: %d registers/thread, %" PRId64 " B static "
          "shared memory,\n  %" PRId64 " B local memory/thread, at most %d "
          "threads/block\n  (not launched: its arguments are unknown)\n",
          mk->regs_per_thread, mk->smem_static_bytes,
          mk->local_bytes_per_thread, mk->max_threads_per_block);
  fprintf(out, "  %-26s %d\n", "predicted blocks/SM",
          prediction->active_blocks_per_sm);
  print_api(out, mk->api_blocks_per_sm, mk->driver_api_blocks_per_sm,
            "the kernel");
  fprintf(out, "  verdict: %s\n", agree ? "agree" : "DISAGREE");
}

/* The same keys as a probe's "verify" object: what was not measured is
 * null, and "module" holds the kernel's attributes. */
cJSON *occ_json_module_check(const occ_module_kernel *mk,
                             const occ_result *prediction, bool agree) {
  cJSON *o = cJSON_CreateObject();
  cJSON *m = o ? add_object(o, "module") : NULL;
  if (!m) {
    cJSON_Delete(o);
    return NULL;
  }
  cJSON_AddNumberToObject(m, "regs_per_thread", mk->regs_per_thread);
  cJSON_AddNumberToObject(m, "smem_static_bytes", (double)mk->smem_static_bytes);
  cJSON_AddNumberToObject(m, "local_bytes_per_thread",
                          (double)mk->local_bytes_per_thread);
  cJSON_AddNumberToObject(m, "const_bytes", (double)mk->const_bytes);
  cJSON_AddNumberToObject(m, "max_threads_per_block", mk->max_threads_per_block);
  cJSON_AddNumberToObject(m, "ptx_version", mk->ptx_version);
  cJSON_AddNumberToObject(m, "binary_version", mk->binary_version);
  cJSON_AddBoolToObject(m, "launched", false);
  cJSON_AddNumberToObject(o, "predicted_blocks_per_sm",
                          prediction->active_blocks_per_sm);
  cJSON_AddNumberToObject(o, "predicted_occupancy", prediction->occupancy);
  cJSON_AddNumberToObject(o, "predicted_launch_blocks_per_sm",
                          prediction->launch_active_blocks_per_sm);
  json_api(o, mk->api_blocks_per_sm, mk->driver_api_blocks_per_sm);
  json_config(o, NULL, prediction);
  cJSON_AddNullToObject(o, "measured_blocks_per_sm");
  cJSON_AddNullToObject(o, "achieved_occupancy");
  cJSON_AddNullToObject(o, "cooperative_max_blocks");
  cJSON_AddNullToObject(o, "probe");
  if (!json_failed(o, mk->failed) ||
      !cJSON_AddBoolToObject(o, "agree", agree)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
