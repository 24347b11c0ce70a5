/* run_merge.c - several `occcalc run --json` reports merged (see
 * run_merge.h). Rows are matched by a key printed from the fields that
 * make a configuration, one linear pass per row: a job of R ranks and K
 * configurations costs R x K x K key comparisons, a few million for 64
 * ranks of a thousand configurations. */
#include "db/run_merge.h"

#include "text/why.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report {
  char *label;
  cJSON *doc;
} report;

struct occ_run_merge {
  report *reports;
  size_t count, capacity;
};

/* Writes why a report is refused; -1. */
#define bad(why, size, ...) (occ_whyf(why, size, __VA_ARGS__), -1)

occ_run_merge *occ_run_merge_new(void) {
  return calloc(1, sizeof(occ_run_merge));
}

void occ_run_merge_free(occ_run_merge *m) {
  if (!m)
    return;
  for (size_t i = 0; i < m->count; i++) {
    free(m->reports[i].label);
    cJSON_Delete(m->reports[i].doc);
  }
  free(m->reports);
  free(m);
}

static bool is_count(const cJSON *v, double most) {
  return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= most &&
         v->valuedouble == floor(v->valuedouble);
}

static bool is_number_in(const cJSON *v, double lo, double hi) {
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
         v->valuedouble >= lo && v->valuedouble <= hi;
}

static bool number_or_null(const cJSON *v, double lo, double hi) {
  return cJSON_IsNull(v) || is_number_in(v, lo, hi);
}

static bool dims(const cJSON *v) {
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
    return false;
  for (const cJSON *d = v->child; d; d = d->next)
    if (!is_count(d, INT32_MAX))
      return false;
  return true;
}

/* A row's fields that the merge reads, each of its type and range. */
static int check_row(const cJSON *row, int index, char *why, size_t size) {
  if (!cJSON_IsObject(row))
    return bad(why, size, "rows[%d] is not an object", index);
  const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(row, "kernel");
  const cJSON *launches = cJSON_GetObjectItemCaseSensitive(row, "launch_count");
  const cJSON *measured =
      cJSON_GetObjectItemCaseSensitive(row, "counter_launch_count");
  const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(row, "metrics");
  struct {
    const char *name;
    bool ok;
  } fields[] = {
      {"kernel",
       cJSON_IsObject(kernel) &&
           cJSON_IsString(cJSON_GetObjectItemCaseSensitive(kernel, "name"))},
      {"kernel.mangled_name",
       cJSON_IsObject(kernel) &&
           cJSON_IsString(
               cJSON_GetObjectItemCaseSensitive(kernel, "mangled_name"))},
      {"device_ordinal",
       is_count(cJSON_GetObjectItemCaseSensitive(row, "device_ordinal"),
                INT32_MAX)},
      {"grid", dims(cJSON_GetObjectItemCaseSensitive(row, "grid"))},
      {"cluster", dims(cJSON_GetObjectItemCaseSensitive(row, "cluster"))},
      {"launch_type",
       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "launch_type"))},
      {"launch_count", is_count(launches, 1e15) && launches->valuedouble >= 1},
      {"counter_launch_count",
       is_count(measured, 1e15) && launches &&
           measured->valuedouble <= launches->valuedouble},
      {"total_time_us",
       is_number_in(cJSON_GetObjectItemCaseSensitive(row, "total_time_us"), 0,
                    HUGE_VAL)},
      {"achieved_occupancy",
       number_or_null(
           cJSON_GetObjectItemCaseSensitive(row, "achieved_occupancy"), 0, 1)},
      {"theoretical_occupancy",
       number_or_null(
           cJSON_GetObjectItemCaseSensitive(row, "theoretical_occupancy"), 0,
           1)},
      {"metrics", !metrics || cJSON_IsObject(metrics)}};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (!fields[i].ok)
      return bad(why, size, "rows[%d].%s is missing or out of range", index,
                 fields[i].name);
  for (const cJSON *v = metrics ? metrics->child : NULL; v; v = v->next)
    if (!number_or_null(v, -HUGE_VAL, HUGE_VAL))
      return bad(why, size, "rows[%d].metrics.%s is not a number or null",
                 index, v->string);
  return 0;
}

