/* db_fixture.h - the built-in database as a Criterion fixture, shared by
 * the unit tests: TestSuite(x, .init = load_db, .fini = free_db), then
 * board("GTX 970") for a device and test_kernel(...) for a kernel. */
#ifndef OCC_DB_FIXTURE_H
#define OCC_DB_FIXTURE_H

#include <criterion/criterion.h>

#include "core/occ.h"
#include "db/gpudb.h"

static occ_gpudb *db;

static void load_db(void) {
  char err[256];
  db = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert_not_null(db, "built-in database: %s", err);
}

static void free_db(void) { occ_gpudb_free(db); }

/* The named board; the test fails if the database lacks it. */
static occ_device board(const char *name) {
  occ_device d;
  char near[128];
  cr_assert_eq(occ_gpudb_find_gpu(db, name, &d, near, sizeof near), 0, "%s", name);
  return d;
}

/* A kernel of a one-dimensional block of threads; carveout_pct is
 * OCC_CARVEOUT_DEFAULT for none. */
static inline occ_kernel test_kernel(int regs, int64_t smem_static_bytes,
                                     int64_t smem_dynamic_bytes, int threads,
                                     int carveout_pct) {
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = regs;
  k.smem_static_bytes = smem_static_bytes;
  k.smem_dynamic_bytes = smem_dynamic_bytes;
  k.block[0] = threads;
  k.carveout_pct = carveout_pct;
  return k;
}

#endif
