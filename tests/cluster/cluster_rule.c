/* cluster_rule.c - the offline thread block cluster rule (core/cluster.h)
 * against the cluster survey's every row on the H100 and the H200
 * (tests/survey/h{100,200}-cluster-{domains,grid}.csv, make cluster-survey),
 * and the database's layouts. make test-cluster-unit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster.h"
#include "db_fixture.h"

TestSuite(cluster, .init = load_db, .fini = free_db);

/* One survey row: the columns of kernels/cluster_survey.cu; measured
 * columns read -1 where empty. */
typedef struct survey_row {
  int regs, block, dyn, c[3], api_bps, api_clusters;
  int meas_min, meas_max, meas_bps, shared_sm, cross_domain, domains_used, err;
} survey_row;

static bool parse_row(const char *line, survey_row *r) {
  int *f[] = {&r->regs, &r->block, &r->dyn, &r->c[0], &r->c[1], &r->c[2],
              &r->api_bps, &r->api_clusters, &r->meas_min, &r->meas_max,
              &r->meas_bps, &r->shared_sm, &r->cross_domain, &r->domains_used,
              &r->err};
  if (line[0] < '0' || line[0] > '9') return false; /* comments, header */
  const char *p = line;
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    char *end;
    long v = strtol(p, &end, 10);
    *f[i] = end == p ? -1 : (int)v;
    p = *end == ',' ? end + 1 : end;
  }
  return true;
}

/* Checks every row of one survey file against the rule on the board;
 * returns the rows read. */
static int check_survey(const char *path, const char *board_name,
                        int *measured) {
  occ_device d = board(board_name);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s: run from the repository root", path);
  char line[512];
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    survey_row s;
    if (!parse_row(line, &s)) continue;
    rows++;
    cr_assert_eq(s.err, 0, "%s: %s: the survey saw an error", path, line);
    occ_result r;
    occ_kernel k = test_kernel(s.regs, 0, s.dyn, s.block, OCC_CARVEOUT_DEFAULT);
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    cr_expect_eq(r.active_blocks_per_sm, s.api_bps, "%s: %s: blocks per SM %d",
                 path, line, r.active_blocks_per_sm);
    occ_cluster cl = {{s.c[0], s.c[1], s.c[2]}, true};
    int64_t clusters;
    if (occ_cluster_size(&cl) > OCC_CLUSTER_NON_PORTABLE_MAX) {
      /* The API answers sizes no launch may use: the same arithmetic. */
      cr_expect_eq(occ_cluster_check(&d, &cl), OCC_CLUSTER_ERR_TOO_LARGE);
      int cap = r.active_blocks_per_sm < d.cluster_max_blocks_per_sm
                    ? r.active_blocks_per_sm
                    : d.cluster_max_blocks_per_sm;
      clusters = occ_cluster_max_active(d.cluster_domain_sms,
                                        d.cluster_domain_count, cap,
                                        (int)occ_cluster_size(&cl), NULL);
    } else {
      occ_cluster_result cr;
      cr_assert_eq(occ_cluster_compute(&d, &r, &cl, &cr), OCC_CLUSTER_OK);
      cr_assert(cr.layout_known);
      clusters = cr.max_active_clusters;
      if (s.meas_bps >= 0)
        cr_expect_eq(cr.cluster_blocks_per_sm, s.meas_bps,
                     "%s: %s: blocks per SM under clusters %d", path, line,
                     cr.cluster_blocks_per_sm);
    }
    cr_expect_eq(clusters, s.api_clusters, "%s: %s: rule %lld clusters", path,
                 line, (long long)clusters);
    if (s.meas_min >= 0) {
      (*measured)++;
      cr_expect_eq(s.meas_min, s.api_clusters, "%s: %s: measured", path, line);
      cr_expect_eq(s.meas_max, s.api_clusters, "%s: %s: measured", path, line);
      cr_expect_eq(s.shared_sm, 0, "%s: %s: two blocks on one SM", path, line);
      cr_expect(s.cross_domain <= 0, "%s: %s: a cluster in two domains", path,
                line);
    }
  }
  fclose(f);
  return rows;
}

