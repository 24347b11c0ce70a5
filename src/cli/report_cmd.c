/* report_cmd.c - `occcalc report FILE...`: reads each run --json report,
 * merges them (src/db/run_merge.c) and writes the merged report (see
 * report_cmd.h). */
#include "cli/report_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/run_merge.h"
#include "render/csv.h"
#include "render/json_write.h"
#include "render/text_safe.h"

/* A report larger than this is refused rather than read: run --json of
 * 40,000 configurations is about 100 MB (BENCHMARKS.md). */
#define REPORT_MAX_BYTES (INT64_C(1) << 30)

/* Reads the whole file into *text (malloc'd, *size bytes). Returns 0, or
 * -1 with why. */
static int read_file(const char *path, char **text, size_t *size, char *why,
                     size_t why_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, why_size, "cannot open: %s", strerror(errno));
    return -1;
  }
  /* A file or a pipe (a shell's <(...)); a device such as /dev/zero would
   * be read up to the limit for nothing. */
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
    snprintf(why, why_size, "not a regular file (accepted: an occcalc run "
                            "--json report)");
    fclose(f);
    return -1;
  }
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      if ((int64_t)cap >= REPORT_MAX_BYTES) {
        snprintf(why, why_size, "larger than %lld bytes: not a run report",
                 (long long)REPORT_MAX_BYTES);
        free(buf);
        fclose(f);
        return -1;
      }
      char *grown = realloc(buf, 2 * cap);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (!buf) {
    fclose(f);
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  if (ferror(f)) {
    snprintf(why, why_size, "cannot read: %s", strerror(errno ? errno : EIO));
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  *text = buf;
  *size = n;
  return 0;
}

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

int occ_report_command(const occ_cli *cli) {
  occ_run_merge *merge = occ_run_merge_new();
  if (!merge) {
    occ_msg(stderr, "report: out of memory");
    return OCC_EXIT_FAILURE;
  }
  int rc = OCC_EXIT_OK;
  for (char **file = cli->report_files; *file && rc == OCC_EXIT_OK; file++) {
    char why[512];
    char *text = NULL;
    size_t size = 0;
    if (read_file(*file, &text, &size, why, sizeof why) != 0) {
      occ_msg(stderr, "report: %s: %s", *file, why);
      rc = OCC_EXIT_USAGE;
      break;
    }
    int added = occ_run_merge_add(merge, *file, text, size, why, sizeof why);
    free(text);
    if (added == -2) {
      occ_msg(stderr, "report: %s: out of memory", *file);
      rc = OCC_EXIT_FAILURE;
    } else if (added != 0) {
      occ_msg(stderr, "report: %s: %s", *file, why);
      rc = OCC_EXIT_USAGE;
    }
  }
  cJSON *doc = rc == OCC_EXIT_OK ? occ_run_merge_result(merge) : NULL;
  occ_run_merge_free(merge);
  if (rc != OCC_EXIT_OK) return rc;
  if (!doc) {
    occ_msg(stderr, "report: out of memory");
    return OCC_EXIT_FAILURE;
  }
  if (cli->json) {
    if (!occ_json_write_formatted(stdout, doc)) {
      occ_msg(stderr, "report: out of memory writing JSON");
      rc = OCC_EXIT_FAILURE;
    } else {
      fputc('\n', stdout);
    }
  } else if (cli->csv) {
    write_csv(stdout, doc);
  } else {
    write_text(stdout, doc);
  }
  cJSON_Delete(doc);
  return rc;
}
