/* Unit tests of the device selection (src/db/select.h): occ_gpudb_select
 * loads, resolves and frees in one call, and gives what occ_gpudb_resolve
 * gives on the loaded database. Each outcome is checked against the
 * database's own lookups (occ_gpudb_find_*), not against copied numbers.
 * Run from the repository root, as `make test-unit` does. */
#include <criterion/criterion.h>
#include <string.h>

#include "db/select.h"
#include "db_fixture.h"

TestSuite(db_select, .init = load_db, .fini = free_db);

/* occ_gpudb_select on q, checked against occ_gpudb_resolve on the loaded
 * built-in database (q->data_path must be NULL). */
static occ_target select_builtin(const occ_target_query *q) {
  occ_target selected, resolved;
  occ_target_status status = occ_gpudb_select(q, &selected);
  cr_assert_eq(status, selected.status);
  cr_assert_eq(occ_gpudb_resolve(db, q, &resolved), status);
  cr_expect_eq(selected.by, resolved.by);
  cr_expect_eq(selected.amd, resolved.amd);
  cr_expect_eq(selected.amd_board, resolved.amd_board);
  cr_expect_str_eq(selected.device.name, resolved.device.name);
  cr_expect_str_eq(selected.amd_gpu.name, resolved.amd_gpu.name);
  cr_expect_str_eq(selected.near, resolved.near);
  cr_expect_str_eq(selected.amd_near, resolved.amd_near);
  return selected;
}

static void expect_nvidia(const occ_target *t, const occ_device *want,
                          occ_target_by by) {
  cr_assert_eq(t->status, OCC_TARGET_FOUND, "status %d", t->status);
  cr_expect_eq(t->by, by);
  cr_expect_not(t->amd);
  cr_expect_str_eq(t->device.name, want->name);
  cr_expect_eq(t->device.cc_major, want->cc_major);
  cr_expect_eq(t->device.cc_minor, want->cc_minor);
  cr_expect_eq(t->device.sm_count, want->sm_count);
  cr_expect_eq(t->device.regs_per_sm, want->regs_per_sm);
}

static occ_device capability(int major, int minor) {
  occ_device d;
  char near[128];
  cr_assert_eq(occ_gpudb_find_cc(db, major, minor, &d, near, sizeof near), 0);
  return d;
}

Test(db_select, gpu_by_name) {
  occ_target_query q = {.gpu = "h100", .env_gpu = "gtx970"};
  occ_target t = select_builtin(&q);
  occ_device want = board("h100");
  expect_nvidia(&t, &want, OCC_TARGET_BY_GPU);
  cr_expect_eq(t.name, q.gpu);
}

Test(db_select, arch_by_name_and_by_capability) {
  occ_target_query sm = {.arch = "sm_90a", .env_gpu = "gtx970"};
  occ_target t = select_builtin(&sm);
  occ_device want = capability(9, 0);
  expect_nvidia(&t, &want, OCC_TARGET_BY_ARCH);
  cr_expect_eq(t.major, 9);
  cr_expect_eq(t.minor, 0);
  occ_target_query cc = {.arch = "8.6"};
  t = select_builtin(&cc);
  want = capability(8, 6);
  expect_nvidia(&t, &want, OCC_TARGET_BY_ARCH);
}

Test(db_select, environment_when_nothing_named) {
  occ_target_query q = {.env_gpu = "gtx970"};
  occ_target t = select_builtin(&q);
  occ_device want = board("gtx970");
  expect_nvidia(&t, &want, OCC_TARGET_BY_ENV);
  cr_expect_eq(t.name, q.env_gpu);
}

Test(db_select, default_board) {
  occ_target_query unset = {0}, empty = {.env_gpu = ""};
  const char *name = occ_gpudb_default_gpu(db);
  occ_device want = board(name);
  occ_target t = select_builtin(&unset);
  expect_nvidia(&t, &want, OCC_TARGET_BY_DEFAULT);
  cr_expect_null(t.name);
  cr_expect_str_eq(t.default_gpu, name);
  cr_expect_str_eq(occ_target_name(&t), name);
  t = select_builtin(&empty);
  expect_nvidia(&t, &want, OCC_TARGET_BY_DEFAULT);
}

