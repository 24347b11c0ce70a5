/* Unit tests of the database contract: the core's device ranges
 * (occ_device_check) field by field, the arithmetic at the corners of those
 * ranges, and the loader's refusals of malformed files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/occ.h"
#include "core/sweep.h"
#include "db/gpudb.h"

/* A device in the middle of every range: the H100's numbers. */
static occ_device h100(void) {
  occ_device d = {
      .name = "test", .cc_major = 9, .cc_minor = 0, .sm_count = 132,
      .warp_size = 32, .max_threads_per_block = 1024,
      .max_block_dim = {1024, 1024, 64}, .max_threads_per_sm = 2048,
      .max_blocks_per_sm = 32, .regs_per_sm = 65536, .regs_per_block = 65536,
      .max_regs_per_thread = 255, .reg_alloc_unit = 256, .sub_partitions = 4,
      .reg_block_warp_multiple = 4, .smem_per_sm_bytes = 233472,
      .smem_per_block_bytes = 49152, .smem_per_block_optin_bytes = 232448,
      .reserved_smem_per_block_bytes = 1024, .smem_alloc_unit_bytes = 128,
      .smem_config_count = 3, .smem_configs_bytes = {0, 65536, 233472},
      .barrier_factor = 2};
  return d;
}

static void expect_refused(const occ_device *d, const char *field) {
  occ_device_violation v;
  cr_expect_not(occ_device_check(d, &v), "%s accepted", field);
  cr_expect_str_eq(v.field, field);
  occ_kernel k;
  occ_kernel_init(&k);
  occ_result r;
  cr_expect_eq(occ_compute(d, &k, &r), OCC_ERR_INVALID_DEVICE, "%s", field);
}

Test(contract, h100_is_inside) {
  occ_device d = h100();
  cr_expect(occ_device_check(&d, NULL));
}

/* One past each bound, and the relations between fields. */
Test(contract, each_field_out_of_range_is_named) {
  occ_device d;
  d = h100(); d.warp_size = 24; expect_refused(&d, "warp_size");
  d = h100(); d.warp_size = 128; expect_refused(&d, "warp_size");
  d = h100(); d.max_threads_per_sm = 8193; expect_refused(&d, "max_threads_per_sm");
  d = h100(); d.max_threads_per_block = 2049; expect_refused(&d, "max_threads_per_block");
  d = h100(); d.max_threads_per_sm = 512; expect_refused(&d, "max_threads_per_block");
  d = h100(); d.warp_size = 1; d.max_threads_per_block = 257;
  expect_refused(&d, "max_threads_per_block");
  d = h100(); d.max_block_dim[2] = 1025; expect_refused(&d, "max_block_dim");
  d = h100(); d.max_blocks_per_sm = 65; expect_refused(&d, "max_blocks_per_sm");
  d = h100(); d.barrier_factor = 17; expect_refused(&d, "barrier_factor");
  d = h100(); d.sm_count = -1; expect_refused(&d, "sm_count");
  d = h100(); d.regs_per_sm = (1 << 20) + 1; expect_refused(&d, "regs_per_sm");
  d = h100(); d.regs_per_block = 65537; expect_refused(&d, "regs_per_block");
  d = h100(); d.max_regs_per_thread = 257; expect_refused(&d, "max_regs_per_thread");
  d = h100(); d.reg_alloc_unit = 8193; expect_refused(&d, "reg_alloc_unit");
  d = h100(); d.sub_partitions = 0; expect_refused(&d, "sub_partitions");
  d = h100(); d.reg_block_warp_multiple = 65; expect_refused(&d, "reg_block_warp_multiple");
  d = h100(); d.smem_per_sm_bytes = (1 << 20) + 1; expect_refused(&d, "smem_per_sm_bytes");
  d = h100(); d.reserved_smem_per_block_bytes = 233472;
  expect_refused(&d, "reserved_smem_per_block_bytes");
  d = h100(); d.smem_per_block_optin_bytes = 232449;
  expect_refused(&d, "smem_per_block_optin_bytes");
  d = h100(); d.smem_per_block_bytes = 232449; expect_refused(&d, "smem_per_block_bytes");
  d = h100(); d.smem_alloc_unit_bytes = 32; expect_refused(&d, "smem_alloc_unit_bytes");
  d = h100(); d.smem_alloc_unit_bytes = 65536; expect_refused(&d, "smem_alloc_unit_bytes");
  d = h100(); d.smem_alloc_unit_bytes = 192; expect_refused(&d, "smem_alloc_unit_bytes");
  d = h100(); d.smem_configs_bytes[1] = 0; expect_refused(&d, "smem_configs_bytes");
  d = h100(); d.smem_configs_bytes[2] = 233471; expect_refused(&d, "smem_configs_bytes");
  d = h100(); d.smem_config_count = 17; expect_refused(&d, "smem_config_count");
  d = h100(); d.cc_minor = 10; expect_refused(&d, "cc_minor");
}

/* The corner where the register products are largest: a 1-thread warp,
 * the largest kernel block and registers, the largest allocation unit.
 * The int fields hold the exact 64-bit products. */
