/* run_out.c - the writers of `occcalc run` (see run_out.h). */
#include "render/run_out.h"

#include <inttypes.h>
#include <string.h>

#include "model/cluster.h"
#include "render/csv.h"
#include "render/json_write.h"
#include "render/report.h"
#include "render/run_cluster.h"
#include "text/text_safe.h"
#include "render/vocab.h"

static const char *const launch_types[] = {"regular", "cooperative",
                                           "cooperative_multi_device",
                                           "cluster"};

static const char *launch_type_name(int type) {
  return type >= 0 && type < 4 ? launch_types[type] : "regular";
}

/* The fill of the last wave, 0..1: 1 when the grid is whole waves. */
static double last_wave_fill(const occ_waves *w) {
  if (w->blocks_per_wave == 0) return 0;
  return w->tail_blocks ? (double)w->tail_blocks / (double)w->blocks_per_wave
                        : 1.0;
}

static void text_size(char *buf, size_t size, int64_t bytes) {
  if (bytes < 1024)
    snprintf(buf, size, "%" PRId64 " B", bytes);
  else
    snprintf(buf, size, "%.1f KiB", (double)bytes / 1024);
}

static void text_dims(char *buf, size_t size, const int32_t d[3]) {
  if (d[2] > 1)
    snprintf(buf, size, "%dx%dx%d", d[0], d[1], d[2]);
  else if (d[1] > 1)
    snprintf(buf, size, "%dx%d", d[0], d[1]);
  else
    snprintf(buf, size, "%d", d[0]);
}

static void text_time(char *buf, size_t size, double us) {
  if (us >= 1000)
    snprintf(buf, size, "%.2f ms", us / 1000);
  else
    snprintf(buf, size, "%.1f us", us);
}

/* The launch types as the text names them: short enough for one line. */
static const char *const launch_type_words[] = {"", ", cooperative",
                                                ", multi-device", ""};

static void text_config(FILE *out, const occ_run_row *row) {
  const occ_launch_record *l = row->first;
  char grid[40], block[40], cluster[48] = "", smem[24], local[24], sm[24];
  text_dims(grid, sizeof grid, l->grid);
  text_dims(block, sizeof block, l->block);
  if ((int64_t)l->cluster[0] * l->cluster[1] * l->cluster[2] > 1) {
    char dims[32];
    text_dims(dims, sizeof dims, l->cluster);
    snprintf(cluster, sizeof cluster, ", cluster %s", dims);
  }
  fprintf(out, "   grid %s, block %s%s%s\n", grid, block, cluster,
          l->launch_type >= 0 && l->launch_type < 4
              ? launch_type_words[l->launch_type] : "");
  text_size(smem, sizeof smem,
            (int64_t)l->smem_static_bytes + l->smem_dynamic_bytes);
  text_size(local, sizeof local, l->local_bytes_per_thread);
  /* Under the profiler the activity record carries no configuration. */
  char config[64] = "the SM's configuration unknown";
  if (row->measure.smem_executed_bytes > 0) {
    text_size(sm, sizeof sm, row->measure.smem_executed_bytes);
    bool assumed = row->measure.smem_config_predicted && row->item.device &&
                   row->item.result.smem_config_basis ==
                       OCC_FIGURE_ASSUMED;
    snprintf(config, sizeof config, "the SM configured with %s%s", sm,
             assumed ? ", assumed"
             : row->measure.smem_config_predicted ? ", predicted" : "");
  }
  fprintf(out, "   %d regs, %s shared (%s), %s local\n", l->regs_per_thread, smem,
          config, local);
}

/* Text after a three-space indent, wrapped at 80 columns. */
static void text_wrapped(FILE *out, const char *text) {
  enum { WIDTH = 77 };
  while (*text) {
    size_t n = strlen(text);
    if (n > WIDTH) {
      n = WIDTH;
      while (n > 0 && text[n] != ' ') n--;
      if (n == 0) n = WIDTH;
    }
    fprintf(out, "   %.*s\n", (int)n, text);
    text += n;
    while (*text == ' ') text++;
  }
}

