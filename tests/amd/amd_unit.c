/* amd_unit.c - the AMD calculator (src/core/amd.c) and the database's AMD
 * entries: HIP's rule against a table written by hand from clr's formula,
 * the worksheet's steps, bad input, look-ups and the loader's refusals.
 * LLVM's rule is checked against llc itself (tests/amd/amd_llvm_diff.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/amd.h"
#include "db/gpudb.h"
#include "db/gpudb_tables.h"

static occ_gpudb *db;

static void load(void) {
  char err[256];
  db = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert(db, "%s", err);
}

static void unload(void) { occ_gpudb_free(db); }

static occ_amd_arch arch(const char *gfx) {
  occ_amd_arch a;
  char near[128];
  cr_assert_eq(occ_gpudb_find_amd_arch(db, gfx, &a, near, sizeof near), 0, "%s", gfx);
  return a;
}

/* HIP's rule, each row worked by hand from ROCm clr's
 * hipamd/src/hip_platform.cpp, hip_impl::ihipOccupancyMaxActiveBlocks-
 * PerMultiprocessor (ROCm/clr 0267308; the function's body from
 * "size_t MaxWavesPerSimd;" to "*maxBlocksPerCU = std::min(*maxBlocksPerCU,
 * lds_occupancy_wgs);"):
 *   MaxWavesPerSimd = 8 (gfx9) or 16; VgprWaves = vgprsPerSimd /
 *   alignUp(VGPRs, granule), both halved for wave64 on gfx10+, only when
 *   usedSGPRs_ > 0; SgprWaves = sgprsPerSimd / alignUp(SGPRs, 16) (800 on
 *   gfx9, unlimited on gfx10+); threads = simdPerCU (4 on gfx9, 4 in WGP
 *   mode, 2 in CU mode) x min(Max, VgprWaves, SgprWaves) x wave size;
 *   blocks = threads / alignUp(block, wave size), at most localMemSize_ /
 *   LDS. vgprsPerSimd and the granule are comgr's TotalNumVGPRs and
 *   VGPRAllocGranule (gfx90a/942/950: 512, 8; gfx908: 256, 4; gfx1030:
 *   1024, 16; gfx11/12: 1536, 24). */
typedef struct hip_row {
  const char *gfx;
  int wave;
  bool cu_mode;
  int block, vgprs, agprs, sgprs, lds;
  int blocks; /* by hand */
  const char *work;
} hip_row;

static const hip_row hip_rows[] = {
    {"gfx90a", 64, false, 256, 128, 0, 32, 0, 4, "V 512/128=4, S 800/32=25, 4x4x64=1024, /256"},
    {"gfx90a", 64, false, 256, 44, 0, 55, 1024, 8, "V 512/48=10, S 800/64=12, 4x8x64=2048, /256=8, LDS 64"},
    {"gfx908", 64, false, 256, 44, 0, 55, 1024, 5, "V 256/44=5, S 12, 4x5x64=1280, /256=5"},
    {"gfx908", 64, false, 64, 16, 0, 16, 0, 32, "V 256/16=16, S 800/16=50, cap 8, 2048/64"},
    {"gfx908", 64, false, 64, 16, 100, 16, 0, 8, "separate AGPR file: total max(16, 100)=100, V 256/100=2, 4x2x64=512/64"},
    {"gfx1100", 32, false, 256, 44, 0, 51, 1024, 8, "V 1536/48=32, S unlimited, 4x16x32=2048, /256"},
    {"gfx1100", 64, false, 100, 100, 0, 10, 0, 14, "V 768/108=7, 4x7x64=1792, /128"},
    {"gfx1030", 32, false, 1024, 64, 0, 20, 40000, 1, "V 1024/64=16, 4x16x32=2048/1024=2, LDS 65536/40000=1"},
    {"gfx90a", 64, false, 64, 256, 0, 0, 0, 32, "no SGPRs: VGPR limit skipped, 4x8x64/64"},
    {"gfx90a", 64, false, 64, 256, 0, 1, 0, 8, "V 512/256=2, 4x2x64/64"},
    {"gfx942", 64, false, 65, 32, 0, 32, 0, 16, "V 512/32=16, S 25, 4x8x64=2048/128"},
    {"gfx1100", 32, true, 128, 24, 0, 10, 0, 8, "CU mode: 2x16x32=1024/128"},
    {"gfx950", 64, false, 64, 8, 0, 8, 81920, 2, "LDS 163840/81920"},
    {"gfx90a", 64, false, 1024, 40, 24, 40, 0, 2, "unified: total 40+24=64, V 512/64=8, S 800/48=16, 4x8x64=2048/1024"},
};