Test(contract, register_products_fit_at_the_corner) {
  occ_device d = h100();
  d.warp_size = 1;
  d.max_threads_per_block = 256;
  d.max_block_dim[0] = d.max_block_dim[1] = d.max_block_dim[2] = 256;
  d.reg_alloc_unit = OCC_DEV_REG_ALLOC_UNIT_MAX;
  d.reg_block_warp_multiple = OCC_DEV_REG_WARP_MULTIPLE_MAX;
  d.regs_per_sm = d.regs_per_block = OCC_DEV_REGS_PER_SM_MAX;
  cr_assert(occ_device_check(&d, NULL));
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = OCC_KERNEL_THREADS_MAX;
  k.regs_per_thread = OCC_KERNEL_REGS_MAX;
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  int64_t per_warp = (OCC_KERNEL_REGS_MAX + OCC_DEV_REG_ALLOC_UNIT_MAX - 1) /
                     OCC_DEV_REG_ALLOC_UNIT_MAX * OCC_DEV_REG_ALLOC_UNIT_MAX;
  cr_expect_eq(r.regs_per_warp, per_warp);
  cr_expect_eq(r.regs_per_block, per_warp * OCC_KERNEL_THREADS_MAX);
  cr_expect_eq(r.regs_per_block_checked, per_warp * OCC_KERNEL_THREADS_MAX);
  cr_expect_eq(r.active_blocks_per_sm, 0);
}

/* The old heap over-read: an allocation unit over the opt-in plus the
 * reserve; the sweep engine now refuses the device before any table. */
Test(contract, sweep_refuses_a_unit_past_the_block) {
  occ_device d = h100();
  d.smem_alloc_unit_bytes = 262144;
  occ_sweep *s = (occ_sweep *)1;
  cr_expect_eq(occ_sweep_new(&d, OCC_CARVEOUT_DEFAULT, 1, &s), OCC_ERR_INVALID_DEVICE);
  cr_expect_null(s);
}

static const char *const minimal =
    "{\"schema\": 1, \"architectures\": [{\"cc\": \"9.0\", "
    "\"warp_size\": 32, \"max_threads_per_block\": 1024, "
    "\"max_block_dim\": [1024, 1024, 64], \"max_threads_per_sm\": 2048, "
    "\"max_blocks_per_sm\": 32, \"regs_per_sm\": 65536, "
    "\"regs_per_block\": 65536, \"max_regs_per_thread\": 255, "
    "\"reg_alloc_unit\": 256, \"sub_partitions\": 4, "
    "\"reg_block_warp_multiple\": 4, \"smem_per_sm_bytes\": 233472, "
    "\"smem_per_block_bytes\": 49152, \"smem_per_block_optin_bytes\": 232448, "
    "\"reserved_smem_per_block_bytes\": 1024, \"smem_alloc_unit_bytes\": 128, "
    "\"smem_configs_bytes\": [0, 233472], \"barrier_factor\": 2, "
    "\"source\": \"t\"}], \"gpus\": [{\"name\": \"G\", \"cc\": \"9.0\", "
    "\"sm_count\": SMS, \"source\": \"t\"}]}";

/* minimal with "SMS" replaced by sms, then tail appended. */
static occ_gpudb *parse_variant(const char *sms, const char *tail, char *err,
                                size_t size) {
  char text[4096];
  const char *at = strstr(minimal, "SMS");
  snprintf(text, sizeof text, "%.*s%s%s%s", (int)(at - minimal), minimal, sms,
           at + 3, tail);
  return occ_gpudb_parse(text, strlen(text), "t.json", err, size);
}

Test(loader, minimal_is_accepted) {
  char err[512] = "";
  occ_gpudb *db = parse_variant("132", "\n", err, sizeof err);
  cr_assert_not_null(db, "%s", err);
  cr_expect_str_eq(occ_gpudb_default_gpu(db), "G");
  occ_gpudb_free(db);
}

static void expect_refusal(const char *sms, const char *tail, const char *why) {
  char err[512] = "";
  occ_gpudb *db = parse_variant(sms, tail, err, sizeof err);
  cr_expect_null(db, "sm_count %s, tail '%s' accepted", sms, tail);
  occ_gpudb_free(db);
  cr_expect(strstr(err, why) != NULL, "'%s' does not say '%s'", err, why);
  cr_expect(strchr(err, '\n') == NULL, "'%s' is not one line", err);
}

Test(loader, malformed_numbers_and_documents_are_refused) {
  const char *integers = "numbers must be integers";
  expect_refusal("0132", "", integers);
  expect_refusal("1.32e2", "", integers);
  expect_refusal("132.0", "", integers);
  expect_refusal("1e3", "", integers);
  expect_refusal("-0132", "", integers);
  expect_refusal("132", " x", "text after the JSON document");
  expect_refusal("132", "{}", "text after the JSON document");
  expect_refusal("132, \"sm_count\": 1", "", "\"sm_count\" is given twice");
  expect_refusal("132, \"warp_szie\": 1", "", "unknown key \"warp_szie\"");
  expect_refusal("0", "", "\"sm_count\" must be 1 to 100000");
  expect_refusal("1000000000000000000000", "", "\"sm_count\"");
  expect_refusal("\"132\"", "", "\"sm_count\" must be an integer");
}

Test(loader, file_limits) {
  char err[512];
  cr_expect_null(occ_gpudb_parse("{}", (1 << 20) + 1, "big.json", err, sizeof err));
  cr_expect(strstr(err, "larger than") != NULL, "%s", err);
  cr_expect_null(occ_gpudb_parse("{\"schema\": 1}\0", 15, "n.json", err, sizeof err));
  cr_expect(strstr(err, "NUL byte") != NULL, "%s", err);
}
