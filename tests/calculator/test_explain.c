/* Unit tests of the derivation as data (core/explain.h) and its JSON
 * (render/explain_out.h): each step's result is its operation applied to its
 * operands, operands named after an earlier result carry its value, and
 * the values are the occ_result's, on every architecture of the database. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "json_parsed.h"
#include "core/explain.h"
#include "db_fixture.h"
#include "render/explain_out.h"

static double operand(const occ_step *s, int i) {
  cr_assert_lt(i, s->operand_count, "%s: operand %d missing", s->key, i);
  return s->operands[i].value;
}

static double smem_config(const occ_device *d, double bytes) {
  double largest = (double)d->smem_configs_bytes[d->smem_config_count - 1];
  if (bytes > largest) bytes = largest;
  for (int i = 0; i < d->smem_config_count; i++)
    if ((double)d->smem_configs_bytes[i] >= bytes) return (double)d->smem_configs_bytes[i];
  return -1;
}

/* The result the operation gives on the step's operands. */
static double apply(const occ_device *d, const occ_step *s) {
  double a = s->operand_count > 0 ? operand(s, 0) : 0;
  switch (s->operation) {
  case OCC_OP_VALUE: return a;
  case OCC_OP_SUM: {
    double sum = 0;
    for (int i = 0; i < s->operand_count; i++) sum += operand(s, i);
    return sum;
  }
  case OCC_OP_MUL: return a * operand(s, 1);
  case OCC_OP_MUL_SUB: return a * operand(s, 1) - operand(s, 2);
  case OCC_OP_SUB: return a - operand(s, 1);
  case OCC_OP_CEIL_DIV: return ceil(a / operand(s, 1));
  case OCC_OP_FLOOR_DIV: return floor(a / operand(s, 1));
  case OCC_OP_DIV: return a / operand(s, 1);
  case OCC_OP_ROUND_UP: return ceil(a / operand(s, 1)) * operand(s, 1);
  case OCC_OP_MUL_ROUND_UP: return a * (ceil(operand(s, 1) / operand(s, 2)) * operand(s, 2));
  case OCC_OP_PERCENT_OF: return floor(a * operand(s, 1) / 100);
  case OCC_OP_SMEM_CONFIG: return smem_config(d, a);
  case OCC_OP_MIN: {
    double min = a;
    for (int i = 1; i < s->operand_count; i++) min = fmin(min, operand(s, i));
    return min;
  }
  case OCC_OP_EXCEEDS:
    cr_expect_gt(a, operand(s, 1), "%s: %g is not over %g", s->key, a, operand(s, 1));
    return 0;
  case OCC_OP_NO_LIMIT:
    cr_expect_eq(a, 0, "%s: no limit though %s is %g", s->key, s->operands[0].name, a);
    cr_expect(s->result.unlimited, "%s: no limit but a value", s->key);
    return s->result.value;
  case OCC_OP_NOTE: break;
  }
  return NAN;
}

/* Results seen so far, by name, so later operands can be checked. */
typedef struct seen {
  const char *name[OCC_EXPLAIN_MAX_STEPS];
  double value[OCC_EXPLAIN_MAX_STEPS];
  int count;
} seen;

static void check_step(const occ_device *d, const occ_step *s, seen *seen) {
  cr_expect_str_neq(occ_explain_op_name(s->operation), "?", "%s", s->key);
  cr_expect_not_null(occ_explain_section_title(s->section), "%s: section", s->key);
  cr_expect_eq(s->has_result, s->operation != OCC_OP_NOTE, "%s", s->key);
  for (int i = 0; i < s->operand_count; i++)
    for (int j = 0; j < seen->count; j++)
      if (strcmp(s->operands[i].name, seen->name[j]) == 0)
        cr_expect_eq(s->operands[i].value, seen->value[j], "%s: %s is %g, was %g", s->key,
                     s->operands[i].name, s->operands[i].value, seen->value[j]);
  if (!s->has_result) return;
  double want = apply(d, s);
  cr_expect_eq(s->result.value, want, "%s (%s): result %g, operands give %g", s->key,
               occ_explain_op_name(s->operation), s->result.value, want);
  if (seen->count < OCC_EXPLAIN_MAX_STEPS && !s->result.unlimited) {
    seen->name[seen->count] = s->result.name;
    seen->value[seen->count++] = s->result.value;
  }
}

static const occ_step *find(const occ_step *steps, size_t n, const char *result) {
  for (size_t i = 0; i < n; i++)
    if (steps[i].has_result && strcmp(steps[i].result.name, result) == 0) return &steps[i];
  return NULL;
}

