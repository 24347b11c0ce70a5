/* explore.c - charts and suggestions on the command line (see explore.h). */
#include "cli/explore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "out/chart_out.h"
#include "out/report.h"
#include "out/suggest_out.h"
#include "core/sweep.h"

int occ_parse_charts(const char *text, unsigned *charts, char *why,
                     size_t why_size) {
  const char *p = text;
  do {
    size_t len = strcspn(p, ",");
    unsigned bits = 0;
    if (len == 3 && strncmp(p, "all", 3) == 0)
      bits = (1u << OCC_CHART_KIND_COUNT) - 1;
    for (int k = 0; k < OCC_CHART_KIND_COUNT; k++)
      if (strlen(occ_chart_kind_name(k)) == len &&
          strncmp(p, occ_chart_kind_name(k), len) == 0)
        bits = 1u << k;
    if (!bits) {
      snprintf(why, why_size,
               "'%s' is not a chart (accepted: block, regs, smem, all, or a "
               "comma list)", text);
      return -1;
    }
    *charts |= bits;
    p += len;
  } while (*p++ == ',');
  return 0;
}

bool occ_explore_replaces_report(const occ_cli *cli) {
  return cli->csv || (cli->svg_path && strcmp(cli->svg_path, "-") == 0);
}

int occ_check_explore_options(occ_cli *cli, FILE *err) {
  if (cli->csv && cli->svg_path)
    return occ_cli_usage_error(err, "--csv and --svg: give one of them");
  if (occ_explore_replaces_report(cli) &&
      (cli->json || cli->explain || cli->suggest))
    return occ_cli_usage_error(
        err, "%s writes only the charts to stdout; drop --json, --explain "
             "and --suggest, or give --svg a file",
        cli->csv ? "--csv" : "--svg -");
  if (cli->chart_step && !cli->charts && !cli->csv && !cli->svg_path)
    return occ_cli_usage_error(err, "--step: needs --chart (it sets the "
                                    "block chart's step)");
  if ((cli->csv || cli->svg_path) && !cli->charts)
    cli->charts = (1u << OCC_CHART_KIND_COUNT) - 1;
  return OCC_EXIT_OK;
}

int occ_explore_check(const occ_cli *cli, const occ_device *d, FILE *err) {
  if (cli->chart_step > d->max_threads_per_block)
    return occ_cli_usage_error(err, "--step: '%d' is out of range (accepted: "
                                    "1 to %d)",
                               cli->chart_step, d->max_threads_per_block);
  if (!cli->svg_path || strcmp(cli->svg_path, "-") == 0) return OCC_EXIT_OK;
  FILE *f = fopen(cli->svg_path, "w");
  if (f && fclose(f) == 0) return OCC_EXIT_OK;
  fprintf(err, "occcalc: --svg: cannot write '%s': %s\n", cli->svg_path,
          strerror(errno));
  return OCC_EXIT_USAGE;
}

/* The charts asked for, built; *count of them. Frees nothing on error. */
static int build_charts(const occ_cli *cli, const occ_device *d,
                        const occ_kernel *k, occ_chart charts[],
                        size_t *count, FILE *err) {
  *count = 0;
  occ_sweep *sweep = NULL;
  occ_status status = occ_sweep_new(d, k->carveout_pct, k->barriers, &sweep);
  for (int kind = 0; status == OCC_OK && kind < OCC_CHART_KIND_COUNT; kind++) {
    if (!(cli->charts & (1u << kind))) continue;
    status = occ_chart_build(sweep, k, (occ_chart_kind)kind, cli->chart_step,
                             &charts[*count]);
    if (status == OCC_OK) (*count)++;
  }
  occ_sweep_free(sweep);
  if (status == OCC_OK) return OCC_EXIT_OK;
  fprintf(err, "occcalc: charts: %s\n", occ_strerror(status));
  return status == OCC_ERR_NOMEM ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
}

static void free_charts(occ_chart charts[], size_t count) {
  for (size_t i = 0; i < count; i++) occ_chart_free(&charts[i]);
}

static int write_svg_file(const char *path, const occ_chart *const *charts,
                          size_t count, FILE *out, FILE *err) {
  if (strcmp(path, "-") == 0) {
    occ_chart_write_svg(out, charts, count);
    return OCC_EXIT_OK;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(err, "occcalc: --svg: cannot write '%s': %s\n", path,
            strerror(errno));
    return OCC_EXIT_USAGE;
  }
  occ_chart_write_svg(f, charts, count);
  bool failed = ferror(f) != 0;
  if (fclose(f) != 0) failed = true;
  if (!failed) return OCC_EXIT_OK;
  fprintf(err, "occcalc: --svg: error writing '%s': %s\n", path,
          strerror(errno));
  return OCC_EXIT_FAILURE;
}

