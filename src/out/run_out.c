/* run_out.c - the writers of `occcalc run` (see run_out.h). */
#include "out/run_out.h"

#include <inttypes.h>
#include <string.h>

#include "out/json_write.h"
#include "out/report.h"
#include "out/text_safe.h"
#include "out/vocab.h"

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
  if (row->smem_executed_bytes > 0) {
    text_size(sm, sizeof sm, row->smem_executed_bytes);
    snprintf(config, sizeof config, "the SM configured with %s%s", sm,
             row->smem_config_predicted ? ", predicted" : "");
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
  if (row->device)
    snprintf(line, sizeof line, "theoretical %.1f%% (%s), at launch %.1f%%",
             100 * row->result.occupancy,
             occ_limiters_words(row->result.limited_by, words, sizeof words),
             100 * row->launch_occupancy);
  else
    snprintf(line, sizeof line,
             "theoretical unknown (the device could not be read)");
  text_wrapped(out, line);
  size_t n = row->achieved_known
                 ? (size_t)snprintf(line, sizeof line, "achieved %.1f%%",
                                    100 * row->achieved)
                 : (size_t)snprintf(line, sizeof line, "achieved -%s",
                                    row->first->graph_id ? " (in a graph)"
                                                         : "");
  if (row->achieved_known && row->counter_launch_count < row->launch_count)
    n += (size_t)snprintf(line + n, sizeof line - n, " (%zu of %zu launches)",
                          row->counter_launch_count, row->launch_count);
  text_wrapped(out, line);
  /* A line of its own: after "achieved" it wrapped inside a phrase. */
  if (row->device && row->waves.blocks_per_wave) {
    snprintf(line, sizeof line, "waves %.2f of %" PRId64 " blocks (%s)", row->waves.waves,
             row->waves.blocks_per_wave, occ_waves_words(&row->waves, words, sizeof words));
    text_wrapped(out, line);
  }
  if (row->cause[0]) {
    snprintf(line, sizeof line, "why lower: %s", row->cause);
    text_wrapped(out, line);
  }
}

static void text_metrics(FILE *out, const occ_run_report *rep,
                         const occ_run_row *row) {
  if (!row->achieved_known) return;
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
}