static void text_occupancy(FILE *out, const occ_run_row *row) {
  char line[320], words[80];
  if (row->item.device)
    snprintf(line, sizeof line, "theoretical %.1f%% (%s), at launch %.1f%%",
             100 * occ_model_occupancy(&row->item),
             occ_run_limiters_words(&row->item, words, sizeof words),
             100 * row->measure.launch_occupancy);
  else
    snprintf(line, sizeof line,
             "theoretical unknown (the device could not be read)");
  text_wrapped(out, line);
  size_t n = row->measure.achieved_known
                 ? (size_t)snprintf(line, sizeof line, "achieved %.1f%%",
                                    100 * row->measure.achieved)
                 : (size_t)snprintf(line, sizeof line, "achieved -%s",
                                    row->first->graph_id ? " (in a graph)"
                                                         : "");
  const occ_measure *m = &row->measure;
  if (row->sampled && m->achieved_known) {
    n += (size_t)snprintf(line + n, sizeof line - n, " (%zu of %zu launch%s "
                          "measured, %zu cleanly", m->counter_launch_count,
                          m->launch_count, m->launch_count == 1 ? "" : "es",
                          m->clean_launch_count);
    if (m->basis_why && m->clean_launch_count < m->counter_launch_count)
      n += (size_t)snprintf(line + n, sizeof line - n, "; others: %s",
                            m->basis_why);
    snprintf(line + n, sizeof line - n, ")");
  } else if (row->sampled && m->achieved_why) {
    snprintf(line + n, sizeof line - n, " (%s)", m->achieved_why);
  } else if (m->achieved_known && m->counter_launch_count < m->launch_count)
    n += (size_t)snprintf(line + n, sizeof line - n, " (%zu of %zu launches",
                          m->counter_launch_count, m->launch_count);
  if (m->achieved_known && m->counter_launch_count < m->launch_count &&
      m->graph_launch_count)
    n += (size_t)snprintf(line + n, sizeof line - n,
                          "; %zu in a CUDA graph, not profiled",
                          m->graph_launch_count);
  if (m->achieved_known && m->counter_launch_count < m->launch_count)
    n += (size_t)snprintf(line + n, sizeof line - n, ")");
  text_wrapped(out, line);
  /* A line of its own: after "achieved" it wrapped inside a phrase. */
  if (row->item.device && row->item.waves.blocks_per_wave) {
    snprintf(line, sizeof line, "waves %.2f, %" PRId64 " block%s a wave (%s)",
             row->item.waves.waves, row->item.waves.blocks_per_wave,
             row->item.waves.blocks_per_wave == 1 ? "" : "s",
             occ_waves_words(&row->item.waves, words, sizeof words));
    text_wrapped(out, line);
  }
  if (occ_run_cluster_line(&row->item, line, sizeof line))
    text_wrapped(out, line);
  if (row->measure.cause[0]) {
    snprintf(line, sizeof line, "why lower: %s", row->measure.cause);
    text_wrapped(out, line);
  }
}

static void text_metrics(FILE *out, const occ_run_report *rep,
                         const occ_run_row *row) {
  if (!row->measure.achieved_known) return;
  for (int i = 0; i < rep->metric_count; i++) {
    char name[61];
    occ_text_safe(rep->metric_names[i], name, sizeof name);
    if (row->metric_known[i])
      fprintf(out, "   %s %.4g\n", name, row->metric_values[i]);
    else
      fprintf(out, "   %s -\n", name);
  }
}

void occ_run_print_record_notes(FILE *out, const occ_run_report *rep) {
  size_t n = rep->skipped_record_count;
  if (n)
    occ_msg(out, "note: skipped %zu invalid record%s of the records' file "
            "(the first %s)", n, n == 1 ? "" : "s",
            rep->skipped_record_reason ? rep->skipped_record_reason : "");
  if (rep->records_unread_reason)
    occ_msg(out, "note: %s", rep->records_unread_reason);
  const occ_launch_record *r = rep->client_refused;
  if (r) {
    char call[64], error[OCC_RECORD_WHY_MAX], where[64];
    if (rep->client_refused_count > 1)
      snprintf(where, sizeof where, "in %zu processes (the first %d)",
               rep->client_refused_count, r->pid);
    else
      snprintf(where, sizeof where, "in process %d", r->pid);
    occ_msg(out, "note: the program's own CUPTI client was refused %s "
            "(%s returned %s): a profiler inside the program "
            "(torch.profiler, Kineto) records no GPU activity under "
            "occcalc run; --trace writes the launches' timeline", where,
            occ_text_safe(r->name, call, sizeof call),
            occ_text_safe(r->why, error, sizeof error));
  }
}

/* "cupti_client_refused": null, or the first refused process' call and
 * error and how many processes were refused. */
static cJSON *client_refused_json(const occ_run_report *rep) {
  const occ_launch_record *r = rep->client_refused;
  if (!r) return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddNumberToObject(o, "process_count",
                          (double)rep->client_refused_count);
  cJSON_AddNumberToObject(o, "first_pid", r->pid);
  cJSON_AddStringToObject(o, "call", r->name);
  cJSON_AddStringToObject(o, "reason", r->why);
  return o;
}