TestSuite(amd, .init = load, .fini = unload);

Test(amd, hip_rule_matches_clr_formula_by_hand) {
  for (size_t i = 0; i < sizeof hip_rows / sizeof hip_rows[0]; i++) {
    const hip_row *r = &hip_rows[i];
    occ_amd_arch a = arch(r->gfx);
    occ_amd_kernel k = {.wave_size = r->wave, .cu_mode = r->cu_mode,
                        .threads_per_block = r->block, .vgprs = r->vgprs,
                        .agprs = r->agprs, .sgprs = r->sgprs, .lds_bytes = r->lds};
    occ_amd_result res;
    cr_assert_eq(occ_amd_compute(&a, &k, &res), OCC_AMD_OK, "row %zu", i);
    cr_expect_eq(res.active_blocks_per_cu, r->blocks, "row %zu (%s: %s): %d", i, r->gfx,
                 r->work, res.active_blocks_per_cu);
  }
}

Test(amd, worksheet_steps) {
  occ_amd_arch a = arch("gfx90a");
  occ_amd_kernel k = {.threads_per_block = 65, .vgprs = 41, .agprs = 3, .sgprs = 20,
                      .lds_bytes = 5000};
  occ_amd_result r;
  cr_assert_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_OK);
  cr_expect_eq(r.wave_size, 64);
  cr_expect_eq(r.waves_per_block, 2);
  cr_expect_eq(r.inactive_lanes, 63);
  cr_expect_eq(r.vgprs_total, 47); /* roundup(41, 4) + 3 */
  cr_expect_eq(r.vgprs_allocated, 48);
  cr_expect_eq(r.waves_by_vgprs, 8); /* 512 / 48 = 10, at most 8 */
  cr_expect_eq(r.waves_by_agprs, -1);
  cr_expect_eq(r.lds_blocks, 13);   /* 65536 / 5000 */
  cr_expect_eq(r.waves_by_lds, 7);  /* ceil(13 x 2 / 4) */
  cr_expect_eq(r.workgroup_slots, 16);
  cr_expect_eq(r.waves_per_simd, 7);
  cr_expect_eq(r.limiters, OCC_AMD_LIMITER_LDS);
  cr_expect_float_eq(r.occupancy, 7.0 / 8, 1e-12);
  /* HIP: min(8, 512/48=10, 800/32=25) = 8; 4x8x64 = 2048 / 128 = 16;
   * LDS 13. LLVM: 7 x 4 / 2 = 14 blocks: the rules differ, LLVM rounding
   * the LDS-bound waves up per SIMD. */
  cr_expect_eq(r.active_blocks_per_cu, 13);
  cr_expect_eq(r.llvm_blocks_per_cu, 14);
  cr_expect(r.rules_differ);
  cr_expect_eq(r.reasons, OCC_AMD_REASON_ROUNDING);
}

/* Dynamic LDS: HIP's rule counts it, the compiler's figure cannot. */
Test(amd, dynamic_lds_hip_only) {
  occ_amd_arch a = arch("gfx90a");
  occ_amd_kernel k = {.threads_per_block = 256, .vgprs = 32, .sgprs = 32,
                      .lds_dynamic_bytes = 32768};
  occ_amd_result r;
  cr_assert_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_OK);
  cr_expect_eq(r.waves_per_simd, 8);
  cr_expect_eq(r.hip_blocks_by_lds, 2);
  cr_expect_eq(r.active_blocks_per_cu, 2);
  cr_expect_eq(r.llvm_blocks_per_cu, 8);
  cr_expect_eq(r.reasons, OCC_AMD_REASON_LDS);
  k.lds_bytes = 32769; /* with the dynamic part, over 64 KiB */
  cr_expect_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_ERR_LDS);
}