/* The steps' final numbers are the occ_result's. */
static void check_against_result(const occ_step *steps, size_t n, const occ_result *r) {
  static const char *const limits[OCC_LIMITER_COUNT] = {
      "limits.warps", "limits.blocks", "limits.registers", "limits.shared_memory",
      "limits.barriers"};
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    const occ_step *s = find(steps, n, limits[i]);
    cr_assert_not_null(s, "no step gives %s", limits[i]);
    int limit = occ_result_limit(r, i);
    cr_expect_eq(s->result.unlimited, limit == OCC_UNLIMITED, "%s", limits[i]);
    if (limit != OCC_UNLIMITED) cr_expect_eq(s->result.value, limit, "%s", limits[i]);
  }
  const occ_step *s = find(steps, n, "warps_per_block");
  cr_assert_not_null(s);
  cr_expect_eq(s->result.value, r->warps_per_block);
  s = find(steps, n, "active_blocks_per_sm");
  cr_assert_not_null(s);
  cr_expect_eq(s->result.value, r->active_blocks_per_sm);
  s = find(steps, n, "active_warps_per_sm");
  cr_assert_not_null(s);
  cr_expect_eq(s->result.value, r->active_warps_per_sm);
  s = find(steps, n, "occupancy");
  cr_assert_not_null(s);
  cr_expect_eq(s->result.value, r->occupancy);
  cr_expect_str_eq(s->result.unit, "fraction");
  if ((s = find(steps, n, "allocated.regs_per_warp")))
    cr_expect_eq(s->result.value, r->regs_per_warp);
  if ((s = find(steps, n, "allocated.api_smem_config_bytes")))
    cr_expect_eq(s->result.value, (double)r->smem_config_bytes);
  if ((s = find(steps, n, "at_launch.smem_config_bytes")))
    cr_expect_eq(s->result.value, (double)r->launch_smem_config_bytes);
}

static size_t explain(const occ_device *d, const occ_kernel *k, occ_result *r,
                      occ_step *steps) {
  cr_assert_eq(occ_compute(d, k, r), OCC_OK);
  occ_waves w;
  occ_waves_compute(d, r, 10000, &w);
  size_t n = occ_explain(d, k, r, &w, steps, OCC_EXPLAIN_MAX_STEPS);
  cr_assert_leq(n, OCC_EXPLAIN_MAX_STEPS);
  return n;
}

static void check_case(const occ_device *d, const occ_kernel *k) {
  occ_result r;
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t n = explain(d, k, &r, steps);
  seen seen = {.count = 0};
  for (size_t i = 0; i < n; i++) {
    if (i > 0) cr_expect_geq(steps[i].section, steps[i - 1].section, "%s", steps[i].key);
    for (size_t j = 0; j < i; j++)
      cr_expect_str_neq(steps[i].key, steps[j].key, "key %s twice", steps[i].key);
    check_step(d, &steps[i], &seen);
  }
  check_against_result(steps, n, &r);
}

TestSuite(explain, .init = load_db, .fini = free_db);

/* Every architecture, with blocks too large, registers over the maximum,
 * shared memory over the cap, carveouts that change at launch, barriers. */
Test(explain, steps_are_consistent_on_every_architecture) {
  const int regs[] = {0, 32, 48, 255, 300};
  const int64_t smem[] = {0, 4096, 50000, 300000};
  const int blocks[] = {1, 100, 1024, 1025};
  const int carveouts[] = {OCC_CARVEOUT_DEFAULT, 0, 28, 100};
  size_t n = occ_gpudb_arch_count(db);
  cr_assert_geq(n, 10);
  for (size_t a = 0; a < n; a++) {
    occ_device d;
    occ_gpudb_arch_at(db, a, &d, NULL, NULL);
    occ_kernel k;
    occ_kernel_init(&k);
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
      for (size_t j = 0; j < sizeof smem / sizeof smem[0]; j++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
          for (size_t c = 0; c < sizeof carveouts / sizeof carveouts[0]; c++) {
            k.regs_per_thread = regs[i];
            k.smem_static_bytes = smem[j] / 2;
            k.smem_dynamic_bytes = smem[j] - smem[j] / 2;
            k.block[0] = blocks[b];
            k.carveout_pct = carveouts[c];
            k.barriers = (int)(i + b) % 3;
            check_case(&d, &k);
          }
  }
}

static const occ_step *step_of(const occ_step *steps, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(steps[i].key, key) == 0) return &steps[i];
  cr_assert_fail("no step %s", key);
  return NULL;
}