void occ_run_print_text(FILE *out, const occ_run_report *rep) {
  const char *slash = strrchr(rep->program, '/');
  char program[25];
  occ_text_safe(slash ? slash + 1 : rep->program, program, sizeof program);
  fprintf(out, "occcalc run: %s: %zu launches, %zu configurations, exit "
          "status %d\n", program, rep->launch_count, rep->row_count,
          rep->status);
  for (size_t i = 0; i < rep->row_count; i++) {
    const occ_run_row *row = &rep->rows[i];
    char mean[24], total[24], name[77];
    text_time(mean, sizeof mean, row->mean_us);
    text_time(total, sizeof total, row->total_us);
    fprintf(out, "%2zu %s\n", i + 1,
            occ_text_safe(row->readable, name, sizeof name));
    fprintf(out, "   %zu launch%s on GPU %d, %s mean, %s total\n",
            row->launch_count, row->launch_count == 1 ? "" : "es",
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

static void add_number_or_null(cJSON *obj, const char *key, double v,
                               bool known) {
  if (known)
    cJSON_AddNumberToObject(obj, key, v);
  else
    cJSON_AddNullToObject(obj, key);
}

/* "metrics": each name's value, null where known[i] is false. */
static void add_metrics(cJSON *obj, const double *values,
                        const bool *known, const char *const *names,
                        int count) {
  cJSON *m = cJSON_AddObjectToObject(obj, "metrics");
  for (int i = 0; m && i < count; i++)
    add_number_or_null(m, names[i], known[i] ? values[i] : 0, known[i]);
}

/* The attributes read at launch (inject_attrs.c), each null unread. */
static void add_at_launch(cJSON *o, const occ_launch_record *l) {
  static const char *const policies[] = {"default", "spread",
                                         "load_balancing"};
  int known = l->at_launch_known;
  add_number_or_null(o, "carveout_preferred_pct", l->carveout_preferred_pct,
                     known & OCC_AT_LAUNCH_CARVEOUT);
  add_number_or_null(o, "max_dynamic_smem_bytes", l->max_dynamic_smem_bytes,
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
 * row's "launches" holds. */
static cJSON *launch_json(const occ_launch_record *l,
                          const occ_launch_record *counters,
                          const char *const *names, int count) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "pid", l->pid);
  cJSON_AddNumberToObject(o, "device", l->device);
  cJSON_AddNumberToObject(o, "context", l->context);
  cJSON_AddNumberToObject(o, "stream", l->stream);
  cJSON_AddNumberToObject(o, "correlation_id", l->correlation);
  add_dims(o, "grid", l->grid);
  add_dims(o, "cluster", l->cluster);
  cJSON_AddNumberToObject(o, "local_bytes_per_thread",
                          l->local_bytes_per_thread);
  add_number_or_null(o, "smem_executed_bytes", l->smem_executed_bytes,
                     l->smem_executed_bytes > 0);
  cJSON_AddStringToObject(o, "launch_type", launch_type_name(l->launch_type));
  add_at_launch(o, l);
  add_number_or_null(o, "graph_id", l->graph_id, l->graph_id != 0);
  occ_json_add_int(o, "start_ns", (int64_t)l->start_ns);
  occ_json_add_int(o, "end_ns", (int64_t)l->end_ns);
  cJSON_AddNumberToObject(o, "duration_us", occ_launch_duration_us(l, counters));
  add_number_or_null(o, "achieved_occupancy",
                     counters ? counters->values[0] / 100 : 0, counters);
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
  cJSON *o = launch_json(l, counters, names, count);
  occ_kernel k = record_kernel(l);
  cJSON_AddItemToObject(o, "kernel", occ_json_kernel(&k, readable));
  cJSON_AddStringToObject(o, "mangled_name", l->name);
  if (occ_json_write_compact(out, o))
    fputc('\n', out);
  else
    occ_msg(stderr, "out of memory writing JSON");
  cJSON_Delete(o);
}

static void row_occupancy_json(cJSON *o, const occ_run_row *row) {
  bool dev = row->device != NULL;
  char keys[96];
  add_number_or_null(o, "theoretical_occupancy", row->result.occupancy, dev);
  if (dev)
    cJSON_AddStringToObject(o, "limited_by",
                            occ_limiters_keys(row->result.limited_by, keys,
                                              sizeof keys));
  else
    cJSON_AddNullToObject(o, "limited_by");
  add_number_or_null(o, "active_blocks_per_sm",
                     row->result.active_blocks_per_sm, dev);
  add_number_or_null(o, "launch_occupancy", row->launch_occupancy, dev);
  add_number_or_null(o, "waves", row->waves.waves, dev);
  add_number_or_null(o, "last_wave_fill", last_wave_fill(&row->waves), dev);
  add_number_or_null(o, "achieved_occupancy", row->achieved,
                     row->achieved_known);
  cJSON_AddNumberToObject(o, "counter_launch_count",
                          (double)row->counter_launch_count);
  if (row->achieved_why)
    cJSON_AddStringToObject(o, "achieved_null_reason", row->achieved_why);
  else
    cJSON_AddNullToObject(o, "achieved_null_reason");
  if (row->cause[0])
    cJSON_AddStringToObject(o, "cause", row->cause);
  else
    cJSON_AddNullToObject(o, "cause");
}

static cJSON *row_json(const occ_run_report *rep, const occ_run_row *row) {
  cJSON *o = cJSON_CreateObject();
  const occ_launch_record *l = row->first;
  cJSON_AddItemToObject(o, "kernel", occ_json_kernel(&row->kernel,
                                                     row->readable));
  cJSON_AddStringToObject(o, "mangled_name", l->name);
  cJSON_AddNumberToObject(o, "device", l->device);
  add_dims(o, "grid", l->grid);
  add_dims(o, "cluster", l->cluster);
  cJSON_AddStringToObject(o, "launch_type", launch_type_name(l->launch_type));
  cJSON_AddNumberToObject(o, "local_bytes_per_thread",
                          l->local_bytes_per_thread);
  add_number_or_null(o, "smem_executed_bytes", row->smem_executed_bytes,
                     row->smem_executed_bytes > 0);
  cJSON_AddBoolToObject(o, "smem_config_predicted", row->smem_config_predicted);
  cJSON_AddNumberToObject(o, "launch_count", (double)row->launch_count);
  cJSON_AddNumberToObject(o, "total_time_us", row->total_us);
  cJSON_AddNumberToObject(o, "mean_time_us", row->mean_us);
  row_occupancy_json(o, row);
  add_metrics(o, row->metric_values, row->metric_known, rep->metric_names,
              rep->metric_count);
  cJSON *launches = cJSON_AddArrayToObject(o, "launches");
  for (size_t i = 0; launches && i < row->launch_count; i++)
    cJSON_AddItemToArray(launches,
                         launch_json(row->launches[i], row->counters[i],
                                     rep->metric_names, rep->metric_count));
  return o;
}

int occ_run_print_json(FILE *out, const occ_run_report *rep) {
  cJSON *root = occ_json_root();
  if (root) {
    cJSON_AddStringToObject(root, "program", rep->program);
    cJSON_AddNumberToObject(root, "exit_status", rep->status);
    cJSON_AddNumberToObject(root, "launch_count", (double)rep->launch_count);
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t i = 0; rows && i < rep->row_count; i++)
      cJSON_AddItemToArray(rows, row_json(rep, &rep->rows[i]));
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
  }
  int rc = occ_print_json(out, root);
  cJSON_Delete(root);
  return rc;
}

/* A CSV field: quoted, with quotes doubled (C++ names hold commas). */
static void csv_text(FILE *out, const char *text) {
  fputc('"', out);
  for (const char *p = text; *p; p++) {
    if (*p == '"') fputc('"', out);
    fputc(*p, out);
  }
  fputc('"', out);
}

static void csv_number(FILE *out, double v, bool known) {
  if (known)
    fprintf(out, ",%.6g", v);
  else
    fputs(",", out);
}

static void csv_row(FILE *out, const occ_run_report *rep,
                    const occ_run_row *row) {
  const occ_launch_record *l = row->first;
  bool dev = row->device != NULL;
  char keys[96];
  csv_text(out, row->readable);
  fputc(',', out);
  csv_text(out, l->name);
  fprintf(out, ",%d,%zu,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d", l->device,
          row->launch_count, row->total_us, row->mean_us, l->grid[0],
          l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
          l->regs_per_thread, l->smem_static_bytes, l->smem_dynamic_bytes);
  if (row->smem_executed_bytes > 0) /* else unknown: empty, never 0 */
    fprintf(out, ",%d", row->smem_executed_bytes);
  else
    fputs(",", out);
  csv_number(out, row->result.occupancy, dev);
  fprintf(out, ",%s", dev ? occ_limiters_keys(row->result.limited_by, keys,
                                              sizeof keys) : "");
  csv_number(out, row->launch_occupancy, dev);
  csv_number(out, row->waves.waves, dev);
  csv_number(out, last_wave_fill(&row->waves), dev);
  fprintf(out, ",%zu", row->counter_launch_count);
  csv_number(out, row->achieved, row->achieved_known);
  for (int i = 0; i < rep->metric_count; i++)
    csv_number(out, row->metric_values[i], row->metric_known[i]);
  fputc(',', out);
  csv_text(out, row->cause);
  fputc('\n', out);
}

void occ_run_print_csv(FILE *out, const occ_run_report *rep) {
  fputs("kernel,mangled_name,device,launch_count,total_time_us,"
        "mean_time_us,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
        "regs_per_thread,smem_static_bytes,smem_dynamic_bytes,"
        "smem_executed_bytes,theoretical_occupancy,limited_by,"
        "launch_occupancy,waves,last_wave_fill,counter_launch_count,"
        "achieved_occupancy", out);
  for (int i = 0; i < rep->metric_count; i++) {
    fputc(',', out);
    csv_text(out, rep->metric_names[i]);
  }
  fputs(",cause\n", out);
  for (size_t i = 0; i < rep->row_count; i++) csv_row(out, rep, &rep->rows[i]);
}