Test(db_select, amd_architecture) {
  occ_amd_arch want;
  char near[256];
  cr_assert_eq(occ_gpudb_find_amd_arch(db, "gfx942", &want, near, sizeof near), 0);
  occ_target_query q = {.arch = "GFX942:xnack-", .env_gpu = "h100"};
  occ_target t = select_builtin(&q);
  cr_assert_eq(t.status, OCC_TARGET_FOUND);
  cr_expect_eq(t.by, OCC_TARGET_BY_ARCH);
  cr_expect(t.amd);
  cr_expect_not(t.amd_board);
  cr_expect_str_eq(t.amd_gpu.arch.name, want.name);
  cr_expect_str_eq(t.amd_gpu.name, want.name);
  cr_expect_eq(t.amd_gpu.cu_count, -1);
  cr_expect_eq(t.amd_gpu.arch.lds_per_cu_bytes, want.lds_per_cu_bytes);
}

Test(db_select, amd_board_after_nvidia_boards) {
  occ_amd_gpu want;
  char near[256];
  cr_assert_eq(occ_gpudb_find_amd_gpu(db, "mi300x", &want, near, sizeof near), 0);
  occ_target_query by_gpu = {.gpu = "mi300x"}, by_env = {.env_gpu = "mi300x"};
  occ_target t = select_builtin(&by_gpu);
  cr_assert_eq(t.status, OCC_TARGET_FOUND);
  cr_expect_eq(t.by, OCC_TARGET_BY_GPU);
  cr_expect(t.amd);
  cr_expect(t.amd_board);
  cr_expect_str_eq(t.amd_gpu.name, want.name);
  cr_expect_str_eq(t.amd_gpu.arch.name, want.arch.name);
  cr_expect_eq(t.amd_gpu.cu_count, want.cu_count);
  cr_expect_gt(t.amd_gpu.cu_count, 0);
  /* Not an NVIDIA board: the NVIDIA lookup's nearest names are kept. */
  cr_expect_neq(t.near[0], '\0');
  t = select_builtin(&by_env);
  cr_assert_eq(t.status, OCC_TARGET_FOUND);
  cr_expect_eq(t.by, OCC_TARGET_BY_ENV);
  cr_expect(t.amd_board);
}

Test(db_select, unknown_gpu_names_the_nearest_of_each_vendor) {
  occ_target_query q = {.gpu = "nosuch"};
  occ_target t = select_builtin(&q);
  cr_assert_eq(t.status, OCC_TARGET_UNKNOWN_GPU);
  cr_expect_eq(t.by, OCC_TARGET_BY_GPU);
  cr_expect_not(t.amd);
  cr_expect_eq(t.name, q.gpu);
  occ_device d;
  occ_amd_gpu g;
  char nv_near[256], amd_near[256];
  cr_assert_neq(occ_gpudb_find_gpu(db, "nosuch", &d, nv_near, sizeof nv_near), 0);
  cr_assert_neq(occ_gpudb_find_amd_gpu(db, "nosuch", &g, amd_near, sizeof amd_near), 0);
  cr_expect_str_eq(t.near, nv_near);
  cr_expect_str_eq(t.amd_near, amd_near);
  cr_expect_neq(t.near[0], '\0');
  cr_expect_neq(t.amd_near[0], '\0');
  occ_target_query env = {.env_gpu = "nosuch"};
  t = select_builtin(&env);
  cr_expect_eq(t.status, OCC_TARGET_UNKNOWN_GPU);
  cr_expect_eq(t.by, OCC_TARGET_BY_ENV);
}

Test(db_select, unknown_amd_architecture) {
  occ_target_query q = {.arch = "gfx999"};
  occ_target t = select_builtin(&q);
  cr_assert_eq(t.status, OCC_TARGET_UNKNOWN_AMD_ARCH);
  cr_expect_eq(t.name, q.arch);
  cr_expect_not_null(strstr(t.amd_near, "gfx"), "%s", t.amd_near);
}