/* --measure sample's header: what ran and why, then each device's
 * samples. */
static void text_sampling(FILE *out, const occ_run_report *rep) {
  char why[OCC_SAMPLER_WHY_MAX + 64];
  fprintf(out, "   measure: PM sampling (%s)\n",
          occ_text_safe(rep->measure_why ? rep->measure_why : "", why,
                        sizeof why));
  const occ_sampler_status *st = rep->sampler;
  for (int i = 0; st && i < st->device_count; i++) {
    const occ_sampler_device *d = &st->devices[i];
    if (d->state == OCC_SAMPLER_OFF) continue;
    if (d->state != OCC_SAMPLER_ON) {
      fprintf(out, "   GPU %d not sampled: %s\n", d->ordinal,
              occ_text_safe(d->why, why, sizeof why));
      continue;
    }
    fprintf(out, "   GPU %d: every %.1f us, %llu sample%s (%llu idle), %llu "
            "lost", d->ordinal, (double)d->interval_ns / 1000,
            (unsigned long long)d->sample_count,
            d->sample_count == 1 ? "" : "s",
            (unsigned long long)d->idle_count,
            (unsigned long long)d->lost_count);
    if (d->overflow) fprintf(out, ", the buffer overflowed");
    fprintf(out, "; decoded in %.2f s, %.2f s after the program\n",
            d->decode_seconds, d->drain_seconds);
    if (d->why[0])
      fprintf(out, "   GPU %d: %s\n", d->ordinal,
              occ_text_safe(d->why, why, sizeof why));
  }
  if (rep->samples_skipped)
    fprintf(out, "   %llu invalid sample%s skipped\n",
            (unsigned long long)rep->samples_skipped,
            rep->samples_skipped == 1 ? "" : "s");
}

/* The header's two lines: the counters, and occcalc's time in the
 * program's processes. */
static void text_cost(FILE *out, const occ_run_cost *c) {
  char each[64] = "every launch";
  if (c->launches_per_configuration > 0)
    snprintf(each, sizeof each, "%lld of each configuration",
             (long long)c->launches_per_configuration);
  if (!c->counters && c->sampled)
    ;
  else if (!c->counters)
    fputs("   counters: off (--measure none)\n", out);
  else if (c->process_count == 0)
    fprintf(out, "   counters: %s, caches %s\n", each,
            c->flush ? "flushed" : "not flushed");
  else
    fprintf(out, "   counters: %.0f launch%s profiled (%s), caches %s\n",
            c->profiled, c->profiled == 1 ? "" : "es", each,
            c->flush ? "flushed" : "not flushed");
  if (c->flush_failed_why) {
    char why[OCC_RECORD_WHY_MAX];
    fprintf(out, "   caches not always flushed: %s\n",
            occ_text_safe(c->flush_failed_why, why, sizeof why));
  }
  if (c->process_count == 0) {
    fputs("   overhead: not recorded (no process ran its exit handlers)\n",
          out);
    return;
  }
  char processes[40] = "process";
  if (c->process_count > 1)
    snprintf(processes, sizeof processes, "%zu processes", c->process_count);
  fprintf(out, "   overhead: %.2f s in the program's %s", c->seconds,
          processes);
  fputc('\n', out);
  if (c->counters && c->profiler_seconds > 0)
    fprintf(out, "   the profiler's start: %.2f s, beside the program from "
            "its first context\n", c->profiler_seconds);
}

void occ_run_print_text(FILE *out, const occ_run_report *rep) {
  const char *slash = strrchr(rep->program, '/');
  char program[25];
  occ_text_safe(slash ? slash + 1 : rep->program, program, sizeof program);
  fprintf(out, "occcalc run: %s: %zu launch%s, %zu configuration%s, exit "
          "status %d\n", program, rep->launch_count,
          rep->launch_count == 1 ? "" : "es", rep->row_count,
          rep->row_count == 1 ? "" : "s", rep->status);
  if (rep->measure == OCC_MEASURE_SAMPLE)
    text_sampling(out, rep);
  text_cost(out, &rep->cost);
  for (size_t i = 0; i < rep->row_count; i++) {
    const occ_run_row *row = &rep->rows[i];
    char mean[24], total[24], name[77];
    text_time(mean, sizeof mean, row->measure.mean_us);
    text_time(total, sizeof total, row->measure.total_us);
    fprintf(out, "%2zu %s\n", i + 1,
            occ_text_safe(row->item.readable, name, sizeof name));
    fprintf(out, "   %zu launch%s on GPU %d, %s mean, %s total\n",
            row->measure.launch_count, row->measure.launch_count == 1 ? "" : "es",
            row->first->device, mean, total);
    text_config(out, row);
    text_occupancy(out, row);
    text_metrics(out, rep, row);
  }
  if (rep->note) occ_msg(out, "note: %s", rep->note);
  occ_run_print_record_notes(out, rep);
}