Test(amd, gfx908_max_waves_differ) {
  occ_amd_arch a = arch("gfx908");
  occ_amd_kernel k = {.threads_per_block = 64, .vgprs = 16, .sgprs = 16};
  occ_amd_result r;
  cr_assert_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_OK);
  cr_expect_eq(r.waves_per_simd, 10);
  cr_expect_eq(r.limiters, OCC_AMD_LIMITER_WAVE_SLOTS);
  cr_expect_eq(r.active_blocks_per_cu, 32);
  cr_expect_eq(r.llvm_blocks_per_cu, 40);
  cr_expect(r.reasons & OCC_AMD_REASON_MAX_WAVES);
}

Test(amd, workgroup_slots_limit_llvm_only) {
  /* gfx1100 in CU mode (2 SIMDs, 16 waves each), 96 threads = 3 wave32
   * waves a group: LLVM allows min(32 / 3, 16 barriers) = 10 groups, so
   * ceil(10 x 3 / 2) = 15 waves per SIMD. HIP counts 2 x 16 x 32 = 1024
   * threads / 96 = 10 blocks: the same 10 blocks by another road. */
  occ_amd_arch a = arch("gfx1100");
  occ_amd_kernel k = {.wave_size = 32, .cu_mode = true, .threads_per_block = 96,
                      .vgprs = 8, .sgprs = 8};
  occ_amd_result r;
  cr_assert_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_OK);
  cr_expect_eq(r.simds, 2);
  cr_expect_eq(r.workgroup_slots, 10); /* min(16 x 2 / 3, 16) */
  cr_expect_eq(r.waves_by_workgroups, 15); /* ceil(10 x 3 / 2) */
  cr_expect_eq(r.waves_per_simd, 15);
  cr_expect_eq(r.limiters, OCC_AMD_LIMITER_WORKGROUPS);
  cr_expect_eq(r.active_blocks_per_cu, 10); /* 2 x 16 x 32 = 1024 / 96 */
  cr_expect_eq(r.llvm_blocks_per_cu, 10);
  cr_expect_not(r.rules_differ);
}

Test(amd, sgpr_thresholds_gfx9) {
  occ_amd_arch a = arch("gfx908");
  const int sgprs[] = {80, 81, 88, 89, 100, 101, 108};
  const int waves[] = {10, 9, 9, 8, 8, 7, 7};
  for (size_t i = 0; i < sizeof sgprs / sizeof sgprs[0]; i++) {
    occ_amd_kernel k = {.threads_per_block = 64, .vgprs = 4, .sgprs = sgprs[i]};
    occ_amd_result r;
    cr_assert_eq(occ_amd_compute(&a, &k, &r), OCC_AMD_OK);
    cr_expect_eq(r.waves_by_sgprs, waves[i], "%d SGPRs", sgprs[i]);
  }
  /* Unknown SGPRs: no SGPR limit by either rule, but HIP's VGPR limit
   * applies (a real kernel's count is never 0). */
  occ_amd_kernel unknown = {.threads_per_block = 64, .vgprs = 128,
                            .sgprs = OCC_AMD_SGPRS_UNKNOWN};
  occ_amd_result u;
  cr_assert_eq(occ_amd_compute(&a, &unknown, &u), OCC_AMD_OK);
  cr_expect_eq(u.waves_by_sgprs, -1);
  cr_expect_eq(u.hip_waves_by_sgprs, -1);
  cr_expect_eq(u.hip_waves_by_vgprs, 2); /* 256 / 128 */
  cr_expect_eq(u.waves_per_simd, 2);
  occ_amd_arch rdna = arch("gfx1201");
  occ_amd_kernel k = {.threads_per_block = 64, .vgprs = 4, .sgprs = 100};
  occ_amd_result r;
  cr_assert_eq(occ_amd_compute(&rdna, &k, &r), OCC_AMD_OK);
  cr_expect_eq(r.waves_by_sgprs, -1);
  cr_expect_eq(r.hip_waves_by_sgprs, -1);
}

