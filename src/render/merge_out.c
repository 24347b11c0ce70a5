/* merge_out.c - the merged report of `occcalc report` as text, JSON or
 * CSV (see merge_out.h). */
#include "render/merge_out.h"

#include <math.h>

#include "render/csv.h"
#include "render/json_write.h"
#include "text/text_safe.h"

/* An occupancy fraction as a percentage, "-" when unknown. */
static void pct(double v, bool known, char *buf, size_t size) {
  if (known)
    snprintf(buf, size, "%.1f%%", 100.0 * v);
  else
    snprintf(buf, size, "-");
}

/* A count or time in width columns: whole digits while they fit, else
 * with an exponent (a count of 1e15 launches is "1.00e+15"): the table
 * stays 80 columns wide whatever the sums. */
static void fit(double v, int width, int decimals, char *buf, size_t size) {
  int n = snprintf(buf, size, "%.*f", decimals, v);
  if (n > width) snprintf(buf, size, "%.*e", width - 7 > 0 ? width - 7 : 0, v);
}

static void write_text(FILE *out, const occ_run_merge *m) {
  size_t reports = m->report_count, configs = m->row_count;
  fprintf(out, "%zu report%s merged, %.0f launch%s, %zu configuration%s\n",
          reports, reports == 1 ? "" : "s", m->launch_count,
          m->launch_count == 1 ? "" : "es", configs, configs == 1 ? "" : "s");
  if (m->overhead_known)
    fprintf(out, "occcalc's time in the programs: %.2f s\n", m->overhead_s);
  fputc('\n', out);
  /* 36 + 1 + 8 + 1 + 5 + 1 + 7 + 1 + 8 + 1 + 11 = 80 columns. */
  fprintf(out, "%-36s %8s %5s %7s %8s %11s\n", "kernel", "launches", "ranks",
          "theor.", "achieved", "time (us)");
  for (size_t i = 0; i < m->row_count; i++) {
    const occ_merge_row *r = &m->rows[i];
    char name[37], theo[16], ach[16], time[32], launches[32], ranks[16];
    occ_text_safe(r->name, name, sizeof name);
    pct(r->theoretical_occupancy, r->theoretical_known, theo, sizeof theo);
    pct(r->achieved_occupancy, r->achieved_weight > 0, ach, sizeof ach);
    fit(r->total_time_us, 11, 1, time, sizeof time);
    fit(r->launch_count, 8, 0, launches, sizeof launches);
    fit((double)r->rank_count, 5, 0, ranks, sizeof ranks);
    fprintf(out, "%-36s %8s %5s %7s %8s %11s\n", name, launches, ranks, theo,
            ach, time);
  }
}

/* A number as its shortest exact text ("" when unknown). */
static void csv_number(FILE *out, double v, bool known) {
  if (known) fprintf(out, "%.17g", v);
}

static void csv_dims(FILE *out, const int64_t d[3]) {
  char buf[80] = "";
  if (d[0] || d[1] || d[2])
    snprintf(buf, sizeof buf, "%lldx%lldx%lld", (long long)d[0],
             (long long)d[1], (long long)d[2]);
  occ_csv_field(out, buf);
}

static void write_csv(FILE *out, const occ_run_merge *m) {
  fputs("kernel,mangled_name,grid,block,launch_count,ranks,"
        "theoretical_occupancy,achieved_occupancy,total_time_us,"
        "mean_time_us\n", out);
  for (size_t i = 0; i < m->row_count; i++) {
    const occ_merge_row *r = &m->rows[i];
    occ_csv_field(out, r->name);
    fputc(',', out);
    occ_csv_field(out, r->mangled_name);
    fputc(',', out);
    csv_dims(out, r->grid);
    fputc(',', out);
    csv_dims(out, r->block);
    fputc(',', out);
    csv_number(out, r->launch_count, true);
    fprintf(out, ",%zu,", r->rank_count);
    csv_number(out, r->theoretical_occupancy, r->theoretical_known);
    fputc(',', out);
    csv_number(out, r->achieved_occupancy, r->achieved_weight > 0);
    fputc(',', out);
    csv_number(out, r->total_time_us, true);
    fputc(',', out);
    csv_number(out, r->total_time_us / r->launch_count, true);
    fputc('\n', out);
  }
}

/* ---- JSON ---- */

