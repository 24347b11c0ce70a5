/* Unit tests of the live verifier's pure parts: residency from a timeline,
 * the sweep's random configurations and the judge of the checks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_parsed.h"
#include "db/gpudb.h"
#include "core/occ.h"
#include "live/timeline.h"
#include "live/verify.h"
#include "out/verify_out.h"

static occ_probe_record rec(unsigned sm, unsigned long long a,
                            unsigned long long b) {
  return (occ_probe_record){a, b, sm, 0};
}

Test(timeline, touching_intervals_do_not_overlap) {
  occ_probe_record r[] = {rec(0, 0, 10), rec(0, 10, 20), rec(0, 20, 30)};
  occ_residency res;
  int64_t bad;
  cr_assert_eq(occ_timeline_residency(r, 3, 1, 4, 64, &res, &bad), OCC_TIMELINE_OK);
  cr_assert_eq(res.max_blocks, 1);
  cr_assert_eq(res.min_blocks, 1);
  /* 4 warps busy all the time of 64: 1/16. */
  cr_assert_float_eq(res.achieved, 4.0 / 64, 1e-12);
}

Test(timeline, counts_the_peak_per_sm) {
  occ_probe_record r[] = {rec(3, 0, 100), rec(3, 10, 90), rec(3, 20, 30),
                          rec(3, 95, 200), rec(7, 0, 50), rec(7, 50, 100)};
  occ_residency res;
  int64_t bad;
  cr_assert_eq(occ_timeline_residency(r, 6, 2, 1, 64, &res, &bad), OCC_TIMELINE_OK);
  cr_assert_eq(res.max_blocks, 3);
  cr_assert_eq(res.min_blocks, 1);
  cr_assert_eq(res.sms_seen, 2);
}

Test(timeline, an_sm_without_blocks_had_none) {
  occ_probe_record r[] = {rec(0, 0, 10), rec(0, 5, 10)};
  occ_residency res;
  int64_t bad;
  cr_assert_eq(occ_timeline_residency(r, 2, 2, 1, 64, &res, &bad), OCC_TIMELINE_OK);
  cr_assert_eq(res.min_blocks, 0);
  cr_assert_eq(res.max_blocks, 2);
}

Test(timeline, a_missing_record_is_an_error) {
  occ_probe_record r[] = {rec(0, 0, 10), rec(0, 0, 0)};
  occ_residency res;
  int64_t bad = -1;
  cr_assert_eq(occ_timeline_residency(r, 2, 1, 1, 64, &res, &bad),
               OCC_TIMELINE_NO_RECORD);
  cr_assert_eq(bad, 1);
}

static occ_device h100(void) {
  char err[256], near[128];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert_not_null(db, "%s", err);
  occ_device d;
  cr_assert_eq(occ_gpudb_find_gpu(db, "H100 SXM", &d, near, sizeof near), 0);
  occ_gpudb_free(db);
  return d;
}

Test(sweep, cases_launch_and_stay_in_range) {
  occ_device d = h100();
  uint64_t state = 1;
  int carveouts = 0, optin = 0;
  for (int i = 0; i < 20000; i++) {
    occ_kernel k;
    occ_sweep_case(&d, &state, &k);
    occ_result r;
    cr_assert_eq(occ_compute(&d, &k, &r), OCC_OK);
    cr_assert(r.active_blocks_per_sm >= 1);
    cr_assert(k.regs_per_thread >= 24 && k.regs_per_thread <= 255);
    cr_assert(k.block[0] >= 1 && k.block[0] <= 1024 && k.block[1] == 1);
    cr_assert(k.smem_static_bytes <= d.smem_per_block_bytes);
    carveouts += k.carveout_pct != OCC_CARVEOUT_DEFAULT;
    optin += r.smem_optin;
  }
  /* The sweep covers carveouts and opt-in shared memory. */
  cr_assert(carveouts > 5000 && optin > 1000, "carveouts %d, opt-in %d",
            carveouts, optin);
}

Test(sweep, the_seed_fixes_the_cases) {
  occ_device d = h100();
  uint64_t a = 42, b = 42, c = 43;
  occ_kernel ka, kb, kc;
  int same_as_other_seed = 0;
  for (int i = 0; i < 100; i++) {
    occ_sweep_case(&d, &a, &ka);
    occ_sweep_case(&d, &b, &kb);
    occ_sweep_case(&d, &c, &kc);
    cr_assert_eq(memcmp(&ka, &kb, sizeof ka), 0);
    same_as_other_seed += memcmp(&ka, &kc, sizeof ka) == 0;
  }
  cr_assert_lt(same_as_other_seed, 5);
}

