/* Unit tests of the report's rows (render/report_rows.h): on every board
 * of the database and a spread of kernels, each figure the text report's
 * "Occupancy" lines print is the number the JSON report holds under the
 * row's key, read back from both documents as a person and a script would
 * read them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_fixture.h"
#include "json_parsed.h"
#include "model/cluster.h"
#include "model/model.h"
#include "render/report.h"
#include "render/report_rows.h"

TestSuite(report_rows, .init = load_db, .fini = free_db);

static char *text_of(const occ_report *rep) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  occ_print_report(out, rep);
  fclose(out);
  return text;
}

/* The number after label on its line of the text's Occupancy section (a
 * percentage as a fraction, as JSON holds it); NAN when there is none. */
static double text_figure(const char *text, const char *label, bool fraction) {
  size_t label_len = strlen(label);
  bool in_section = false;
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (strncmp(l, "Occupancy\n", 10) == 0) in_section = true;
    if (in_section && strncmp(l, "  ", 2) == 0 &&
        strncmp(l + 2, label, label_len) == 0 && l[2 + label_len] == ' ') {
      double v = strtod(l + 2 + label_len, NULL);
      return fraction ? v / 100.0 : v;
    }
  }
  return NAN;
}

static void check(const occ_device *d, int regs, int64_t smem, int threads) {
  occ_item item = {.device = d, .kernel = test_kernel(regs, smem, 0, threads,
                                                      OCC_CARVEOUT_DEFAULT)};
  occ_model_request request = {0};
  occ_model_section failed;
  if (occ_model_build(&item, &request, &failed) != OCC_OK) return;
  occ_report rep = {.device = d, .kernel = &item.kernel,
                    .result = &item.result};
  char *text = text_of(&rep);
  cJSON *json = json_parsed(occ_json_report(&rep));
  cr_assert_not_null(json);
  occ_report_value rows[OCC_OCCUPANCY_ROW_COUNT];
  occ_occupancy_rows(&rep, rows);
  for (int i = 0; i < OCC_OCCUPANCY_ROW_COUNT; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(json, rows[i].key);
    cr_assert(cJSON_IsNumber(v), "%s: no number under '%s'", d->name,
              rows[i].key);
    if (!rows[i].label) continue;
    double shown = text_figure(text, rows[i].label, rows[i].fraction);
    cr_assert(!isnan(shown), "no '%s' line in:\n%s", rows[i].label, text);
    /* The text rounds a percentage to one decimal. */
    double tolerance = rows[i].fraction ? 0.0005 : 0.0;
    cr_assert_leq(shown > v->valuedouble ? shown - v->valuedouble
                                         : v->valuedouble - shown,
                  tolerance, "%s, %d regs, %lld B, %d threads: text %s %g, "
                  "JSON %s %g", d->name, regs, (long long)smem, threads,
                  rows[i].label, shown, rows[i].key, v->valuedouble);
  }
  cJSON_Delete(json);
  free(text);
}