static void add_dims(cJSON *obj, const char *key, const int32_t d[3]) {
  int v[3] = {d[0], d[1], d[2]};
  cJSON_AddItemToObject(obj, key, cJSON_CreateIntArray(v, 3));
}

/* "metrics": each name's value, null where known[i] is false. */
static void add_metrics(cJSON *obj, const double *values,
                        const bool *known, const char *const *names,
                        int count) {
  cJSON *m = cJSON_AddObjectToObject(obj, "metrics");
  for (int i = 0; m && i < count; i++)
    occ_json_add_number_or_null(m, names[i], known[i] ? values[i] : 0,
                                known[i]);
}

/* The attributes read at launch (inject_attrs.c), each null unread. The
 * preferred carveout is carveout_pct, with the kernel object's rule:
 * null also for no preference (CUDA's default, -1 in the record). */
static void add_at_launch(cJSON *o, const occ_launch_record *l) {
  static const char *const policies[] = {"default", "spread",
                                         "load_balancing"};
  int known = l->at_launch_known;
  occ_json_add_number_or_null(o, "carveout_pct", l->carveout_preferred_pct,
                     (known & OCC_AT_LAUNCH_CARVEOUT) &&
                         l->carveout_preferred_pct >= 0);
  occ_json_add_number_or_null(o, "max_dynamic_smem_bytes",
                              l->max_dynamic_smem_bytes,
                     known & OCC_AT_LAUNCH_MAX_DYNAMIC_SMEM);
  if (known & OCC_AT_LAUNCH_NON_PORTABLE)
    cJSON_AddBoolToObject(o, "cluster_non_portable", l->cluster_non_portable);
  else
    cJSON_AddNullToObject(o, "cluster_non_portable");
  if ((known & OCC_AT_LAUNCH_POLICY) && l->cluster_policy >= 0 &&
      l->cluster_policy <= OCC_CLUSTER_POLICY_LOAD_BALANCING)
    cJSON_AddStringToObject(o, "cluster_scheduling_policy",
                            policies[l->cluster_policy]);
  else
    cJSON_AddNullToObject(o, "cluster_scheduling_policy");
}

/* One launch: the record's fields, as --jsonl writes and as each JSON
 * row's "launches" holds, added to o. A value the record does not carry
 * (the SM's configuration and the times of a profiled launch, 0 in the
 * record) is null. */
static cJSON *launch_json(cJSON *o, const occ_launch_record *l,
                          const occ_launch_record *counters,
                          const occ_sampled_launch *sampled,
                          const char *const *names, int count) {
  if (!o) return NULL;
  cJSON_AddNumberToObject(o, "pid", l->pid);
  cJSON_AddNumberToObject(o, "device_ordinal", l->device);
  cJSON_AddNumberToObject(o, "context", l->context);
  cJSON_AddNumberToObject(o, "stream", l->stream);
  cJSON_AddNumberToObject(o, "correlation_id", l->correlation);
  add_dims(o, "grid", l->grid);
  add_dims(o, "cluster", l->cluster);
  cJSON_AddNumberToObject(o, "local_bytes_per_thread",
                          l->local_bytes_per_thread);
  occ_json_add_number_or_null(o, "smem_executed_bytes", l->smem_executed_bytes,
                     l->smem_executed_bytes > 0);
  cJSON_AddStringToObject(o, "launch_type", launch_type_name(l->launch_type));
  add_at_launch(o, l);
  occ_json_add_number_or_null(o, "graph_id", l->graph_id, l->graph_id != 0);
  if (l->start_ns) occ_json_add_int(o, "start_ns", (int64_t)l->start_ns);
  else cJSON_AddNullToObject(o, "start_ns");
  if (l->end_ns) occ_json_add_int(o, "end_ns", (int64_t)l->end_ns);
  else cJSON_AddNullToObject(o, "end_ns");
  /* From the times, else from the counters' record; else not known. */
  occ_json_add_number_or_null(o, "duration_us",
                              occ_launch_duration_us(l, counters),
                     l->end_ns > l->start_ns ||
                         (counters && counters->value_count > 1));
  if (sampled) {
    occ_json_add_number_or_null(o, "achieved_occupancy", sampled->achieved,
                                sampled->known);
    if (sampled->basis_key)
      cJSON_AddStringToObject(o, "achieved_basis", sampled->basis_key);
    else cJSON_AddNullToObject(o, "achieved_basis");
    cJSON_AddStringToObject(o, "achieved_reason", sampled->reason);
    cJSON_AddNumberToObject(o, "sample_count", sampled->sample_count);
  } else {
    occ_json_add_number_or_null(o, "achieved_occupancy",
                       counters ? counters->values[0] / 100 : 0, counters);
  }
  /* The launch's metrics: those its counters record holds. */
  bool known[OCC_RECORD_METRICS_MAX] = {false};
  for (int i = 0; counters && i < count && i < OCC_RECORD_METRICS_MAX; i++)
    known[i] = counters->value_count > OCC_RECORD_FIRST_METRIC + i;
  add_metrics(o, counters ? counters->values + OCC_RECORD_FIRST_METRIC : NULL,
              known, names, count);
  return o;
}