static int check_report(const cJSON *doc, char *why, size_t size) {
  if (!cJSON_IsObject(doc))
    return bad(why, size, "not an object: not an occcalc run --json report");
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
  if (!cJSON_IsNumber(schema))
    return bad(why, size, "no schema: not an occcalc run --json report");
  if (schema->valuedouble != OCC_RUN_MERGE_SCHEMA)
    return bad(why, size, "schema %g, not %d (occcalc run --json's)",
               schema->valuedouble, OCC_RUN_MERGE_SCHEMA);
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  if (!cJSON_IsArray(rows))
    return bad(why, size,
               "no rows: not an occcalc run --json report "
               "(a --jsonl stream or another command's JSON?)");
  if (!is_count(cJSON_GetObjectItemCaseSensitive(doc, "launch_count"), 1e15))
    return bad(why, size, "launch_count is missing or out of range");
  /* What the library cost the rank (run's "counters"): absent in reports
   * written before it existed. */
  const cJSON *counters = cJSON_GetObjectItemCaseSensitive(doc, "counters");
  if (counters && !cJSON_IsObject(counters))
    return bad(why, size, "counters is not an object");
  if (counters &&
      (!number_or_null(cJSON_GetObjectItemCaseSensitive(counters, "overhead_s"),
                       0, 3.2e7) ||
       !number_or_null(cJSON_GetObjectItemCaseSensitive(counters,
                                                        "profiled_launch_count"),
                       0, 1e15)))
    return bad(why, size, "counters.overhead_s or .profiled_launch_count is "
               "not a number in range or null");
  int index = 0;
  for (const cJSON *row = rows->child; row; row = row->next, index++)
    if (check_row(row, index, why, size) != 0)
      return -1;
  return 0;
}

int occ_run_merge_add(occ_run_merge *m, const char *label, const char *text,
                      size_t size, char *why, size_t why_size) {
  if (size == 0)
    return bad(why, why_size, "empty: no report");
  const char *end = NULL;
  cJSON *doc = cJSON_ParseWithLengthOpts(text, size, &end, false);
  if (!doc) {
    size_t at =
        end && end >= text && end <= text + size ? (size_t)(end - text) : size;
    return bad(why, why_size,
               "not JSON (invalid or cut short at byte %zu "
               "of %zu)",
               at, size);
  }
  for (; end && end < text + size; end++)
    if (*end != ' ' && *end != '\n' && *end != '\t' && *end != '\r') {
      cJSON_Delete(doc);
      return bad(why, why_size,
                 "not one JSON document (more after byte "
                 "%zu)",
                 (size_t)(end - text));
    }
  if (check_report(doc, why, why_size) != 0) {
    cJSON_Delete(doc);
    return -1;
  }
  if (m->count == m->capacity) {
    size_t capacity = m->capacity ? 2 * m->capacity : 8;
    report *grown = realloc(m->reports, capacity * sizeof *grown);
    if (!grown) {
      cJSON_Delete(doc);
      return -2;
    }
    m->reports = grown;
    m->capacity = capacity;
  }
  char *copy = strdup(label);
  if (!copy) {
    cJSON_Delete(doc);
    return -2;
  }
  m->reports[m->count++] = (report){copy, doc};
  return 0;
}

/* ---- the merge ---- */

/* The fields that make a row's configuration, in the order printed into
 * its key (the kernel object holds the mangled name and the launch
 * configuration). The device is not one: ranks on different GPUs run the
 * same configuration. */
static const char *const key_fields[] = {"kernel",
                                         "grid",
                                         "cluster",
                                         "launch_type",
                                         "smem_executed_bytes",
                                         "theoretical_occupancy"};

/* The row's key, printed; NULL out of memory. */
static char *row_key(const cJSON *row) {
  cJSON *key = cJSON_CreateArray();
  for (size_t i = 0; key && i < sizeof key_fields / sizeof *key_fields; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key_fields[i]);
    cJSON *copy = v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
    if (!copy || !cJSON_AddItemToArray(key, copy)) {
      cJSON_Delete(copy);
      cJSON_Delete(key);
      return NULL;
    }
  }
  char *text = key ? cJSON_PrintUnformatted(key) : NULL;
  cJSON_Delete(key);
  return text;
}

/* One merged row while it is summed. */
typedef struct merged {
  char *key;
  cJSON *row;   /* the first report's row, its sums replaced at the end */
  cJSON *ranks; /* owned by row */
  double launches, measured, total_us, achieved_sum;
  double achieved_weight;
  cJSON *metric_sums; /* name: [weighted sum, weight] */
} merged;

typedef struct merging {
  merged *rows;
  size_t count, capacity;
} merging;