Test(amd, bad_input) {
  occ_amd_arch cdna = arch("gfx90a"), rdna = arch("gfx1100");
  occ_amd_result r;
  const struct {
    const occ_amd_arch *a;
    occ_amd_kernel k;
    occ_amd_status want;
  } cases[] = {
      {&rdna, {.threads_per_block = 64, .vgprs = 257}, OCC_AMD_ERR_VGPRS},
      {&cdna, {.threads_per_block = 64, .vgprs = 257}, OCC_AMD_ERR_VGPRS},
      {&cdna, {.threads_per_block = 64, .vgprs = -1}, OCC_AMD_ERR_VGPRS},
      {&cdna, {.threads_per_block = 64, .agprs = 257}, OCC_AMD_ERR_AGPRS},
      {&rdna, {.threads_per_block = 64, .agprs = 1}, OCC_AMD_ERR_AGPRS},
      {&cdna, {.wave_size = 32, .threads_per_block = 64}, OCC_AMD_ERR_WAVE_SIZE},
      {&rdna, {.wave_size = 48, .threads_per_block = 64}, OCC_AMD_ERR_WAVE_SIZE},
      {&cdna, {.threads_per_block = 64, .lds_bytes = 65537}, OCC_AMD_ERR_LDS},
      {&rdna, {.threads_per_block = 64, .lds_bytes = -1}, OCC_AMD_ERR_LDS},
      {&cdna, {.threads_per_block = 1025}, OCC_AMD_ERR_BLOCK},
      {&cdna, {.threads_per_block = 0}, OCC_AMD_ERR_BLOCK},
      {&cdna, {.threads_per_block = 64, .max_threads_per_block = 2048}, OCC_AMD_ERR_BLOCK},
      {&cdna, {.threads_per_block = 64, .sgprs = 109}, OCC_AMD_ERR_SGPRS},
      {&cdna, {.threads_per_block = 64, .sgprs = -2}, OCC_AMD_ERR_SGPRS},
      {&cdna, {.cu_mode = true, .threads_per_block = 64}, OCC_AMD_ERR_CU_MODE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    r.waves_per_simd = 12345;
    cr_expect_eq(occ_amd_compute(cases[i].a, &cases[i].k, &r), cases[i].want, "case %zu", i);
    cr_expect_eq(r.waves_per_simd, 12345, "case %zu: result untouched", i);
    cr_expect(strlen(occ_amd_strerror(cases[i].want)) > 10);
  }
  /* The limits themselves are accepted. */
  occ_amd_kernel edge = {.threads_per_block = 1024, .vgprs = 256, .agprs = 256, .sgprs = 108,
                         .lds_bytes = 65536};
  cr_expect_eq(occ_amd_compute(&cdna, &edge, &r), OCC_AMD_OK);
  cr_expect_eq(r.vgprs_total, 512);
  cr_expect_eq(r.waves_per_simd, 1);
}

Test(amd, database_entries) {
  cr_expect_eq(occ_gpudb_amd_arch_count(db), 9);
  cr_expect_eq(occ_gpudb_amd_gpu_count(db), 10);
  occ_amd_gpu g;
  char near[256];
  cr_assert_eq(occ_gpudb_find_amd_gpu(db, "mi300x", &g, near, sizeof near), 0);
  cr_expect_str_eq(g.arch.name, "gfx942");
  cr_expect_eq(g.cu_count, 304);
  cr_assert_eq(occ_gpudb_find_amd_gpu(db, "AMD Instinct MI250X", &g, near, sizeof near), 0);
  cr_expect_eq(g.cu_count, 110);
  cr_expect_eq(g.devices_per_board, 2);
  cr_assert_eq(occ_gpudb_find_amd_gpu(db, "Radeon RX 7900 XTX", &g, near, sizeof near), 0);
  cr_expect_str_eq(g.arch.name, "gfx1100");
  cr_assert_eq(occ_gpudb_find_amd_gpu(db, "w7900", &g, near, sizeof near), 0);
  cr_expect_eq(occ_gpudb_find_amd_gpu(db, "mi300", &g, near, sizeof near), -1);
  cr_expect(strstr(near, "MI300X") != NULL, "%s", near);
  occ_amd_arch a;
  cr_expect_eq(occ_gpudb_find_amd_arch(db, "GFX90A:xnack-", &a, near, sizeof near), 0);
  cr_expect_eq(occ_gpudb_find_amd_arch(db, "gfx1102", &a, near, sizeof near), -1);
  cr_expect(strstr(near, "gfx1100") || strstr(near, "gfx1101"), "%s", near);
  /* AMD boards stay out of the NVIDIA look-up and listing. */
  occ_device d;
  cr_expect_eq(occ_gpudb_find_gpu(db, "mi300x", &d, near, sizeof near), -1);
  for (size_t i = 0; i < occ_gpudb_gpu_count(db); i++) {
    occ_gpudb_gpu_at(db, i, &d, NULL, NULL);
    cr_expect(d.cc_major > 0);
  }
}

/* The compiled-in tables hold what the loader reads from data/gpus.json. */
Test(amd, builtin_equals_parsed) {
  char err[256];
  occ_gpudb *parsed = occ_gpudb_load_file("data/gpus.json", err, sizeof err);
  cr_assert(parsed, "%s", err);
  cr_assert_eq(occ_gpudb_amd_arch_count(parsed), occ_gpudb_amd_arch_count(db));
  for (size_t i = 0; i < occ_gpudb_amd_arch_count(db); i++) {
    occ_amd_arch x, y;
    const char *fx, *fy, *sx, *sy;
    occ_gpudb_amd_arch_at(db, i, &x, &fx, &sx);
    occ_gpudb_amd_arch_at(parsed, i, &y, &fy, &sy);
    cr_expect_eq(memcmp(&x, &y, sizeof x), 0, "%s", x.name);
    cr_expect_str_eq(fx, fy);
    cr_expect_str_eq(sx, sy);
  }
  for (size_t i = 0; i < occ_gpudb_amd_gpu_count(db); i++) {
    occ_amd_gpu x, y;
    occ_gpudb_amd_gpu_at(db, i, &x, NULL, NULL);
    occ_gpudb_amd_gpu_at(parsed, i, &y, NULL, NULL);
    cr_expect_eq(memcmp(&x, &y, sizeof x), 0, "%s", x.name);
  }
  occ_gpudb_free(parsed);
}

/* A minimal database around one AMD entry; returns the loader's message
 * ("" when it loads). */
static const char *try_db(const char *amd_arch_extra, const char *amd_gpu,
                          bool amd_first) {
  static char err[512];
  static char text[8192];
  const char *nv_arch =
      "{\"cc\": \"9.0\", \"warp_size\": 32, \"max_threads_per_block\": 1024, "
      "\"max_block_dim\": [1024, 1024, 64], \"max_threads_per_sm\": 2048, "
      "\"max_blocks_per_sm\": 32, \"regs_per_sm\": 65536, \"regs_per_block\": 65536, "
      "\"max_regs_per_thread\": 255, \"reg_alloc_unit\": 256, \"sub_partitions\": 4, "
      "\"reg_block_warp_multiple\": 4, \"smem_per_sm_bytes\": 233472, "
      "\"smem_per_block_bytes\": 49152, \"smem_per_block_optin_bytes\": 232448, "
      "\"reserved_smem_per_block_bytes\": 1024, \"smem_alloc_unit_bytes\": 128, "
      "\"smem_configs_bytes\": [], \"barrier_factor\": 2, \"source\": \"t\"}";
  char amd_arch[2048];
  snprintf(amd_arch, sizeof amd_arch,
           "{\"gfx\": \"gfx942\", \"gfx_major\": 9, \"wave_sizes\": [64], "
           "\"default_wave_size\": 64, \"simds_per_cu\": 4, \"wgp_mode\": false, "
           "\"max_waves_per_simd\": 8, \"max_threads_per_block\": 1024, "
           "\"vgprs_per_simd_wave64\": 512, \"vgpr_granule_wave64\": 8, "
           "\"vgprs_per_simd_wave32\": 0, \"vgpr_granule_wave32\": 0, "
           "\"addressable_vgprs\": 256, \"addressable_agprs\": 256, "
           "\"unified_vgpr_file\": true, \"unified_agpr_align\": 4, "
           "\"addressable_sgprs\": 102, \"sgpr_waves\": [[80, 10], [88, 9], [100, 8], [108, 7]], "
           "\"lds_per_cu_bytes\": 65536, \"lds_per_wgp_bytes\": 0, "
           "\"lds_per_block_bytes\": 65536, \"barriers_per_cu\": 16, \"barriers_per_wgp\": 0, "
           "\"hip_max_waves_per_simd\": 8, \"hip_vgprs_per_simd\": 512, "
           "\"hip_vgpr_granule\": 8, \"hip_sgprs_per_simd\": 800, \"hip_sgpr_granule\": 16, "
           "\"hip_lds_per_cu_bytes\": 65536, \"source\": \"t\"%s}",
           amd_arch_extra);
  const char *nv_gpu = "{\"name\": \"Test GPU\", \"cc\": \"9.0\", \"sm_count\": 1, "
                       "\"aliases\": [\"tgpu\"], \"source\": \"t\"}";
  snprintf(text, sizeof text,
           "{\"schema\": 1, \"architectures\": [%s, %s], \"gpus\": [%s, %s]}",
           amd_first ? amd_arch : nv_arch, amd_first ? nv_arch : amd_arch,
           nv_gpu, amd_gpu);
  occ_gpudb *t = occ_gpudb_parse(text, strlen(text), "t.json", err, sizeof err);
  if (t) err[0] = '\0';
  occ_gpudb_free(t);
  return err;
}

#define GOOD_GPU "{\"name\": \"AMD Instinct MI300X\", \"gfx\": \"gfx942\", \"cu_count\": 304, \"source\": \"t\"}"

Test(amd, loader_refuses_bad_entries) {
  cr_expect_str_eq(try_db("", GOOD_GPU, false), "");
  cr_expect(strstr(try_db("", GOOD_GPU, true), "must follow the NVIDIA ones"));
  cr_expect(strstr(try_db(", \"colour\": 1", GOOD_GPU, false), "unknown key \"colour\""));
  cr_expect(strstr(try_db(", \"gfx_major\": 9", GOOD_GPU, false), "given twice"));
  cr_expect(strstr(try_db("", "{\"name\": \"X\", \"gfx\": \"gfx1100\", \"cu_count\": 1, \"source\": \"t\"}", false),
                   "no architecture entry for gfx1100"));
  cr_expect(strstr(try_db("", "{\"name\": \"X\", \"gfx\": \"gfx942\", \"cu_count\": 0, \"source\": \"t\"}", false),
                   "\"cu_count\" must be"));
  cr_expect(strstr(try_db("", "{\"name\": \"tgpu\", \"gfx\": \"gfx942\", \"cu_count\": 4, \"source\": \"t\"}", false),
                   "also names gpus[0] (Test GPU)"));
}

Test(amd, loader_checks_ranges) {
  /* A default wave size it does not run, LDS per block above LDS per CU,
   * SGPR steps not rising: occ_amd_arch_check, which the loader calls. */
  occ_amd_arch a = arch("gfx942");
  const char *why = NULL;
  a.default_wave_size = 32;
  cr_expect_eq(occ_amd_arch_check(&a, &why), -1);
  cr_expect(why && strstr(why, "default_wave_size"));
  a = arch("gfx942");
  a.lds_per_block_bytes = a.lds_per_cu_bytes + 1;
  cr_expect_eq(occ_amd_arch_check(&a, &why), -1);
  a = arch("gfx942");
  a.sgpr_waves_at[1] = 10; /* not rising */
  cr_expect_eq(occ_amd_arch_check(&a, &why), -1);
  cr_expect(strstr(why, "sgpr_waves"));
}
