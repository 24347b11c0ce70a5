/* Unit tests of the calculator core, the database and the parsers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "db_fixture.h"
#include "core/cc.h"
#include "db/gpudb.h"
#include "core/occ.h"
#include "render/report_text.h"


static occ_result run(const occ_device *d, int regs, int64_t smem, int bx, int by) {
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = regs;
  k.smem_static_bytes = smem;
  k.block[0] = bx;
  k.block[1] = by;
  occ_result r;
  cr_assert_eq(occ_compute(d, &k, &r), OCC_OK);
  return r;
}

TestSuite(core, .init = load_db, .fini = free_db);

Test(core, gtx970_seed_example) {
  occ_device d = board("GTX 970");
  occ_result r = run(&d, 48, 4096, 128, 1);
  cr_expect_eq(r.warps_per_block, 4);
  cr_expect_eq(r.regs_per_warp, 1536);
  cr_expect_eq(r.regs_per_sub_partition, 16384);
  cr_expect_eq(r.warps_per_sub_partition, 10);
  cr_expect_eq(r.warps_per_sm_by_regs, 40);
  cr_expect_eq(r.limit_regs, 10);
  cr_expect_eq(r.limit_smem, 24);
  cr_expect_eq(r.limit_warps, 16);
  cr_expect_eq(r.limit_blocks, 32);
  cr_expect_eq(r.limit_barriers, OCC_UNLIMITED);
  cr_expect_eq(r.active_warps_per_sm, 40);
  cr_expect_float_eq(r.occupancy, 0.625, 1e-12);
  cr_expect_eq(r.limited_by, OCC_LIMITER_REGISTERS);
  cr_expect(r.launchable);
}

Test(core, block_40x2_has_16_inactive_threads) {
  occ_device d = board("GTX 970");
  occ_result r = run(&d, 48, 4096, 40, 2);
  cr_expect_eq(r.threads_per_block, 80);
  cr_expect_eq(r.warps_per_block, 3);
  cr_expect_eq(r.inactive_threads, 16);
}

Test(core, h100_readme_example) {
  occ_device d = board("H100 SXM");
  occ_result r = run(&d, 48, 4096, 128, 1);
  cr_expect_eq(r.active_blocks_per_sm, 10);
  cr_expect_eq(r.active_warps_per_sm, 40);
  cr_expect_eq(r.smem_per_block_bytes, 5120); /* 1 KB reserved */
  cr_expect_eq(r.smem_config_bytes, 233472);
  cr_expect_eq(r.limited_by, OCC_LIMITER_REGISTERS);
}

Test(core, zero_carveout_means_max_l1_not_default) {
  occ_device d = board("H100 SXM");
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = 48;
  k.smem_static_bytes = 4096;
  k.block[0] = 128;
  k.carveout_pct = 0;
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(r.smem_config_bytes, 8192);
  cr_expect_eq(r.active_blocks_per_sm, 1);
  cr_expect_eq(r.limited_by, OCC_LIMITER_SHARED_MEMORY);
}

Test(core, cannot_launch_is_a_result_not_an_error) {
  occ_device d = board("A100");
  occ_result r = run(&d, 32, 300 * 1024, 128, 1);
  cr_expect_not(r.launchable);
  cr_expect_eq(r.active_blocks_per_sm, 0);
  cr_expect_eq(r.reason, OCC_NO_SMEM_PER_BLOCK);
  occ_result q = run(&d, 255, 0, 1024, 1);
  cr_expect_not(q.launchable);
  cr_expect_eq(q.reason, OCC_NO_REGS_PER_BLOCK);
}

Test(core, barriers_limit_on_hopper_only) {
  occ_device h = board("H100 SXM"), a = board("A100");
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = 32;
  k.barriers = 16;
  occ_result r;
  cr_assert_eq(occ_compute(&h, &k, &r), OCC_OK);
  cr_expect_eq(r.limit_barriers, 32 * 2 / 16);
  cr_assert_eq(occ_compute(&a, &k, &r), OCC_OK);
  cr_expect_eq(r.limit_barriers, OCC_UNLIMITED);
}

Test(core, invalid_inputs_are_errors) {
  occ_device d = board("A100");
  occ_kernel k;
  occ_kernel_init(&k);
  occ_result r;
  k.carveout_pct = 101;
  cr_expect_eq(occ_compute(&d, &k, &r), OCC_ERR_CARVEOUT);
  occ_kernel_init(&k);
  k.block[0] = 0;
  cr_expect_eq(occ_compute(&d, &k, &r), OCC_ERR_INVALID_KERNEL);
  occ_kernel_init(&k);
  d.warp_size = 0;
  cr_expect_eq(occ_compute(&d, &k, &r), OCC_ERR_INVALID_DEVICE);
}

