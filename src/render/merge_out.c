/* merge_out.c - the merged report of `occcalc report` as text, JSON or
 * CSV (see merge_out.h). */
#include "render/merge_out.h"

#include "render/csv.h"
#include "text/text_safe.h"

static const cJSON *get(const cJSON *o, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *row_name(const cJSON *row) {
  const cJSON *name = get(get(row, "kernel"), "name");
  return cJSON_IsString(name) ? name->valuestring : NULL;
}

/* An occupancy fraction as a percentage, "-" when unknown (null). */
static void pct(const cJSON *v, char *buf, size_t size) {
  if (cJSON_IsNumber(v))
    snprintf(buf, size, "%.1f%%", 100.0 * v->valuedouble);
  else
    snprintf(buf, size, "-");
}

static void write_text(FILE *out, const cJSON *doc) {
  const cJSON *rows = get(doc, "rows");
  const cJSON *merged = get(doc, "merged_reports");
  const cJSON *launches = get(doc, "launch_count");
  int reports = cJSON_GetArraySize(merged), configs = cJSON_GetArraySize(rows);
  double count = cJSON_IsNumber(launches) ? launches->valuedouble : 0.0;
  fprintf(out, "%d report%s merged, %.0f launch%s, %d configuration%s\n",
          reports, reports == 1 ? "" : "s", count, count == 1 ? "" : "es",
          configs, configs == 1 ? "" : "s");
  const cJSON *cost = get(doc, "overhead_s");
  if (cJSON_IsNumber(cost))
    fprintf(out, "occcalc's time in the programs: %.2f s\n", cost->valuedouble);
  fputc('\n', out);
  /* 36 + 1 + 8 + 1 + 5 + 1 + 7 + 1 + 8 + 1 + 11 = 80 columns. */
  fprintf(out, "%-36s %8s %5s %7s %8s %11s\n", "kernel", "launches", "ranks",
          "theor.", "achieved", "time (us)");
  for (const cJSON *row = rows ? rows->child : NULL; row; row = row->next) {
    char name[37], theo[16], ach[16], time[32];
    occ_text_safe(row_name(row), name, sizeof name);
    pct(get(row, "theoretical_occupancy"), theo, sizeof theo);
    pct(get(row, "achieved_occupancy"), ach, sizeof ach);
    const cJSON *t = get(row, "total_time_us");
    if (cJSON_IsNumber(t))
      snprintf(time, sizeof time, "%.1f", t->valuedouble);
    else
      snprintf(time, sizeof time, "-");
    const cJSON *n = get(row, "launch_count");
    fprintf(out, "%-36s %8.0f %5d %7s %8s %11s\n", name,
            cJSON_IsNumber(n) ? n->valuedouble : 0.0,
            cJSON_GetArraySize(get(row, "ranks")), theo, ach, time);
  }
}

/* A number as its shortest exact text ("" when null or missing). */
static void csv_number(FILE *out, const cJSON *v) {
  if (cJSON_IsNumber(v)) fprintf(out, "%.17g", v->valuedouble);
}

static void csv_dims(FILE *out, const cJSON *v) {
  char buf[64] = "";
  size_t n = 0;
  for (const cJSON *d = cJSON_IsArray(v) ? v->child : NULL; d; d = d->next)
    if (cJSON_IsNumber(d) && n < sizeof buf)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.0f", n ? "x" : "",
                            d->valuedouble);
  occ_csv_field(out, buf);
}

static void write_csv(FILE *out, const cJSON *doc) {
  fputs("kernel,mangled_name,grid,block,launch_count,ranks,"
        "theoretical_occupancy,achieved_occupancy,total_time_us,"
        "mean_time_us\n", out);
  const cJSON *rows = get(doc, "rows");
  for (const cJSON *row = rows ? rows->child : NULL; row; row = row->next) {
    const cJSON *kernel = get(row, "kernel");
    const cJSON *mangled = get(kernel, "mangled_name");
    occ_csv_field(out, row_name(row));
    fputc(',', out);
    occ_csv_field(out, cJSON_IsString(mangled) ? mangled->valuestring : NULL);
    fputc(',', out);
    csv_dims(out, get(row, "grid"));
    fputc(',', out);
    csv_dims(out, get(kernel, "block"));
    fputc(',', out);
    csv_number(out, get(row, "launch_count"));
    fprintf(out, ",%d,", cJSON_GetArraySize(get(row, "ranks")));
    csv_number(out, get(row, "theoretical_occupancy"));
    fputc(',', out);
    csv_number(out, get(row, "achieved_occupancy"));
    fputc(',', out);
    csv_number(out, get(row, "total_time_us"));
    fputc(',', out);
    csv_number(out, get(row, "mean_time_us"));
    fputc('\n', out);
  }
}

bool occ_merge_print(FILE *out, occ_format format, const cJSON *doc) {
  switch (format) {
  case OCC_FORMAT_JSON:
    if (!occ_json_write_formatted(out, doc)) return false;
    fputc('\n', out);
    return true;
  case OCC_FORMAT_CSV: write_csv(out, doc); return true;
  default: write_text(out, doc); return true;
  }
}
