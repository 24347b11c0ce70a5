/* test_config.c - the driver's shared-memory configuration (the core's
 * launch rule) against every launchable row of the surveys measured on an
 * H100 and an H200 (make config-survey and make config-small: CUPTI's
 * sharedMemoryExecuted), and
 * the ncu object against Nsight Compute's values for 512 of them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/ncu.h"
#include "core/occ.h"
#include "db/gpudb.h"
#include "db_fixture.h"

TestSuite(config, .init = load_db, .fini = free_db);

/* Every launchable row: the API rule's blocks and the configuration. */
static int check_survey(const char *path, const char *gpu) {
  occ_device d = board(gpu);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s: run from the repository root", path);
  char line[256];
  int rows = 0, differ = 0;
  while (fgets(line, sizeof line, f)) {
    int st, regs, block, dyn, carve, api, lo, hi, err;
    long executed;
    if (sscanf(line, "%d,%d,%d,%d,%d,%d,%d,%d,%ld,%d", &st, &regs, &block,
               &dyn, &carve, &api, &lo, &hi, &executed, &err) != 10 || api == 0)
      continue; /* the comment, the header, what cannot launch */
    occ_kernel k = test_kernel(regs, st, dyn, block, carve);
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    cr_expect_eq(r.active_blocks_per_sm, api, "%s", line);
    cr_expect_eq(r.launch_smem_config_bytes, executed, "%s: predicted %lld",
                 line, (long long)r.launch_smem_config_bytes);
    differ += r.launch_smem_config_bytes != r.smem_config_bytes;
    rows++;
  }
  fclose(f);
  cr_expect_gt(differ, rows / 10, "%d of %d rows differ from the API", differ, rows);
  return rows;
}

Test(config, driver_choice_matches_h100_survey) {
  cr_expect_eq(check_survey("tests/survey/h100-config-survey.csv", "H100 SXM"), 19992);
}

Test(config, driver_choice_matches_h200_survey) {
  cr_expect_eq(check_survey("tests/survey/h200-config-survey.csv", "H200"), 34272);
}

Test(config, driver_choice_matches_h200_block_sizes) {
  cr_expect_eq(check_survey("tests/survey/h200-config-blocks.csv", "H200"), 1806);
}

/* Blocks with little memory of their own: 0 B to 4 KB, exact register
 * caps, carveout preferences, the opt-in attribute set or not. */
Test(config, driver_choice_matches_h100_small_smem) {
  cr_expect_eq(check_survey("tests/survey/h100-config-small.csv", "H100 SXM"), 7560);
}

Test(config, driver_choice_matches_h100_fine_steps) {
  cr_expect_eq(check_survey("tests/survey/h100-config-fine.csv", "H100 SXM"), 200);
}

Test(config, driver_choice_matches_h200_small_smem) {
  cr_expect_eq(check_survey("tests/survey/h200-config-small.csv", "H200"), 7560);
}

Test(config, driver_choice_matches_h200_fine_steps) {
  cr_expect_eq(check_survey("tests/survey/h200-config-fine.csv", "H200"), 200);
}

/* PyTorch's vectorized_layer_norm_kernel and layer_norm_grad_input_kernel
 * on the H100: 128 threads, 32 registers, 24 or 16 B of dynamic memory;
 * the driver configured 32 KB (CUPTI and ncu). */
Test(config, layer_norm_launch_is_configured_32_kb) {
  occ_device d = board("H100 SXM");
  for (int dyn = 16; dyn <= 24; dyn += 8) {
    occ_kernel k = test_kernel(32, 0, dyn, 128, OCC_CARVEOUT_DEFAULT);
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    cr_expect_eq(r.active_blocks_per_sm, 16);
    cr_expect_eq(r.launch_smem_config_bytes, 32768, "dyn %d: predicted %lld", dyn,
                 (long long)r.launch_smem_config_bytes);
  }
}

/* Every launch of two PyTorch programs, as occcalc run recorded them
 * (kernels/config_torch_*.py, tests/survey/torch_launches.py --record):
 * the number of launches replayed. */