Test(core, waves_split_full_and_tail) {
  occ_device d = board("A100");
  occ_result r = run(&d, 64, 0, 256, 1);
  cr_assert_eq(r.active_blocks_per_sm, 4);
  occ_waves w;
  occ_waves_compute(&d, &r, 10000, &w);
  cr_expect_eq(w.blocks_per_wave, 432);
  cr_expect_eq(w.full_waves, 23);
  cr_expect_eq(w.tail_blocks, 10000 - 23 * 432);
}

Test(core, best_block_size_largest_and_smallest) {
  occ_device d = board("GTX 970");
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = 48;
  k.smem_static_bytes = 4096;
  occ_block_choice c;
  cr_assert_eq(occ_best_block_size(&d, &k, &c), OCC_OK);
  /* 40 warps per SM by registers; 1280 threads is the best any size gets. */
  cr_expect_eq(c.active_threads_per_sm, 1280);
  cr_expect_eq(c.block_size, 640);
  cr_expect_eq(c.smallest_block_size, 64); /* 2 warps: 20 blocks by registers */
  cr_expect_eq(c.min_grid_size, 2 * 13);
}

TestSuite(gpudb, .init = load_db, .fini = free_db);

Test(gpudb, names_match_loosely) {
  const char *names[] = {"gtx970", "GeForce GTX 970", "nvidia gtx-970", "H100-SXM",
                         "h100 sxm", "h100"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    occ_device d;
    char near[128];
    cr_expect_eq(occ_gpudb_find_gpu(db, names[i], &d, near, sizeof near), 0, "%s", names[i]);
  }
}

Test(gpudb, unknown_names_list_the_nearest) {
  occ_device d;
  char near[256];
  cr_assert_eq(occ_gpudb_find_gpu(db, "rtx4080", &d, near, sizeof near), -1);
  cr_expect(strstr(near, "RTX 4090") != NULL, "%s", near);
  cr_assert_eq(occ_gpudb_find_cc(db, 8, 4, &d, near, sizeof near), -1);
  cr_expect(strstr(near, "8.6") != NULL, "%s", near);
}

Test(gpudb, every_architecture_from_3_5_to_12_1) {
  const int ccs[][2] = {{3, 5}, {3, 7}, {5, 0}, {5, 2}, {5, 3}, {6, 0}, {6, 1},
                        {6, 2}, {7, 0}, {7, 2}, {7, 5}, {8, 0}, {8, 6}, {8, 7},
                        {8, 9}, {9, 0}, {10, 0}, {10, 3}, {11, 0}, {12, 0}, {12, 1}};
  for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
    occ_device d;
    char near[64];
    cr_expect_eq(occ_gpudb_find_cc(db, ccs[i][0], ccs[i][1], &d, near, sizeof near), 0,
                 "cc %d.%d", ccs[i][0], ccs[i][1]);
  }
}

Test(gpudb, malformed_text_names_line_and_column) {
  char err[256];
  const char *text = "{\n  \"schema\": 1,\n  \"gpus\": [,]\n}";
  occ_gpudb *bad = occ_gpudb_parse(text, strlen(text), "x.json", err, sizeof err);
  cr_expect_null(bad);
  cr_expect(strstr(err, "x.json:3:") != NULL, "%s", err);
}

Test(gpudb, entries_must_name_a_source) {
  char err[256];
  const char *text = "{\"schema\":1,\"architectures\":[{\"cc\":\"9.0\"}],\"gpus\":[]}";
  cr_expect_null(occ_gpudb_parse(text, strlen(text), "y.json", err, sizeof err));
  cr_expect(strstr(err, "architectures[0]") != NULL, "%s", err);
}