static occ_kernel record_kernel(const occ_launch_record *l) {
  occ_kernel k;
  occ_kernel_init(&k);
  for (int i = 0; i < 3; i++) k.block[i] = l->block[i];
  k.regs_per_thread = l->regs_per_thread;
  k.smem_static_bytes = l->smem_static_bytes;
  k.smem_dynamic_bytes = l->smem_dynamic_bytes;
  k.carveout_pct = l->carveout_requested_pct;
  return k;
}

void occ_run_print_jsonl(FILE *out, const occ_launch_record *l,
                         const char *readable,
                         const occ_launch_record *counters,
                         const char *const *names, int count) {
  /* Each line a document of its own: the root's schema first. */
  cJSON *o = launch_json(occ_json_root(), l, counters, NULL, names, count);
  occ_kernel k = record_kernel(l);
  if (o)
    cJSON_AddItemToObject(o, "kernel", occ_json_kernel(&k, readable, l->name));
  if (o && occ_json_write_compact(out, o))
    fputc('\n', out);
  else
    occ_msg(stderr, "out of memory writing JSON");
  cJSON_Delete(o);
}

/* A row's numbers, described once as rows of key, kind and getter (as
 * curl's variables[]): the JSON row and the CSV row walk the same table,
 * so they cannot disagree on a name, a value or what is not known (null in
 * JSON, an empty field in CSV). */
typedef enum { FIELD_COUNT, FIELD_TIME, FIELD_FRACTION, FIELD_FLAG } field_kind;

/* True when known, the value in *v. */
typedef bool field_getter(const occ_run_row *row, double *v);

static bool get_launch_count(const occ_run_row *r, double *v) {
  *v = (double)r->measure.launch_count;
  return true;
}
static bool get_total_time(const occ_run_row *r, double *v) {
  *v = r->measure.total_us;
  return true;
}
static bool get_mean_time(const occ_run_row *r, double *v) {
  *v = r->measure.mean_us;
  return true;
}
/* Not recorded (a profiled launch): unknown, never 0. */
static bool get_smem_executed(const occ_run_row *r, double *v) {
  *v = r->measure.smem_executed_bytes;
  return r->measure.smem_executed_bytes > 0;
}
/* Known with the configuration: 1 when occcalc's rule predicted it. */
static bool get_smem_predicted(const occ_run_row *r, double *v) {
  *v = r->measure.smem_config_predicted;
  return r->measure.smem_executed_bytes > 0;
}
static bool get_theoretical(const occ_run_row *r, double *v) {
  *v = occ_model_occupancy(&r->item); /* a cluster launch's: its rule */
  return r->item.device != NULL;
}
static bool get_active_blocks(const occ_run_row *r, double *v) {
  *v = r->item.device ? occ_model_active_blocks_per_sm(&r->item) : 0;
  return r->item.device != NULL;
}
static bool get_launch_occupancy(const occ_run_row *r, double *v) {
  *v = r->measure.launch_occupancy;
  return r->item.device != NULL;
}
static bool get_last_wave_fill(const occ_run_row *r, double *v) {
  *v = last_wave_fill(&r->item.waves);
  return r->item.device != NULL;
}
static bool get_counter_launches(const occ_run_row *r, double *v) {
  *v = (double)r->measure.counter_launch_count;
  return true;
}
/* Known under PM sampling only. */
static bool get_clean_launches(const occ_run_row *r, double *v) {
  *v = (double)r->measure.clean_launch_count;
  return r->sampled != NULL;
}
static bool get_achieved(const occ_run_row *r, double *v) {
  *v = r->measure.achieved;
  return r->measure.achieved_known;
}

