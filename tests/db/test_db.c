/* Unit tests of the compiled-in database: the tables gpus_gen wrote at
 * build time (build/gpus_table.c) against what loading data/gpus.json at
 * run time gives, field by field, for every architecture and board. Run
 * from the repository root, as `make test-unit` does. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "db/devfields.h"
#include "db/gpudb.h"
#include "db/gpudb_tables.h"

static occ_gpudb *builtin, *parsed;

static void load_both(void) {
  char err[256];
  builtin = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert_not_null(builtin, "built-in database: %s", err);
  parsed = occ_gpudb_load_file("data/gpus.json", err, sizeof err);
  cr_assert_not_null(parsed, "%s", err);
}

static void free_both(void) {
  occ_gpudb_free(builtin);
  occ_gpudb_free(parsed);
}

TestSuite(db, .init = load_both, .fini = free_both);

static void expect_same_string(const char *built, const char *loaded,
                               const char *what, const char *field) {
  if (!built || !loaded) {
    cr_expect(built == loaded, "%s: %s: %s in the tables, %s loaded", what,
              field, built ? built : "NULL", loaded ? loaded : "NULL");
    return;
  }
  cr_expect_str_eq(built, loaded, "%s: %s", what, field);
}

/* The strings at offsets b and p of the built-in and the loaded pool. */
static void expect_same_pooled(uint32_t b, uint32_t p, const char *what,
                               const char *field) {
  const occ_gpudb_tables *bt = occ_gpudb_tables_of(builtin);
  const occ_gpudb_tables *pt = occ_gpudb_tables_of(parsed);
  cr_assert_lt(b, bt->strings_size, "%s: %s", what, field);
  cr_assert_lt(p, pt->strings_size, "%s: %s", what, field);
  expect_same_string(occ_gpudb_string(bt, b), occ_gpudb_string(pt, p), what,
                     field);
}

static void expect_same_device(const occ_device *b, const occ_device *p,
                               const char *what) {
  expect_same_string(b->name, p->name, what, "name");
  expect_same_string(b->source, p->source, what, "device source");
  cr_expect_eq(b->cc_major, p->cc_major, "%s: cc_major", what);
  cr_expect_eq(b->cc_minor, p->cc_minor, "%s: cc_minor", what);
  for (int i = 0; i < 3; i++)
    cr_expect_eq(b->max_block_dim[i], p->max_block_dim[i],
                 "%s: max_block_dim[%d]", what, i);
  cr_expect_eq(b->smem_config_count, p->smem_config_count,
               "%s: smem_config_count", what);
  for (int i = 0; i < OCC_MAX_SMEM_CONFIGS; i++)
    cr_expect_eq(b->smem_configs_bytes[i], p->smem_configs_bytes[i],
                 "%s: smem_configs_bytes[%d]", what, i);
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++)
    cr_expect_eq(occ_device_field_get(b, &fields[i]),
                 occ_device_field_get(p, &fields[i]), "%s: %s", what,
                 fields[i].key);
}

static void expect_same_entry(const occ_gpudb_entry *b, const occ_gpudb_entry *p,
                              const char *what) {
  expect_same_device(&b->device, &p->device, what);
  expect_same_pooled(b->family, p->family, what, "family");
  expect_same_pooled(b->source, p->source, what, "source");
  cr_expect_eq(b->alias_count, p->alias_count, "%s: alias_count", what);
  for (int a = 0; a <= b->alias_count && a <= p->alias_count; a++)
    expect_same_pooled(b->match_keys[a], p->match_keys[a], what,
                       a ? "alias" : "match key of the name");
}

Test(db, builtin_is_the_compiled_tables) {
  const occ_gpudb_tables *t = occ_gpudb_tables_of(builtin);
  cr_expect_eq(t->archs, occ_builtin_gpudb_tables.archs);
  cr_expect_eq(t->gpus, occ_builtin_gpudb_tables.gpus);
}

Test(db, tables_equal_loading_gpus_json) {
  const occ_gpudb_tables *b = occ_gpudb_tables_of(builtin);
  const occ_gpudb_tables *p = occ_gpudb_tables_of(parsed);
  cr_assert_eq(b->arch_count, p->arch_count, "architectures");
  cr_assert_eq(b->gpu_count, p->gpu_count, "boards");
  cr_expect_str_eq(occ_gpudb_default_gpu(builtin), occ_gpudb_default_gpu(parsed));
  for (size_t i = 0; i < b->arch_count; i++) {
    char what[128];
    snprintf(what, sizeof what, "architecture %zu (%s)", i,
             p->archs[i].device.name);
    expect_same_entry(&b->archs[i], &p->archs[i], what);
  }
  for (size_t i = 0; i < b->gpu_count; i++) {
    char what[128];
    snprintf(what, sizeof what, "board %zu (%s)", i, p->gpus[i].device.name);
    expect_same_entry(&b->gpus[i], &p->gpus[i], what);
  }
}

/* The public listing answers the same from both, and hands out devices
 * that say where they come from. */
Test(db, listing_equals_loading_gpus_json) {
  cr_assert_eq(occ_gpudb_gpu_count(builtin), occ_gpudb_gpu_count(parsed));
  cr_assert_eq(occ_gpudb_arch_count(builtin), occ_gpudb_arch_count(parsed));
  for (size_t i = 0; i < occ_gpudb_gpu_count(parsed) + occ_gpudb_arch_count(parsed); i++) {
    occ_device b, p;
    const char *b_family, *p_family, *b_source, *p_source;
    size_t gpus = occ_gpudb_gpu_count(parsed);
    if (i < gpus) {
      occ_gpudb_gpu_at(builtin, i, &b, &b_family, &b_source);
      occ_gpudb_gpu_at(parsed, i, &p, &p_family, &p_source);
    } else {
      occ_gpudb_arch_at(builtin, i - gpus, &b, &b_family, &b_source);
      occ_gpudb_arch_at(parsed, i - gpus, &p, &p_family, &p_source);
    }
    expect_same_device(&b, &p, p.name);
    cr_expect_str_eq(b.source, "database", "%s", p.name);
    cr_expect_str_eq(b_family, p_family, "%s: family", p.name);
    cr_expect_str_eq(b_source, p_source, "%s: source", p.name);
  }
}

/* Lookups by name, by a near miss and by capability agree. */
Test(db, lookups_equal_loading_gpus_json) {
  static const char *const names[] = {"h100", "NVIDIA GeForce RTX 4090",
                                      "a100 80gb", "h10", "rtx409"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    occ_device b, p;
    char b_near[256] = "", p_near[256] = "";
    int b_rc = occ_gpudb_find_gpu(builtin, names[i], &b, b_near, sizeof b_near);
    int p_rc = occ_gpudb_find_gpu(parsed, names[i], &p, p_near, sizeof p_near);
    cr_expect_eq(b_rc, p_rc, "%s", names[i]);
    if (p_rc == 0)
      expect_same_device(&b, &p, names[i]);
    else
      cr_expect_str_eq(b_near, p_near, "%s: nearest names", names[i]);
  }
  occ_device b, p;
  char b_near[256] = "", p_near[256] = "";
  cr_expect_eq(occ_gpudb_find_cc(builtin, 6, 3, &b, b_near, sizeof b_near), -1);
  cr_expect_eq(occ_gpudb_find_cc(parsed, 6, 3, &p, p_near, sizeof p_near), -1);
  cr_expect_str_eq(b_near, p_near, "nearest capabilities to 6.3");
}