/* A probe run where every check but the configuration's agrees: 10
 * blocks by the API, measured and predicted, no cooperative launch. */
static occ_verify agreeing_run(int64_t executed, int64_t predicted) {
  occ_verify v;
  memset(&v, 0, sizeof v);
  v.prediction.active_blocks_per_sm = 10;
  v.prediction.launch_active_blocks_per_sm = 10;
  v.prediction.launch_smem_config_bytes = predicted;
  v.run.api_blocks_per_sm = 10;
  v.run.measured_min = v.run.measured_max = 10;
  v.run.cooperative_max_blocks = -1;
  v.run.smem_config_executed_bytes = executed;
  return v;
}

static const unsigned config_bit = 1u << OCC_CHECK_CONFIG;

Test(config_check, made_when_both_are_known_and_agreeing) {
  occ_device d = h100();
  occ_verify v = agreeing_run(102400, 102400);
  occ_verify_judge(&d, &v);
  cr_assert(v.made & config_bit);
  cr_assert_eq(v.failed, 0u);
  cr_assert(v.agree);
}

/* A different configuration is reported but, like the cooperative bound,
 * does not decide the verdict (the rule is fitted; see verify.c). */
Test(config_check, a_different_configuration_is_reported_not_judged) {
  occ_device d = h100();
  occ_verify v = agreeing_run(102400, 233472);
  occ_verify_judge(&d, &v);
  cr_assert(v.made & config_bit);
  cr_assert_eq(v.failed, config_bit);
  cr_assert(v.agree);
}

Test(config_check, not_made_without_a_reading_or_a_prediction) {
  occ_device d = h100();
  occ_verify unread = agreeing_run(-1, 102400);
  occ_verify unpredicted = agreeing_run(32768, 0);
  occ_verify_judge(&d, &unread);
  occ_verify_judge(&d, &unpredicted);
  cr_assert_not(unread.made & config_bit);
  cr_assert_not(unpredicted.made & config_bit);
  cr_assert(unread.agree && unpredicted.agree);
}

/* The sweep summary's JSON counts the check under its key, from the
 * table like every other row. */
Test(config_check, the_summary_counts_it) {
  occ_sweep_summary s;
  memset(&s, 0, sizeof s);
  s.cases = 9;
  s.checks[OCC_CHECK_CONFIG] = 7;
  cJSON *j = json_parsed(occ_json_sweep_summary(&s, 1));
  cr_assert_not_null(j);
  cJSON *config = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "checks"), "config");
  cr_assert(cJSON_IsNumber(config));
  cr_assert_eq(config->valueint, 7);
  cJSON_Delete(j);
}

/* The seed a sweep reports is the one to give --seed again: exact up to
 * INT64_MAX, where a double would round it. */
Test(config_check, the_seed_is_exact) {
  occ_sweep_summary s;
  memset(&s, 0, sizeof s);
  cJSON *j = occ_json_sweep_summary(&s, INT64_MAX);
  cr_assert_not_null(j);
  char *text = json_printed(occ_json_write_compact, j);
  cr_assert_not_null(text);
  cr_expect(strstr(text, "\"seed\":9223372036854775807,") != NULL, "%s", text);
  free(text);
  cJSON_Delete(j);
}

/* A module kernel is not launched: nothing was read, the prediction is
 * there (and null where there is none). */
Test(config_check, a_module_has_the_keys_unread) {
  occ_module_kernel mk;
  memset(&mk, 0, sizeof mk);
  occ_result p;
  memset(&p, 0, sizeof p);
  p.launch_smem_config_bytes = 102400;
  cJSON *j = json_parsed(occ_json_module_check(&mk, &p));
  cr_assert_not_null(j);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "smem_config_executed_bytes")));
  cJSON *predicted = cJSON_GetObjectItem(j, "predicted_smem_config_bytes");
  cr_assert(cJSON_IsNumber(predicted) && predicted->valuedouble == 102400);
  cJSON_Delete(j);
  p.launch_smem_config_bytes = 0;
  j = json_parsed(occ_json_module_check(&mk, &p));
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "predicted_smem_config_bytes")));
  cJSON_Delete(j);
}