static const struct {
  const char *key;
  field_kind kind;
  field_getter *get;
} row_fields[] = {
    {"launch_count", FIELD_COUNT, get_launch_count},
    {"total_time_us", FIELD_TIME, get_total_time},
    {"mean_time_us", FIELD_TIME, get_mean_time},
    {"smem_executed_bytes", FIELD_COUNT, get_smem_executed},
    {"smem_config_predicted", FIELD_FLAG, get_smem_predicted},
    {"theoretical_occupancy", FIELD_FRACTION, get_theoretical},
    {"active_blocks_per_sm", FIELD_COUNT, get_active_blocks},
    {"launch_occupancy", FIELD_FRACTION, get_launch_occupancy},
    {"last_wave_fill", FIELD_FRACTION, get_last_wave_fill},
    {"counter_launch_count", FIELD_COUNT, get_counter_launches},
    {"clean_launch_count", FIELD_COUNT, get_clean_launches},
    {"achieved_occupancy", FIELD_FRACTION, get_achieved},
};
enum { ROW_FIELD_COUNT = sizeof row_fields / sizeof row_fields[0] };

static void row_fields_json(cJSON *o, const occ_run_row *row) {
  for (int i = 0; i < ROW_FIELD_COUNT; i++) {
    double v;
    bool known = row_fields[i].get(row, &v);
    if (known && row_fields[i].kind == FIELD_FLAG)
      cJSON_AddBoolToObject(o, row_fields[i].key, v != 0);
    else
      occ_json_add_number_or_null(o, row_fields[i].key, v, known);
  }
}

static void row_occupancy_json(cJSON *o, const occ_run_row *row) {
  bool dev = row->item.device != NULL;
  row_fields_json(o, row);
  cJSON_AddItemToObject(o, "limited_by",
                        !dev ? cJSON_CreateNull()
                        : occ_model_limited_by_cluster(&row->item)
                            ? cJSON_CreateStringArray((const char *[]){"cluster"}, 1)
                            : occ_json_limited_by(&row->item.result));
  cJSON_AddItemToObject(o, "waves", dev ? occ_json_waves(&row->item.waves)
                                        : cJSON_CreateNull());
  /* The configuration's basis: recorded by CUPTI, else as predicted. */
  const char *basis =
      row->measure.smem_executed_bytes <= 0 ? NULL
      : !row->measure.smem_config_predicted ? occ_figure_basis_name(OCC_FIGURE_MEASURED)
      : dev ? occ_figure_basis_name(row->item.result.smem_config_basis)
            : NULL;
  cJSON_AddItemToObject(o, "smem_config_basis",
                        basis ? cJSON_CreateString(basis) : cJSON_CreateNull());
  if (row->measure.achieved_why)
    cJSON_AddStringToObject(o, "achieved_null_reason", row->measure.achieved_why);
  else
    cJSON_AddNullToObject(o, "achieved_null_reason");
  if (row->measure.cause[0])
    cJSON_AddStringToObject(o, "cause", row->measure.cause);
  else
    cJSON_AddNullToObject(o, "cause");
}

static cJSON *row_json(const occ_run_report *rep, const occ_run_row *row) {
  cJSON *o = cJSON_CreateObject();
  const occ_launch_record *l = row->first;
  cJSON_AddItemToObject(o, "kernel", occ_json_kernel(&row->item.kernel,
                                                     row->item.readable,
                                                     l->name));
  cJSON_AddNumberToObject(o, "device_ordinal", l->device);
  cJSON_AddItemToObject(o, "device", row->item.device
                                         ? occ_json_device(row->item.device)
                                         : cJSON_CreateNull());
  add_dims(o, "grid", l->grid);
  add_dims(o, "cluster", l->cluster);
  cJSON_AddItemToObject(o, "cluster_launch", occ_run_cluster_json(&row->item));
  cJSON_AddStringToObject(o, "launch_type", launch_type_name(l->launch_type));
  cJSON_AddNumberToObject(o, "local_bytes_per_thread",
                          l->local_bytes_per_thread);
  row_occupancy_json(o, row);
  add_metrics(o, row->metric_values, row->metric_known, rep->metric_names,
              rep->metric_count);
  cJSON *launches = cJSON_AddArrayToObject(o, "launches");
  for (size_t i = 0; launches && i < row->measure.launch_count; i++)
    cJSON_AddItemToArray(launches,
                         launch_json(cJSON_CreateObject(), row->launches[i],
                                     row->counters[i],
                                     row->sampled ? row->sampled[i] : NULL,
                                     rep->metric_names, rep->metric_count));
  return o;
}