static cJSON *string_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *number_or_null(double v, bool known) {
  return known ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* value under name: in place where row has it, else at the end. */
static bool set(cJSON *row, const char *name, cJSON *value) {
  if (!value) return false;
  if (cJSON_GetObjectItemCaseSensitive(row, name))
    return cJSON_ReplaceItemInObjectCaseSensitive(row, name, value);
  return cJSON_AddItemToObject(row, name, value);
}

static cJSON *rank_json(const occ_run_merge *m, const occ_merge_rank *k) {
  const occ_merge_report *rep = &m->reports[k->report];
  cJSON *o = cJSON_CreateObject();
  if (!o || !cJSON_AddStringToObject(o, "report", rep->label) ||
      !cJSON_AddItemToObject(o, "program", string_or_null(rep->program)) ||
      !cJSON_AddNumberToObject(o, "device_ordinal",
                               (double)k->device_ordinal) ||
      !cJSON_AddNumberToObject(o, "launch_count", k->launch_count) ||
      !cJSON_AddNumberToObject(o, "counter_launch_count",
                               k->counter_launch_count) ||
      !cJSON_AddNumberToObject(o, "total_time_us", k->total_time_us) ||
      !cJSON_AddItemToObject(
          o, "achieved_occupancy",
          number_or_null(k->achieved_occupancy, !isnan(k->achieved_occupancy)))) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* Row i: the first report's row with the sums in place of its own
 * figures, then "ranks" and "metrics". */
static cJSON *row_item(void *context, size_t i) {
  const occ_run_merge *m = context;
  const occ_merge_row *r = &m->rows[i];
  cJSON *row = cJSON_Parse(r->json);
  cJSON *ranks = cJSON_CreateArray();
  cJSON *metrics = cJSON_CreateObject();
  bool ok =
      row && ranks && metrics &&
      set(row, "launch_count", cJSON_CreateNumber(r->launch_count)) &&
      set(row, "counter_launch_count",
          cJSON_CreateNumber(r->counter_launch_count)) &&
      set(row, "total_time_us", cJSON_CreateNumber(r->total_time_us)) &&
      set(row, "mean_time_us",
          cJSON_CreateNumber(r->total_time_us / r->launch_count)) &&
      set(row, "achieved_occupancy",
          number_or_null(r->achieved_occupancy, r->achieved_weight > 0));
  for (size_t k = 0; ok && k < r->rank_count; k++)
    ok = cJSON_AddItemToArray(ranks, rank_json(m, &r->ranks[k]));
  for (uint32_t at = r->first_metric; ok && at != OCC_MERGE_NONE;
       at = m->metrics[at].next) {
    const occ_merge_metric *x = &m->metrics[at];
    ok = cJSON_AddItemToObject(metrics, m->metric_names[x->name],
                               number_or_null(x->mean, x->weight > 0));
  }
  if (ok && cJSON_AddItemToObject(row, "ranks", ranks)) {
    ranks = NULL;
    if (cJSON_AddItemToObject(row, "metrics", metrics)) return row;
  }
  cJSON_Delete(metrics);
  cJSON_Delete(ranks);
  cJSON_Delete(row);
  return NULL;
}

static cJSON *report_json(const occ_merge_report *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o || !cJSON_AddStringToObject(o, "report", r->label) ||
      !cJSON_AddItemToObject(o, "program", string_or_null(r->program)) ||
      !cJSON_AddItemToObject(o, "exit_status",
                             number_or_null(r->exit_status,
                                            r->exit_status_known)) ||
      !cJSON_AddNumberToObject(o, "launch_count", r->launch_count) ||
      !cJSON_AddItemToObject(o, "profiled_launch_count",
                             number_or_null(r->profiled_launch_count,
                                            r->profiled_known)) ||
      !cJSON_AddItemToObject(o, "overhead_s",
                             number_or_null(r->overhead_s, r->overhead_known))) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static bool write_json(FILE *out, const occ_run_merge *m) {
  cJSON *doc = cJSON_CreateObject();
  cJSON *list = cJSON_CreateArray();
  bool ok = doc && list &&
            cJSON_AddNumberToObject(doc, "schema", OCC_RANK_REPORT_SCHEMA);
  for (size_t i = 0; ok && i < m->report_count; i++)
    ok = cJSON_AddItemToArray(list, report_json(&m->reports[i]));
  if (ok && cJSON_AddItemToObject(doc, "merged_reports", list))
    list = NULL;
  else
    ok = false;
  ok = ok && cJSON_AddNumberToObject(doc, "launch_count", m->launch_count) &&
       cJSON_AddItemToObject(doc, "overhead_s",
                             number_or_null(m->overhead_s, m->overhead_known)) &&
       cJSON_AddArrayToObject(doc, "rows") &&
       occ_json_write_streamed(out, doc, "rows", row_item, (void *)m,
                               m->row_count);
  cJSON_Delete(list);
  cJSON_Delete(doc);
  if (ok) fputc('\n', out);
  return ok;
}

bool occ_merge_print(FILE *out, occ_format format, const occ_run_merge *m) {
  switch (format) {
  case OCC_FORMAT_JSON: return write_json(out, m);
  case OCC_FORMAT_CSV: write_csv(out, m); return true;
  default: write_text(out, m); return true;
  }
}