/* Charts to the SVG file, CSV, or the terminal, as the options say. */
static int write_charts(const occ_cli *cli, const occ_device *d,
                        const occ_kernel *k, FILE *out, FILE *err) {
  occ_chart charts[OCC_CHART_KIND_COUNT];
  const occ_chart *list[OCC_CHART_KIND_COUNT];
  size_t count;
  int rc = build_charts(cli, d, k, charts, &count, err);
  if (rc != OCC_EXIT_OK) return rc;
  for (size_t i = 0; i < count; i++) list[i] = &charts[i];
  if (cli->svg_path)
    rc = write_svg_file(cli->svg_path, list, count, out, err);
  else if (cli->csv)
    occ_chart_write_csv(out, list, count);
  else
    occ_chart_print_term(out, list, count,
                         cli->ascii || !occ_chart_locale_is_utf8());
  free_charts(charts, count);
  return rc;
}

static int compute_suggestion(const occ_device *d, const occ_kernel *k,
                              occ_suggestion *s, FILE *err) {
  occ_status status = occ_suggest(d, k, s);
  if (status == OCC_OK) return OCC_EXIT_OK;
  fprintf(err, "occcalc: suggest: %s\n", occ_strerror(status));
  return status == OCC_ERR_NOMEM ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
}

int occ_explore_write(const occ_cli *cli, const occ_device *d,
                      const occ_kernel *k, FILE *out, FILE *err) {
  int rc = OCC_EXIT_OK;
  if (cli->charts) {
    if (!occ_explore_replaces_report(cli) && !cli->svg_path) fputc('\n', out);
    rc = write_charts(cli, d, k, out, err);
  }
  if (rc != OCC_EXIT_OK || !cli->suggest) return rc;
  occ_suggestion *s = malloc(sizeof *s); /* ~5 KB of block sizes */
  if (!s) {
    fprintf(err, "occcalc: suggest: out of memory\n");
    return OCC_EXIT_FAILURE;
  }
  rc = compute_suggestion(d, k, s, err);
  if (rc == OCC_EXIT_OK) {
    fputc('\n', out);
    occ_suggest_print(out, d, s);
  }
  free(s);
  return rc;
}

static int add_charts_json(const occ_cli *cli, const occ_device *d,
                           const occ_kernel *k, cJSON *report, FILE *err) {
  occ_chart charts[OCC_CHART_KIND_COUNT];
  const occ_chart *list[OCC_CHART_KIND_COUNT];
  size_t count;
  int rc = build_charts(cli, d, k, charts, &count, err);
  if (rc != OCC_EXIT_OK) return rc;
  for (size_t i = 0; i < count; i++) list[i] = &charts[i];
  cJSON *array = occ_chart_json(list, count);
  if (!array || !cJSON_AddItemToObject(report, "charts", array)) {
    cJSON_Delete(array);
    rc = OCC_EXIT_FAILURE;
    fprintf(err, "occcalc: out of memory writing JSON\n");
  }
  if (rc == OCC_EXIT_OK && cli->svg_path)
    rc = write_svg_file(cli->svg_path, list, count, stdout, err);
  free_charts(charts, count);
  return rc;
}

int occ_explore_add_json(const occ_cli *cli, const occ_device *d,
                         const occ_kernel *k, cJSON *report, FILE *err) {
  int rc = OCC_EXIT_OK;
  if (cli->charts) rc = add_charts_json(cli, d, k, report, err);
  if (rc != OCC_EXIT_OK || !cli->suggest) return rc;
  occ_suggestion *s = malloc(sizeof *s);
  if (!s) {
    fprintf(err, "occcalc: suggest: out of memory\n");
    return OCC_EXIT_FAILURE;
  }
  rc = compute_suggestion(d, k, s, err);
  if (rc == OCC_EXIT_OK) {
    cJSON *o = occ_suggest_json(s);
    if (!o || !cJSON_AddItemToObject(report, "suggest", o)) {
      cJSON_Delete(o);
      fprintf(err, "occcalc: out of memory writing JSON\n");
      rc = OCC_EXIT_FAILURE;
    }
  }
  free(s);
  return rc;
}