/* "counters": what they were and what the library cost (null where no
 * process wrote its summary, or the counters were off). */
static cJSON *cost_json(const occ_run_cost *c) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  bool known = c->process_count > 0;
  cJSON_AddBoolToObject(o, "enabled", c->counters);
  occ_json_add_number_or_null(o, "launches_per_configuration",
                     (double)c->launches_per_configuration,
                     c->counters && c->launches_per_configuration > 0);
  if (c->counters)
    cJSON_AddStringToObject(o, "cache_control", c->flush ? "all" : "none");
  else
    cJSON_AddNullToObject(o, "cache_control");
  occ_json_add_number_or_null(o, "profiled_launch_count", c->profiled,
                     known && c->counters);
  occ_json_add_number_or_null(o, "flushed_launch_count", c->flushed,
                     known && c->counters);
  if (c->flush_failed_why)
    cJSON_AddStringToObject(o, "flush_failed_reason", c->flush_failed_why);
  else
    cJSON_AddNullToObject(o, "flush_failed_reason");
  cJSON_AddNumberToObject(o, "process_count", (double)c->process_count);
  occ_json_add_number_or_null(o, "overhead_s", c->seconds, known);
  occ_json_add_number_or_null(o, "profiler_start_s", c->profiler_seconds,
                     known && c->counters);
  return o;
}

/* "measure": what measured achieved occupancy, why, and (PM sampling)
 * each device's samples. */
static cJSON *measure_json(const occ_run_report *rep) {
  static const char *const names[] = {"sample", "replay", "none"};
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "mode", names[rep->measure]);
  if (rep->measure_why) cJSON_AddStringToObject(o, "reason", rep->measure_why);
  else cJSON_AddNullToObject(o, "reason");
  cJSON_AddNumberToObject(o, "skipped_sample_count",
                          (double)rep->samples_skipped);
  cJSON *devices = cJSON_AddArrayToObject(o, "devices");
  const occ_sampler_status *st = rep->sampler;
  static const char *const states[] = {"off", "sampled", "unsupported",
                                       "busy", "not_permitted", "failed"};
  for (int i = 0; devices && st && i < st->device_count; i++) {
    const occ_sampler_device *d = &st->devices[i];
    if (d->state == OCC_SAMPLER_OFF) continue;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "device_ordinal", d->ordinal);
    cJSON_AddStringToObject(j, "chip", d->chip);
    cJSON_AddStringToObject(j, "state", d->state >= 0 && d->state <= 5
                                            ? states[d->state] : "failed");
    bool on = d->state == OCC_SAMPLER_ON;
    occ_json_add_number_or_null(j, "interval_ns", (double)d->interval_ns, on);
    occ_json_add_number_or_null(j, "max_warps_per_sm", d->max_warps_per_sm,
                                on);
    occ_json_add_number_or_null(j, "sample_count", (double)d->sample_count, on);
    occ_json_add_number_or_null(j, "idle_sample_count",
                                (double)d->idle_count, on);
    occ_json_add_number_or_null(j, "lost_sample_count",
                                (double)d->lost_count, on);
    occ_json_add_number_or_null(j, "overflow_count", d->overflow, on);
    occ_json_add_number_or_null(j, "image_full_count",
                                (double)d->image_full_count, on);
    occ_json_add_number_or_null(j, "init_s", d->init_seconds, on);
    occ_json_add_number_or_null(j, "config_s", d->config_seconds, on);
    occ_json_add_number_or_null(j, "start_s", d->start_seconds, on);
    occ_json_add_number_or_null(j, "decode_s", d->decode_seconds, on);
    occ_json_add_number_or_null(j, "drain_s", d->drain_seconds, on);
    if (d->why[0]) cJSON_AddStringToObject(j, "reason", d->why);
    else cJSON_AddNullToObject(j, "reason");
    cJSON_AddItemToArray(devices, j);
  }
  return o;
}

/* Row i of the report, made when the streamed document reaches it. */
static cJSON *row_item(void *context, size_t i) {
  const occ_run_report *rep = context;
  return row_json(rep, &rep->rows[i]);
}

/* The rows are streamed (occ_json_write_streamed): one row's tree at a
 * time, so 40,000 configurations cost what one does, not a tree of
 * millions of items and its text (328 MB). */