Test(report_rows, text_and_json_show_the_same_occupancy_figures) {
  const int regs[] = {16, 32, 64, 128, 255};
  const int64_t smem[] = {0, 4096, 40000};
  const int threads[] = {32, 96, 256, 1024};
  size_t boards = occ_gpudb_gpu_count(db);
  cr_assert_gt(boards, 10);
  occ_device h100 = board("H100 SXM"); /* a board with a carveout */
  check(&h100, 32, 0, 128);
  for (size_t b = 0; b < boards; b++) {
    occ_device d;
    occ_gpudb_gpu_at(db, b, &d, NULL, NULL);
    for (size_t r = 0; r < sizeof regs / sizeof *regs; r++)
      for (size_t s = 0; s < sizeof smem / sizeof *smem; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
          check(&d, regs[r], smem[s], threads[t]);
  }
}

/* A cluster launch: the top-level rows are the cluster launch's (the
 * figure the gate reads), in the text and the JSON alike; the kernel's
 * figures without clusters under without_clusters. */
static void check_cluster(const char *gpu, int regs, int threads, int size) {
  occ_device d = board(gpu);
  occ_cluster cluster = {{size, 1, 1}, size > OCC_CLUSTER_PORTABLE_MAX};
  occ_item item = {.device = &d, .kernel = test_kernel(regs, 0, 0, threads,
                                                       OCC_CARVEOUT_DEFAULT)};
  occ_model_request request = {.grid_blocks = 1056, .cluster = &cluster};
  occ_model_section failed;
  cr_assert_eq(occ_model_build(&item, &request, &failed), OCC_OK);
  cr_assert(item.cluster_result.layout_known, "%s", gpu);
  occ_report rep = {.device = &d, .kernel = &item.kernel, .result = &item.result,
                    .waves = &item.waves, .cluster = &item.cluster,
                    .cluster_result = &item.cluster_result,
                    .waves_without_clusters = &item.waves_without_clusters};
  char *text = text_of(&rep);
  cJSON *json = json_parsed(occ_json_report(&rep));
  cr_assert_not_null(json);
  const cJSON *occ = cJSON_GetObjectItemCaseSensitive(json, "occupancy");
  cr_expect_float_eq(occ->valuedouble, item.cluster_result.occupancy, 1e-12,
                     "%s %d regs %d threads cluster %d", gpu, regs, threads, size);
  cr_expect_float_eq(occ->valuedouble, occ_model_occupancy(&item), 1e-12);
  cr_expect_float_eq(text_figure(text, "occupancy", true), occ->valuedouble, 0.0005,
                     "%s", text);
  const cJSON *blocks = cJSON_GetObjectItemCaseSensitive(json, "active_blocks_per_sm");
  cr_expect_float_eq(blocks->valuedouble * d.sm_count,
                     (double)item.cluster_result.active_blocks, 1e-6);
  const cJSON *waves = cJSON_GetObjectItemCaseSensitive(json, "waves");
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(waves, "blocks_per_wave")->valuedouble,
               (double)item.cluster_result.active_blocks);
  const cJSON *without = cJSON_GetObjectItemCaseSensitive(json, "without_clusters");
  cr_assert(cJSON_IsObject(without));
  cr_expect_float_eq(cJSON_GetObjectItemCaseSensitive(without, "occupancy")->valuedouble,
                     item.result.occupancy, 1e-12);
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(without, "active_blocks_per_sm")->valueint,
               item.result.active_blocks_per_sm);
  cr_expect_not_null(strstr(text, "without clusters"));
  cJSON_Delete(json);
  free(text);
}

Test(report_rows, a_cluster_launch_shows_its_own_figures_at_the_top) {
  const char *gpus[] = {"H100 SXM", "H200"};
  const int sizes[] = {2, 4, 8, 16};
  for (int g = 0; g < 2; g++)
    for (int s = 0; s < 4; s++) {
      check_cluster(gpus[g], 32, 128, sizes[s]);
      check_cluster(gpus[g], 64, 256, sizes[s]);
      check_cluster(gpus[g], 128, 1024, sizes[s] > 2 ? 2 : sizes[s]);
    }
}

/* The clusters a board's domains hold when each SM holds blocks_per_sm
 * of a cluster launch's blocks (the man page's rule, written out here
 * as the oracle): the cap, then each domain's whole clusters. */
static int64_t domain_clusters(const occ_device *d, int blocks_per_sm,
                               int size) {
  int per_sm = blocks_per_sm < d->cluster_max_blocks_per_sm
                   ? blocks_per_sm
                   : d->cluster_max_blocks_per_sm;
  int64_t clusters = 0;
  for (int i = 0; i < d->cluster_domain_count; i++)
    if (d->cluster_domain_sms[i] >= size)
      clusters += (int64_t)d->cluster_domain_sms[i] * per_sm / size;
  return clusters;
}

/* A cluster launch's at_launch holds its clusters at once under the
 * cluster object's name, the rule over the blocks the SM holds at
 * launch; the text's "at launch" line ends with them where they differ
 * from the API's count, and only there. */