static double number(const cJSON *obj, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void free_merging(merging *g) {
  for (size_t i = 0; i < g->count; i++) {
    free(g->rows[i].key);
    cJSON_Delete(g->rows[i].row);
    cJSON_Delete(g->rows[i].metric_sums);
  }
  free(g->rows);
}

/* The merged row of key (which it takes, and frees unless kept), made
 * from row when it is the first; NULL out of memory. */
static merged *row_for(merging *g, char *key, const cJSON *row) {
  for (size_t i = 0; i < g->count; i++)
    if (strcmp(g->rows[i].key, key) == 0) {
      free(key);
      return &g->rows[i];
    }
  if (g->count == g->capacity) {
    size_t capacity = g->capacity ? 2 * g->capacity : 16;
    merged *grown = realloc(g->rows, capacity * sizeof *grown);
    if (!grown) {
      free(key);
      return NULL;
    }
    g->rows = grown;
    g->capacity = capacity;
  }
  merged *r = &g->rows[g->count];
  *r = (merged){.key = key,
                .row = cJSON_Duplicate(row, true),
                .metric_sums = cJSON_CreateObject()};
  if (!r->row || !r->metric_sums) {
    cJSON_Delete(r->row);
    cJSON_Delete(r->metric_sums);
    free(key);
    return NULL;
  }
  g->count++;
  /* Per-launch records and the first report's own verdicts stay in the
   * rank files: the merged row recomputes what it can. */
  static const char *const dropped[] = {
      "launches", "device_ordinal", "device", "cause", "achieved_null_reason",
      "metrics"};
  for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++)
    cJSON_DeleteItemFromObjectCaseSensitive(r->row, dropped[i]);
  r->ranks = cJSON_AddArrayToObject(r->row, "ranks");
  return r->ranks ? r : NULL;
}

static cJSON *null_or_number(double v, bool known) {
  return known ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* Adds one report's row to its merged row and its breakdown. */
static int add_row(merged *r, const report *rep, const cJSON *row) {
  double launches = number(row, "launch_count");
  double measured = number(row, "counter_launch_count");
  const cJSON *achieved =
      cJSON_GetObjectItemCaseSensitive(row, "achieved_occupancy");
  r->launches += launches;
  r->measured += measured;
  r->total_us += number(row, "total_time_us");
  if (cJSON_IsNumber(achieved) && measured > 0) {
    r->achieved_sum += achieved->valuedouble * measured;
    r->achieved_weight += measured;
  }
  const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(row, "metrics");
  for (const cJSON *v = metrics ? metrics->child : NULL; v; v = v->next) {
    cJSON *sum = cJSON_GetObjectItemCaseSensitive(r->metric_sums, v->string);
    if (!sum) {
      sum = cJSON_AddArrayToObject(r->metric_sums, v->string);
      if (!sum || !cJSON_AddItemToArray(sum, cJSON_CreateNumber(0)) ||
          !cJSON_AddItemToArray(sum, cJSON_CreateNumber(0)))
        return -1;
    }
    if (cJSON_IsNumber(v) && measured > 0) {
      cJSON_SetNumberValue(sum->child,
                           sum->child->valuedouble + v->valuedouble * measured);
      cJSON_SetNumberValue(sum->child->next,
                           sum->child->next->valuedouble + measured);
    }
  }
  cJSON *rank = cJSON_CreateObject();
  if (!rank || !cJSON_AddItemToArray(r->ranks, rank)) {
    cJSON_Delete(rank);
    return -1;
  }
  const cJSON *program = cJSON_GetObjectItemCaseSensitive(rep->doc, "program");
  const cJSON *ordinal =
      cJSON_GetObjectItemCaseSensitive(row, "device_ordinal");
  bool ok =
      cJSON_AddStringToObject(rank, "report", rep->label) &&
      cJSON_AddItemToObject(rank, "program",
                            cJSON_IsString(program)
                                ? cJSON_CreateString(program->valuestring)
                                : cJSON_CreateNull()) &&
      cJSON_AddItemToObject(
          rank, "device_ordinal",
          null_or_number(number(row, "device_ordinal"),
                         cJSON_IsNumber(ordinal))) &&
      cJSON_AddNumberToObject(rank, "launch_count", launches) &&
      cJSON_AddNumberToObject(rank, "counter_launch_count", measured) &&
      cJSON_AddNumberToObject(rank, "total_time_us",
                              number(row, "total_time_us")) &&
      cJSON_AddItemToObject(rank, "achieved_occupancy",
                            null_or_number(number(row, "achieved_occupancy"),
                                           cJSON_IsNumber(achieved)));
  return ok ? 0 : -1;
}

static void replace(cJSON *obj, const char *name, cJSON *value) {
  if (!value)
    return;
  if (cJSON_GetObjectItemCaseSensitive(obj, name))
    cJSON_ReplaceItemInObjectCaseSensitive(obj, name, value);
  else
    cJSON_AddItemToObject(obj, name, value);
}

/* The sums into the row's fields. */
static void finish_row(merged *r) {
  replace(r->row, "launch_count", cJSON_CreateNumber(r->launches));
  replace(r->row, "counter_launch_count", cJSON_CreateNumber(r->measured));
  replace(r->row, "total_time_us", cJSON_CreateNumber(r->total_us));
  replace(r->row, "mean_time_us",
          cJSON_CreateNumber(r->total_us / r->launches));
  replace(r->row, "achieved_occupancy",
          null_or_number(
              r->achieved_weight > 0 ? r->achieved_sum / r->achieved_weight : 0,
              r->achieved_weight > 0));
  cJSON *metrics = cJSON_CreateObject();
  for (const cJSON *s = r->metric_sums->child; metrics && s; s = s->next) {
    double weight = s->child->next->valuedouble;
    cJSON_AddItemToObject(
        metrics, s->string,
        null_or_number(weight > 0 ? s->child->valuedouble / weight : 0,
                       weight > 0));
  }
  replace(r->row, "metrics", metrics);
}

/* A figure of the report's "counters" (checked), and whether it has it. */
static bool counter_figure(const cJSON *doc, const char *key, double *value) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(doc, "counters"), key);
  *value = cJSON_IsNumber(v) ? v->valuedouble : 0;
  return cJSON_IsNumber(v);
}