Test(db_select, arch_text_that_is_no_capability) {
  const char *bad[] = {"sm_9x", "90", "9.0a", "sm_200", "ampere"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    occ_target_query q = {.arch = bad[i], .env_gpu = "h100"};
    occ_target t = select_builtin(&q);
    cr_expect_eq(t.status, OCC_TARGET_BAD_ARCH, "%s: status %d", bad[i], t.status);
    cr_expect_eq(t.by, OCC_TARGET_BY_ARCH, "%s", bad[i]);
    cr_expect_eq(t.name, q.arch);
  }
}

Test(db_select, unknown_capability_with_the_nearest) {
  occ_target_query q = {.arch = "sm_99"};
  occ_target t = select_builtin(&q);
  cr_assert_eq(t.status, OCC_TARGET_UNKNOWN_CC);
  cr_expect_eq(t.major, 9);
  cr_expect_eq(t.minor, 9);
  occ_device d;
  char near[128];
  cr_assert_neq(occ_gpudb_find_cc(db, 9, 9, &d, near, sizeof near), 0);
  cr_expect_str_eq(t.near, near);
  cr_expect_not_null(strstr(t.near, "9.0"), "%s", t.near);
}

Test(db_select, data_file_that_does_not_load) {
  const char *files[] = {"/nonexistent/gpus.json", "tests/db/data/malformed.json",
                         "tests/db/hostile/default-unknown.json"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    occ_target_query q = {.data_path = files[i], .gpu = "h100"};
    occ_target t;
    cr_expect_eq(occ_gpudb_select(&q, &t), OCC_TARGET_LOAD_FAILED, "%s", files[i]);
    char why[OCC_TARGET_WHY_MAX];
    occ_gpudb *loaded = occ_gpudb_load_file(files[i], why, sizeof why);
    cr_expect_null(loaded, "%s", files[i]);
    occ_gpudb_free(loaded);
    cr_expect_str_eq(t.why, why);
    cr_expect_not_null(strstr(t.why, files[i]), "%s", t.why);
    cr_expect_not(t.amd);
  }
}

Test(db_select, data_file_replaces_the_builtin_database) {
  /* tests/db/hostile/corners.json has boards of its own ("Test GPU", its
   * default, "Wide", "Tiny") and none of the built-in ones. */
  occ_target_query none = {.data_path = "tests/db/hostile/corners.json"};
  occ_target t;
  cr_assert_eq(occ_gpudb_select(&none, &t), OCC_TARGET_FOUND, "%s", t.why);
  cr_expect_eq(t.by, OCC_TARGET_BY_DEFAULT);
  cr_expect_str_eq(t.device.name, "Test GPU");
  occ_target_query h100 = {.data_path = none.data_path, .gpu = "h100"};
  cr_expect_eq(occ_gpudb_select(&h100, &t), OCC_TARGET_UNKNOWN_GPU);
  cr_expect_not_null(strstr(t.near, "Test GPU"), "%s", t.near);
}

Test(db_select, precedence_of_the_query) {
  occ_target_query q = {.gpu = "a", .arch = "b", .env_gpu = "c"};
  cr_expect_eq(occ_target_query_by(&q), OCC_TARGET_BY_GPU);
  q.gpu = NULL;
  cr_expect_eq(occ_target_query_by(&q), OCC_TARGET_BY_ARCH);
  q.arch = NULL;
  cr_expect_eq(occ_target_query_by(&q), OCC_TARGET_BY_ENV);
  q.env_gpu = "";
  cr_expect_eq(occ_target_query_by(&q), OCC_TARGET_BY_DEFAULT);
  q.env_gpu = NULL;
  cr_expect_eq(occ_target_query_by(&q), OCC_TARGET_BY_DEFAULT);
  cr_expect(occ_target_arch_is_amd("GFX90a"));
  cr_expect_not(occ_target_arch_is_amd("sm_90"));
  cr_expect_not(occ_target_arch_is_amd(NULL));
}