static void check_cluster_at_launch(const char *gpu, int64_t dyn, int carveout,
                                    int size) {
  occ_device d = board(gpu);
  occ_cluster cluster = {{size, 1, 1}, false};
  occ_item item = {.device = &d,
                   .kernel = test_kernel(32, 0, dyn, 64, carveout)};
  occ_model_request request = {.cluster = &cluster};
  occ_model_section failed;
  cr_assert_eq(occ_model_build(&item, &request, &failed), OCC_OK);
  occ_report rep = {.device = &d, .kernel = &item.kernel, .result = &item.result,
                    .cluster = &item.cluster,
                    .cluster_result = &item.cluster_result,
                    .launch_cluster_result = &item.launch_cluster_result};
  int64_t api = domain_clusters(&d, item.result.active_blocks_per_sm, size);
  int64_t launch =
      domain_clusters(&d, item.result.launch_active_blocks_per_sm, size);
  char *text = text_of(&rep);
  cJSON *json = json_parsed(occ_json_report(&rep));
  cr_assert_not_null(json);
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(json, "at_launch");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(json, "cluster");
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(at, "max_active_clusters");
  cr_assert(cJSON_IsNumber(n), "%s %lld B carveout %d cluster %d", gpu,
            (long long)dyn, carveout, size);
  cr_expect_eq(n->valuedouble, (double)launch, "%s %lld B carveout %d cluster %d",
               gpu, (long long)dyn, carveout, size);
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(c, "max_active_clusters")->valuedouble,
               (double)api);
  cr_expect_float_eq(
      cJSON_GetObjectItemCaseSensitive(at, "active_blocks_per_sm")->valuedouble *
          d.sm_count,
      (double)(launch * size), 1e-6);
  /* The top "at launch" line (the one without clusters is indented). */
  char line[128] = "";
  const char *at_line = strstr(text, "\n  at launch ");
  if (at_line) {
    const char *end = strchr(at_line + 1, '\n');
    snprintf(line, sizeof line, "%.*s", (int)(end - at_line - 1), at_line + 1);
  }
  char ending[64];
  snprintf(ending, sizeof ending, ", %lld clusters", (long long)launch);
  size_t len = strlen(line), ending_len = strlen(ending);
  if (launch != api)
    cr_expect(len > ending_len && strcmp(line + len - ending_len, ending) == 0,
              "'%s' does not end with '%s'", line, ending);
  else
    cr_expect_null(strstr(line, "cluster"), "'%s': the API's count again", line);
  cJSON_Delete(json);
  free(text);
}

Test(report_rows, a_cluster_launch_gives_its_clusters_at_launch) {
  const char *gpus[] = {"H100 SXM", "H200"};
  const int64_t dyn[] = {0, 7168, 12288};
  const int carveouts[] = {OCC_CARVEOUT_DEFAULT, 0, 28, 50};
  const int sizes[] = {2, 4, 8};
  for (int g = 0; g < 2; g++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        for (int s = 0; s < 3; s++)
          check_cluster_at_launch(gpus[g], dyn[i], carveouts[j], sizes[s]);
}

/* A launch without clusters has no count at launch: null, never 0. */
Test(report_rows, a_launch_without_clusters_has_null_clusters_at_launch) {
  occ_device d = board("H100 SXM");
  occ_item item = {.device = &d,
                   .kernel = test_kernel(32, 0, 12288, 64, 28)};
  occ_model_request request = {0};
  occ_model_section failed;
  cr_assert_eq(occ_model_build(&item, &request, &failed), OCC_OK);
  occ_report rep = {.device = &d, .kernel = &item.kernel, .result = &item.result};
  cJSON *json = json_parsed(occ_json_report(&rep));
  cr_assert_not_null(json);
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(json, "at_launch");
  cr_expect(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(at, "max_active_clusters")));
  cJSON_Delete(json);
}

/* --- every figure with its basis --- */

/* The compute capabilities whose shared-memory configuration the driver
 * was surveyed on: the boards named in the surveys' first lines
 * (the first line of each config survey in tests/survey), looked up in
 * the database. The oracle is the recorded data, not the code's rule. */
static int surveyed_ccs(int ccs[], int max) {
  static const char *const surveys[] = {"tests/survey/h100-config-survey.csv",
                                        "tests/survey/h200-config-survey.csv",
                                        "tests/survey/h100-config-small.csv"};
  int n = 0;
  for (size_t i = 0; i < sizeof surveys / sizeof *surveys; i++) {
    FILE *f = fopen(surveys[i], "r");
    cr_assert_not_null(f, "%s: run from the repository root", surveys[i]);
    char line[512], name[128];
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_eq(sscanf(line, "# NVIDIA %127[^,(]", name), 1, "%s", line);
    size_t len = strlen(name);
    while (len > 0 && name[len - 1] == ' ') name[--len] = '\0';
    occ_device d = board(name);
    if (n < max) ccs[n++] = d.cc_major * 10 + d.cc_minor;
  }
  return n;
}

static bool surveyed(const occ_device *d, const int ccs[], int n) {
  for (int i = 0; i < n; i++)
    if (ccs[i] == d->cc_major * 10 + d->cc_minor) return true;
  return false;
}