int occ_run_print_json(FILE *out, const occ_run_report *rep) {
  cJSON *root = occ_json_root();
  if (root) {
    cJSON_AddStringToObject(root, "program", rep->program);
    cJSON_AddNumberToObject(root, "exit_status", rep->status);
    cJSON_AddNumberToObject(root, "launch_count", (double)rep->launch_count);
    cJSON_AddItemToObject(root, "measure", measure_json(rep));
    cJSON_AddItemToObject(root, "counters", cost_json(&rep->cost));
    cJSON_AddArrayToObject(root, "rows");
    if (rep->note)
      cJSON_AddStringToObject(root, "note", rep->note);
    else
      cJSON_AddNullToObject(root, "note");
    cJSON_AddNumberToObject(root, "skipped_record_count",
                    (double)rep->skipped_record_count);
    if (rep->skipped_record_reason)
      cJSON_AddStringToObject(root, "skipped_record_reason",
                      rep->skipped_record_reason);
    else
      cJSON_AddNullToObject(root, "skipped_record_reason");
    if (rep->records_unread_reason)
      cJSON_AddStringToObject(root, "records_unread_reason",
                      rep->records_unread_reason);
    else
      cJSON_AddNullToObject(root, "records_unread_reason");
    cJSON_AddItemToObject(root, "cupti_client_refused",
                          client_refused_json(rep));
  }
  bool ok = occ_json_write_streamed(out, root, "rows", row_item, (void *)rep,
                                    rep->row_count);
  cJSON_Delete(root);
  if (!ok) {
    occ_msg(stderr, "out of memory writing JSON");
    return -1;
  }
  fputc('\n', out);
  return 0;
}


static void csv_number(FILE *out, double v, bool known) {
  if (known)
    fprintf(out, ",%.6g", v);
  else
    fputs(",", out);
}

/* A field of row_fields: counts whole, times in 3 decimals. */
static void csv_field_value(FILE *out, field_kind kind, double v, bool known) {
  if (!known)
    fputs(",", out);
  else if (kind == FIELD_FLAG)
    fputs(v != 0 ? ",true" : ",false", out);
  else if (kind == FIELD_COUNT)
    fprintf(out, ",%.0f", v);
  else if (kind == FIELD_TIME)
    fprintf(out, ",%.3f", v);
  else
    fprintf(out, ",%.6g", v);
}

static void csv_row(FILE *out, const occ_run_report *rep,
                    const occ_run_row *row) {
  const occ_launch_record *l = row->first;
  bool dev = row->item.device != NULL;
  char keys[96];
  occ_csv_field(out, row->item.readable);
  fputc(',', out);
  occ_csv_field(out, l->name);
  fprintf(out, ",%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", l->device, l->grid[0],
          l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
          l->regs_per_thread, l->smem_static_bytes, l->smem_dynamic_bytes);
  fprintf(out, ",%s", !dev ? ""
                      : occ_model_limited_by_cluster(&row->item)
                          ? "cluster"
                          : occ_limiters_keys(row->item.result.limited_by, keys,
                                              sizeof keys));
  csv_number(out, row->item.waves.waves, dev);
  for (int i = 0; i < ROW_FIELD_COUNT; i++) {
    double v;
    bool known = row_fields[i].get(row, &v);
    csv_field_value(out, row_fields[i].kind, v, known);
  }
  for (int i = 0; i < rep->metric_count; i++)
    csv_number(out, row->metric_values[i], row->metric_known[i]);
  fputc(',', out);
  occ_csv_field(out, row->measure.cause);
  fputc('\n', out);
}

void occ_run_print_csv(FILE *out, const occ_run_report *rep) {
  /* The JSON row's names; limited_by its keys joined by "+", waves the
   * number of waves (the JSON object's "waves"). */
  fputs("kernel,mangled_name,device_ordinal,grid_x,grid_y,grid_z,block_x,"
        "block_y,block_z,regs_per_thread,smem_static_bytes,"
        "smem_dynamic_bytes,limited_by,waves", out);
  for (int i = 0; i < ROW_FIELD_COUNT; i++) fprintf(out, ",%s", row_fields[i].key);
  for (int i = 0; i < rep->metric_count; i++) {
    fputc(',', out);
    occ_csv_field(out, rep->metric_names[i]);
  }
  fputs(",cause\n", out);
  for (size_t i = 0; i < rep->row_count; i++) csv_row(out, rep, &rep->rows[i]);
}

int occ_run_print(FILE *out, occ_format format, const occ_run_report *report) {
  switch (format) {
  case OCC_FORMAT_JSON: return occ_run_print_json(out, report);
  case OCC_FORMAT_CSV: occ_run_print_csv(out, report); return 0;
  default: occ_run_print_text(out, report); return 0;
  }
}