/* The reports, each with its program, status, launches and what occcalc
 * cost it; their sums into *launches and *cost (cost_known: whether any
 * report said). */
static cJSON *reports_json(const occ_run_merge *m, double *launches,
                           double *cost, bool *cost_known) {
  cJSON *list = cJSON_CreateArray();
  for (size_t i = 0; list && i < m->count; i++) {
    const cJSON *doc = m->reports[i].doc;
    const cJSON *program = cJSON_GetObjectItemCaseSensitive(doc, "program");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(doc, "exit_status");
    double overhead, profiled;
    bool has_overhead = counter_figure(doc, "overhead_s", &overhead);
    bool has_profiled = counter_figure(doc, "profiled_launch_count", &profiled);
    *cost += overhead;
    *cost_known |= has_overhead;
    cJSON *o = cJSON_CreateObject();
    *launches += number(doc, "launch_count");
    if (!o || !cJSON_AddItemToArray(list, o) ||
        !cJSON_AddStringToObject(o, "report", m->reports[i].label) ||
        !cJSON_AddItemToObject(o, "program",
                               cJSON_IsString(program)
                                   ? cJSON_CreateString(program->valuestring)
                                   : cJSON_CreateNull()) ||
        !cJSON_AddItemToObject(o, "exit_status",
                               null_or_number(number(doc, "exit_status"),
                                              cJSON_IsNumber(status))) ||
        !cJSON_AddNumberToObject(o, "launch_count",
                                 number(doc, "launch_count")) ||
        !cJSON_AddItemToObject(o, "profiled_launch_count",
                               null_or_number(profiled, has_profiled)) ||
        !cJSON_AddItemToObject(o, "overhead_s",
                               null_or_number(overhead, has_overhead))) {
      cJSON_Delete(list);
      return NULL;
    }
  }
  return list;
}

cJSON *occ_run_merge_result(const occ_run_merge *m) {
  merging g = {0};
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < m->count; i++) {
    const cJSON *rows =
        cJSON_GetObjectItemCaseSensitive(m->reports[i].doc, "rows");
    for (const cJSON *row = rows->child; rc == 0 && row; row = row->next) {
      char *key = row_key(row);
      merged *r = key ? row_for(&g, key, row) : NULL;
      rc = r ? add_row(r, &m->reports[i], row) : -1;
    }
  }
  double launches = 0, cost = 0;
  bool cost_known = false;
  cJSON *doc = rc == 0 ? cJSON_CreateObject() : NULL;
  cJSON *list = doc ? reports_json(m, &launches, &cost, &cost_known) : NULL;
  cJSON *rows = list ? cJSON_CreateArray() : NULL;
  if (!rows || !cJSON_AddNumberToObject(doc, "schema", OCC_RUN_MERGE_SCHEMA) ||
      !cJSON_AddItemToObject(doc, "merged_reports", list) ||
      !cJSON_AddNumberToObject(doc, "launch_count", launches) ||
      !cJSON_AddItemToObject(doc, "overhead_s",
                             null_or_number(cost, cost_known)) ||
      !cJSON_AddItemToObject(doc, "rows", rows)) {
    cJSON_Delete(rows);
    cJSON_Delete(list);
    cJSON_Delete(doc);
    free_merging(&g);
    return NULL;
  }
  for (size_t i = 0; i < g.count; i++) {
    finish_row(&g.rows[i]);
    cJSON_AddItemToArray(rows, g.rows[i].row);
    g.rows[i].row = NULL;
  }
  free_merging(&g);
  return doc;
}