/* The line after the text's "SM configured" line. */
static const char *line_after(const char *text, const char *start) {
  const char *l = strstr(text, start);
  if (!l) return NULL;
  const char *nl = strchr(l, '\n');
  return nl ? nl + 1 : NULL;
}

static void check_basis(const occ_device *d, const occ_kernel *k, bool assumed) {
  occ_item item = {.device = d, .kernel = *k};
  occ_model_request request = {0};
  occ_model_section failed;
  if (occ_model_build(&item, &request, &failed) != OCC_OK) return;
  if (!item.result.launchable || !occ_launch_config_known(&item.result)) return;
  occ_report rep = {.device = d, .kernel = &item.kernel, .result = &item.result,
                    .ncu = item.has_ncu ? &item.ncu : NULL};
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  occ_print_report(out, &rep);
  occ_print_ncu(out, &rep);
  fclose(out);
  const char *after = line_after(text, "  SM configured ");
  cr_assert_not_null(after, "%s: no SM configured line:\n%s", d->name, text);
  bool marked = strncmp(after, "                  assumed: ", 27) == 0;
  cr_expect_eq(marked, assumed, "%s (cc %d.%d): SM configured %s:\n%s", d->name,
               d->cc_major, d->cc_minor, assumed ? "unmarked" : "marked", text);
  const char *row = strstr(text, "launch__shared_mem_config_size");
  cr_assert_not_null(row, "%s:\n%s", d->name, text);
  const char *row_end = strchr(row, '\n');
  bool row_marked = row_end && row_end - row > 8 && strncmp(row_end - 8, " assumed", 8) == 0;
  cr_expect_eq(row_marked, assumed, "%s: ncu row:\n%s", d->name, text);
  cJSON *json = json_parsed(occ_json_report(&rep));
  cr_assert_not_null(json);
  const char *want = assumed ? "assumed" : "derived";
  const char *objects[] = {"allocated", "at_launch"};
  for (int i = 0; i < 2; i++) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(json, objects[i]);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "smem_config_basis");
    cr_expect(cJSON_IsString(b) && strcmp(b->valuestring, want) == 0,
              "%s: %s.smem_config_basis is not %s", d->name, objects[i], want);
  }
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(json, "ncu"), "assumed_metrics");
  cr_assert(cJSON_IsArray(list), "%s: no ncu.assumed_metrics", d->name);
  bool listed = false;
  const cJSON *m;
  cJSON_ArrayForEach(m, list)
    listed |= strcmp(m->valuestring, "launch__shared_mem_config_size") == 0;
  cr_expect_eq(listed, assumed, "%s: ncu.assumed_metrics", d->name);
  cJSON_Delete(json);
  free(text);
}

static void check_device_basis(const occ_device *d, const int ccs[], int n) {
  /* Where the SM has one size there is nothing to choose; elsewhere the
   * configuration is derived only on a surveyed architecture. */
  bool assumed = d->smem_config_count > 0 && !surveyed(d, ccs, n);
  const int carveouts[] = {OCC_CARVEOUT_DEFAULT, 50};
  const int64_t smem[] = {0, 4096};
  for (int c = 0; c < 2; c++)
    for (int s = 0; s < 2; s++) {
      occ_kernel k = test_kernel(32, smem[s], 0, 128, carveouts[c]);
      check_basis(d, &k, assumed);
    }
}

Test(report_rows, no_assumed_figure_goes_unmarked_on_any_board_or_architecture) {
  int ccs[8];
  int n = surveyed_ccs(ccs, 8);
  cr_assert_gt(n, 0);
  size_t boards = occ_gpudb_gpu_count(db), archs = occ_gpudb_arch_count(db);
  int assumed = 0;
  for (size_t i = 0; i < boards + archs; i++) {
    occ_device d;
    if (i < boards)
      occ_gpudb_gpu_at(db, i, &d, NULL, NULL);
    else
      occ_gpudb_arch_at(db, i - boards, &d, NULL, NULL);
    check_device_basis(&d, ccs, n);
    assumed += d.smem_config_count > 0 && !surveyed(&d, ccs, n);
  }
  /* The test reaches both kinds: the surveyed H100 and the A100, B200. */
  cr_expect_gt(assumed, 5);
  occ_device h100 = board("H100 SXM"), b200 = board("B200");
  cr_expect(surveyed(&h100, ccs, n));
  cr_expect(!surveyed(&b200, ccs, n));
}