/* The GTX 970 example: the numbers a course worksheet derives by hand. */
Test(explain, gtx970_example_by_hand) {
  occ_device d = board("GTX 970");
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = 128;
  k.regs_per_thread = 48;
  k.smem_static_bytes = 4096;
  occ_result r;
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t n = explain(&d, &k, &r, steps);
  const occ_step *s = step_of(steps, n, "warps_per_block");
  cr_expect_str_eq(occ_explain_op_name(s->operation), "ceil_div");
  cr_expect_eq(s->operands[0].value, 128);
  cr_expect_eq(s->operands[1].value, 32);
  cr_expect_eq(s->result.value, 4);
  s = step_of(steps, n, "warps_per_sub_partition");
  cr_expect_eq(s->operands[0].value, 16384);
  cr_expect_eq(s->operands[1].value, 1536);
  cr_expect_eq(s->result.value, 10);
  cr_expect_eq(step_of(steps, n, "limit_regs")->result.value, 10);
  cr_expect_eq(step_of(steps, n, "limit_smem")->result.value, 24);
  cr_expect(step_of(steps, n, "limit_barriers")->result.unlimited);
  s = step_of(steps, n, "active_blocks_per_sm");
  cr_expect_str_eq(occ_explain_op_name(s->operation), "min");
  cr_expect_eq(s->operand_count, 4); /* no barrier limit before Hopper */
  cr_expect_eq(s->result.value, 10);
  cr_expect_eq(step_of(steps, n, "occupancy")->result.value, 0.625);
}

/* An H100 with a 28 % carveout: the SM holds 12 blocks at launch, not 8. */
Test(explain, h100_carveout_changes_at_launch) {
  occ_device d = board("H100 SXM");
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = 64;
  k.regs_per_thread = 32;
  k.smem_dynamic_bytes = 7168;
  k.carveout_pct = 28;
  occ_result r;
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t n = explain(&d, &k, &r, steps);
  cr_expect_eq(step_of(steps, n, "limit_smem")->result.value, 8);
  cr_expect_eq(step_of(steps, n, "launch_blocks_by_carveout")->result.value, 9);
  cr_expect_eq(step_of(steps, n, "launch_smem_config_bytes")->result.value, 102400);
  cr_expect_eq(step_of(steps, n, "launch_limit_smem")->result.value, 12);
  cr_expect_eq(step_of(steps, n, "launch_occupancy")->result.value, 0.375);
}

Test(explain, a_short_list_is_cut_and_says_so) {
  occ_device d = board("H100 SXM");
  occ_kernel k;
  occ_kernel_init(&k);
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  occ_step steps[3];
  memset(steps, 0, sizeof steps);
  size_t n = occ_explain(&d, &k, &r, NULL, steps, 3);
  cr_expect_gt(n, 3);
  cr_expect_str_eq(steps[2].key, "max_warps_per_sm");
}

static cJSON *item(const cJSON *obj, const char *key) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  cr_assert_not_null(v, "no key %s", key);
  return v;
}

/* The JSON array: one object per step, occupancy a fraction, a limit that
 * does not apply null, the text the worksheet prints. */
Test(explain, json_steps) {
  occ_device d = board("GTX 970");
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = 128;
  k.regs_per_thread = 48;
  k.smem_static_bytes = 4096;
  occ_result r;
  cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t n = occ_explain(&d, &k, &r, NULL, steps, OCC_EXPLAIN_MAX_STEPS);
  occ_report rep = {.device = &d, .kernel = &k, .result = &r,
                    .steps = steps, .step_count = n};
  cJSON *array = json_parsed(occ_json_explain(&rep));
  cr_assert(cJSON_IsArray(array));
  cr_assert_eq((size_t)cJSON_GetArraySize(array), n);
  const cJSON *step;
  int checked = 0;
  cJSON_ArrayForEach(step, array) {
    const char *key = item(step, "step")->valuestring;
    const cJSON *result = item(step, "result");
    if (strcmp(key, "occupancy") == 0) {
      cr_expect_str_eq(item(step, "operation")->valuestring, "div");
      cr_expect_eq(item(result, "value")->valuedouble, 0.625);
      cr_expect_str_eq(item(result, "unit")->valuestring, "fraction");
      cr_expect_str_eq(item(step, "text")->valuestring, "40 / 64 warps = 62.5 %");
      checked++;
    } else if (strcmp(key, "limit_barriers") == 0) {
      cr_expect(cJSON_IsNull(item(result, "value")));
      checked++;
    } else if (strcmp(key, "regs_per_warp_raw") == 0) {
      const cJSON *first = cJSON_GetArrayItem(item(step, "operands"), 0);
      cr_expect_str_eq(item(first, "name")->valuestring, "kernel.regs_per_thread");
      cr_expect_eq(item(first, "value")->valuedouble, 48);
      cr_expect_str_eq(item(step, "text")->valuestring, "48 x 32 = 1536 registers per warp");
      checked++;
    }
  }
  cr_expect_eq(checked, 3);
  cJSON_Delete(array);
}