static int check_torch_launches(const char *path, const char *gpu) {
  occ_device d = board(gpu);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s: run from the repository root", path);
  char line[1024];
  int launches = 0;
  while (fgets(line, sizeof line, f)) {
    char program[16];
    int st, regs, bx, by, bz, dyn, carve, count;
    long executed;
    if (sscanf(line, "%15[a-z],%d,%d,%d,%d,%d,%d,%d,%ld,%d,", program, &st, &regs,
               &bx, &by, &bz, &dyn, &carve, &executed, &count) != 10)
      continue;
    occ_kernel k = test_kernel(regs, st, dyn, bx, carve < 0 ? OCC_CARVEOUT_DEFAULT : carve);
    k.block[1] = by;
    k.block[2] = bz;
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK, "%s", line);
    cr_expect_eq(r.launch_smem_config_bytes, executed, "%s: predicted %lld", line,
                 (long long)r.launch_smem_config_bytes);
    launches += count;
  }
  fclose(f);
  return launches;
}

Test(config, driver_choice_matches_h100_pytorch_launches) {
  cr_expect_eq(check_torch_launches("tests/survey/h100-torch-launches.csv", "H100 SXM"),
               500);
}

Test(config, driver_choice_matches_h200_pytorch_launches) {
  cr_expect_eq(check_torch_launches("tests/survey/h200-torch-launches.csv", "H200"), 500);
}

Test(config, readme_example_is_configured_100_kb) {
  occ_device d = board("H100 SXM");
  occ_kernel k = test_kernel(48, 4096, 0, 128, OCC_CARVEOUT_DEFAULT);
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(r.smem_config_bytes, 233472); /* what the API assumes */
  cr_expect_eq(r.launch_smem_config_bytes, 102400);
}

Test(config, unmeasured_architectures_keep_the_api_assumption) {
  occ_device d = board("A100");
  occ_kernel k = test_kernel(48, 4096, 0, 128, OCC_CARVEOUT_DEFAULT);
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  cr_expect_eq(d.launch_default_smem_cap_bytes, 0);
  cr_expect_eq(r.launch_smem_config_bytes, r.smem_config_bytes);
}

static void expect_field(const char *line, const char *name, long long ours,
                         long long theirs) {
  cr_expect_eq(ours, theirs, "%s: %s: occcalc %lld, ncu %lld", line, name, ours,
               theirs);
}

Test(config, ncu_values_match_nsight_compute) {
  occ_device d = board("H200");
  FILE *f = fopen("tests/survey/h200-config-ncu.csv", "r");
  cr_assert_not_null(f);
  char line[512];
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    int st, regs, block, dyn, carve, api;
    long executed, cfg, lreg, lsmem, lwarps, lblocks, lbar, nregs, pst, pdyn, pdrv;
    long grid, nblock;
    double pct, waves;
    if (sscanf(line,
               "%d,%d,%d,%d,%d,%d,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%lf,%lf,%ld,%ld",
               &st, &regs, &block, &dyn, &carve, &api, &executed, &cfg, &lreg,
               &lsmem, &lwarps, &lblocks, &lbar, &nregs, &pst, &pdyn, &pdrv, &pct,
               &waves, &grid, &nblock) != 21)
      continue;
    occ_kernel k = test_kernel(regs, st, dyn, block, carve);
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    occ_waves w;
    occ_waves_compute(&d, &r, grid, &w);
    occ_ncu n;
    cr_assert_eq(occ_ncu_values(&d, &k, &r, &w, &n), OCC_OK);
    expect_field(line, "config", n.shared_mem_config_size, cfg);
    expect_field(line, "limit_registers", n.occupancy_limit_registers, lreg);
    expect_field(line, "limit_shared_mem", n.occupancy_limit_shared_mem, lsmem);
    expect_field(line, "limit_warps", n.occupancy_limit_warps, lwarps);
    expect_field(line, "limit_blocks", n.occupancy_limit_blocks, lblocks);
    expect_field(line, "limit_barriers", n.occupancy_limit_barriers, lbar);
    expect_field(line, "registers", n.registers_per_thread, nregs);
    expect_field(line, "static", n.shared_mem_per_block_static, pst);
    expect_field(line, "dynamic", n.shared_mem_per_block_dynamic, pdyn);
    expect_field(line, "driver", n.shared_mem_per_block_driver, pdrv);
    cr_expect_float_eq(n.maximum_warps_per_active_cycle_pct, pct, 0.01, "%s", line);
    cr_expect(n.has_waves);
    cr_expect_float_eq(n.waves_per_multiprocessor, waves, 0.01, "%s", line);
    rows++;
  }
  fclose(f);
  cr_expect_eq(rows, 512);
}