Test(cluster, rule_reproduces_every_survey_row) {
  static const struct {
    const char *path, *board;
    int min_rows;
  } files[] = {
      {"tests/survey/h100-cluster-domains.csv", "H100 SXM", 32},
      {"tests/survey/h200-cluster-domains.csv", "H200", 32},
      {"tests/survey/h100-cluster-grid.csv", "H100 SXM", 1100},
      {"tests/survey/h200-cluster-grid.csv", "H200", 1100},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    int measured = 0;
    int rows = check_survey(files[i].path, files[i].board, &measured);
    cr_expect_geq(rows, files[i].min_rows, "%s: %d rows", files[i].path, rows);
    cr_expect_gt(measured, 0, "%s: no measured row", files[i].path);
  }
}

/* The layout in the database is the one the survey measured (its
 * "# domains" line), for both boards. */
Test(cluster, database_layout_is_the_surveyed_one) {
  static const char *const files[][2] = {
      {"tests/survey/h100-cluster-domains.csv", "H100 SXM"},
      {"tests/survey/h200-cluster-domains.csv", "H200"}};
  for (int i = 0; i < 2; i++) {
    FILE *f = fopen(files[i][0], "r");
    cr_assert_not_null(f);
    char line[512], want[512] = "";
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "# domains (measured", 19) == 0) {
        const char *colon = strchr(line, ':');
        cr_assert_not_null(colon);
        snprintf(want, sizeof want, "%s", colon + 1);
      }
    fclose(f);
    occ_device d = board(files[i][1]);
    char got[512] = "";
    int sms = 0;
    for (int j = 0; j < d.cluster_domain_count; j++) {
      size_t len = strlen(got);
      snprintf(got + len, sizeof got - len, " %d", d.cluster_domain_sms[j]);
      sms += d.cluster_domain_sms[j];
    }
    size_t len = strlen(got);
    snprintf(got + len, sizeof got - len, " (%d SMs)\n", sms);
    cr_expect_str_eq(got, want, "%s", files[i][1]);
  }
}

Test(cluster, unknown_layout_is_null_with_a_reason) {
  occ_device boards[2];
  boards[0] = board("H100 PCIe"); /* never surveyed */
  char near[128];
  cr_assert_eq(occ_gpudb_find_cc(db, 9, 0, &boards[1], near, sizeof near), 0);
  for (int i = 0; i < 2; i++) {
    occ_result r;
    occ_kernel k = test_kernel(32, 0, 0, 128, OCC_CARVEOUT_DEFAULT);
    cr_assert_eq(occ_compute(&boards[i], &k, &r), OCC_OK);
    occ_cluster cl = {{2, 1, 1}, false};
    occ_cluster_result cr;
    cr_assert_eq(occ_cluster_compute(&boards[i], &r, &cl, &cr), OCC_CLUSTER_OK);
    cr_expect_not(cr.layout_known);
    cr_assert_not_null(cr.unknown_reason);
    cr_expect_not_null(strstr(cr.unknown_reason, i == 0 ? "never measured"
                                                        : "bare architecture"),
                       "%s", cr.unknown_reason);
    occ_cluster_waves w;
    occ_cluster_waves_compute(&cr, 100, &w);
    cr_expect_eq(w.clusters_per_wave, 0);
  }
}