Test(parse, compute_capability_forms) {
  int a, b;
  cr_expect_eq(occ_parse_cc("sm_90", OCC_CC_NAME, &a, &b), 0);
  cr_expect(a == 9 && b == 0);
  cr_expect_eq(occ_parse_cc("sm_90a", OCC_CC_NAME, &a, &b), 0);
  cr_expect_eq(occ_parse_cc("compute_120", OCC_CC_NAME, &a, &b), 0);
  cr_expect(a == 12 && b == 0);
  cr_expect_eq(occ_parse_cc("10.3", OCC_CC_NAME, &a, &b), 0);
  cr_expect(a == 10 && b == 3);
  cr_expect_eq(occ_parse_cc("sm_9x", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("90", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("9.", OCC_CC_NAME, &a, &b), -1);
  /* One rule for --arch and the reports' targets (the reader took these,
   * the option refused them): a major past 19, a suffix without sm_, a
   * dot after sm_. */
  cr_expect_eq(occ_parse_cc("sm_900", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("9.0a", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("sm_9.0", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("20.0", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("sm_100f", OCC_CC_NAME, &a, &b), 0);
  cr_expect(a == 10 && b == 0);
}

/* The database's "cc": the same parser, dotted only, with the core's
 * majors (1 to 99). */
Test(parse, database_compute_capability_forms) {
  int a, b;
  cr_expect_eq(occ_parse_cc("9.0", OCC_CC_DOTTED, &a, &b), 0);
  cr_expect(a == 9 && b == 0);
  cr_expect_eq(occ_parse_cc("25.1", OCC_CC_DOTTED, &a, &b), 0);
  cr_expect(a == 25 && b == 1);
  cr_expect_eq(occ_parse_cc("25.1", OCC_CC_NAME, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("sm_90", OCC_CC_DOTTED, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("09.0", OCC_CC_DOTTED, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("100.0", OCC_CC_DOTTED, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("9.10", OCC_CC_DOTTED, &a, &b), -1);
  cr_expect_eq(occ_parse_cc("9", OCC_CC_DOTTED, &a, &b), -1);
}

Test(text, percentages_keep_what_matters) {
  char s[32];
  occ_pct_text(0.625, s, sizeof s);
  cr_expect_str_eq(s, "62.5");
  occ_pct_text(0.0625, s, sizeof s);
  cr_expect_str_eq(s, "6.25");
  occ_pct_text(1.0, s, sizeof s);
  cr_expect_str_eq(s, "100");
  occ_pct_text(1.0 / 3.0, s, sizeof s);
  cr_expect_str_eq(s, "33.33");
}

/* Every row of tests/survey/h100-carveout.csv (kernels/carveout_survey.cu on
 * an H100): the occupancy API's answer must equal active_blocks_per_sm and
 * the residency measured on every SM must equal launch_active_blocks_per_sm.
 * The survey includes configurations where the two rules differ, so a
 * calculator with only one of them fails here. */
Test(core, launch_rule_matches_h100_survey) {
  occ_device d = board("H100 SXM");
  FILE *f = fopen("tests/survey/h100-carveout.csv", "r");
  cr_assert_not_null(f, "tests/survey/h100-carveout.csv: run from the repository root");
  char line[256];
  int rows = 0, rules_differ = 0;
  while (fgets(line, sizeof line, f)) {
    int st, regs, block, dyn, carve, api, lo, hi, err;
    if (sscanf(line, "%d,%d,%d,%d,%d,%d,%d,%d,%d", &st, &regs, &block, &dyn,
               &carve, &api, &lo, &hi, &err) != 9)
      continue; /* the comment and the header */
    cr_assert_eq(err, 0, "row %d was not measured", rows + 1);
    occ_kernel k = test_kernel(regs, st, dyn, block, carve);
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    cr_expect_eq(r.active_blocks_per_sm, api, "%s: API rule %d, API %d", line,
                 r.active_blocks_per_sm, api);
    cr_expect_eq(lo, hi, "%s: SMs differ", line);
    cr_expect_eq(r.launch_active_blocks_per_sm, hi, "%s: launch rule %d, measured %d",
                 line, r.launch_active_blocks_per_sm, hi);
    rows++;
    rules_differ += api != hi;
  }
  fclose(f);
  cr_expect_geq(rows, 3000);
  cr_expect_gt(rules_differ, 0);
}

Test(core, launch_rule_equals_api_rule_without_preference) {
  occ_device d = board("H100 SXM");
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = 32;
  k.block[0] = 64;
  k.smem_dynamic_bytes = 7168;
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(r.launch_smem_config_bytes, r.smem_config_bytes);
  cr_expect_eq(r.launch_active_blocks_per_sm, r.active_blocks_per_sm);
  /* 28 % of 228 KB is 63.8 KB: 64 KB for the API; 9 blocks of 7 KB of
   * their own at launch, 72 KB with the reserve, so 100 KB: 12 blocks. */
  k.carveout_pct = 28;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(r.smem_config_bytes, 64 * 1024);
  cr_expect_eq(r.active_blocks_per_sm, 8);
  cr_expect_eq(r.launch_smem_config_bytes, 100 * 1024);
  cr_expect_eq(r.launch_active_blocks_per_sm, 12);
  /* No shared memory of its own: not limited by it at launch; the SM
   * still takes the default's 32 KB (the reserves of 32 blocks). */
  k.smem_dynamic_bytes = 0;
  k.carveout_pct = 0;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(r.smem_config_bytes, 8192);
  cr_expect_eq(r.launch_smem_config_bytes, 32768);
  cr_expect_eq(r.launch_limit_smem, OCC_UNLIMITED);
  cr_expect_eq(r.launch_active_blocks_per_sm, 32);
}