Test(cluster, sizes_are_checked) {
  occ_device d = board("H100 SXM");
  static const struct {
    int x, y, z;
    bool non_portable;
    occ_cluster_status want;
  } cases[] = {
      {1, 1, 1, false, OCC_CLUSTER_OK},  {8, 1, 1, false, OCC_CLUSTER_OK},
      {2, 2, 2, false, OCC_CLUSTER_OK},  {0, 1, 1, false, OCC_CLUSTER_ERR_DIM},
      {2, -1, 1, true, OCC_CLUSTER_ERR_DIM},
      {9, 1, 1, false, OCC_CLUSTER_ERR_NON_PORTABLE},
      {3, 3, 1, false, OCC_CLUSTER_ERR_NON_PORTABLE},
      {16, 1, 1, true, OCC_CLUSTER_OK},  {4, 2, 2, true, OCC_CLUSTER_OK},
      {17, 1, 1, true, OCC_CLUSTER_ERR_TOO_LARGE},
      {65536, 65536, 2, true, OCC_CLUSTER_ERR_TOO_LARGE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    occ_cluster cl = {{cases[i].x, cases[i].y, cases[i].z}, cases[i].non_portable};
    cr_expect_eq(occ_cluster_check(&d, &cl), cases[i].want, "case %zu", i);
  }
  occ_device a100 = board("A100");
  occ_cluster two = {{2, 1, 1}, false};
  cr_expect_eq(occ_cluster_check(&a100, &two), OCC_CLUSTER_ERR_ARCH);
  cr_expect_not_null(strstr(occ_cluster_strerror(OCC_CLUSTER_ERR_TOO_LARGE), "16"));
}

/* A configuration where clusters lower the GPU's blocks (the per-SM cap and
 * the small domains), its occupancy and its waves in clusters. */
Test(cluster, limiter_occupancy_and_waves) {
  occ_device d = board("H200");
  occ_kernel k = test_kernel(32, 0, 0, 128, OCC_CARVEOUT_DEFAULT);
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_assert_eq(r.active_blocks_per_sm, 16);
  occ_cluster cl = {{4, 1, 1}, false};
  occ_cluster_result cr;
  cr_assert_eq(occ_cluster_compute(&d, &r, &cl, &cr), OCC_CLUSTER_OK);
  cr_expect_eq(cr.cluster_blocks_per_sm, 8);
  cr_expect_eq(cr.domains_fitting, 8); /* the four 2-SM domains hold none */
  /* 2 x 36 + 5 x 32 + 16 = 248 */
  cr_expect_eq(cr.max_active_clusters, 248);
  cr_expect_eq(cr.domain_clusters[0], 36);
  cr_expect_eq(cr.domain_clusters[11], 0);
  cr_expect(cr.limited_by_cluster);
  cr_expect_eq(cr.active_blocks, 992);
  cr_expect_float_eq(cr.occupancy, 992.0 * 4 / (132.0 * 64), 1e-12);
  int64_t grid[3] = {1000, 2, 1}, clusters;
  cr_assert_eq(occ_cluster_grid_clusters(grid, &cl, &clusters), OCC_CLUSTER_OK);
  cr_expect_eq(clusters, 500);
  occ_cluster_waves w;
  occ_cluster_waves_compute(&cr, clusters, &w);
  cr_expect_eq(w.full_waves, 2);
  cr_expect_eq(w.tail_clusters, 4);
  cr_expect_float_eq(w.waves, 500.0 / 248, 1e-12);
  int64_t odd[3] = {1001, 1, 1};
  cr_expect_eq(occ_cluster_grid_clusters(odd, &cl, &clusters), OCC_CLUSTER_ERR_GRID);
  /* One block per SM (cluster size 1) with 8 fitting: nothing lost. */
  occ_kernel big = test_kernel(32, 0, 100000, 128, OCC_CARVEOUT_DEFAULT);
  cr_assert_eq(occ_compute(&d, &big, &r), OCC_OK);
  occ_cluster one = {{1, 1, 1}, false};
  cr_assert_eq(occ_cluster_compute(&d, &r, &one, &cr), OCC_CLUSTER_OK);
  cr_expect_not(cr.limited_by_cluster);
  cr_expect_eq(cr.max_active_clusters, 264);
}

/* The loader refuses a layout that does not add up to the board's SMs. */
Test(cluster, loader_refuses_an_inconsistent_layout) {
  FILE *f = fopen("data/gpus.json", "rb");
  cr_assert_not_null(f);
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  char *at = strstr(text, "[18, 18, 16");
  cr_assert_not_null(at);
  at[2] = '9'; /* 19 + 18 + ...: 133 SMs of 132 */
  char err[512];
  occ_gpudb *bad = occ_gpudb_parse(text, len, "gpus.json", err, sizeof err);
  cr_expect_null(bad);
  cr_expect_not_null(strstr(err, "domains_sms"), "%s", err);
  occ_gpudb_free(bad);
  at[2] = '8';
  occ_gpudb *good = occ_gpudb_parse(text, len, "gpus.json", err, sizeof err);
  cr_expect_not_null(good, "%s", err);
  occ_gpudb_free(good);
}
