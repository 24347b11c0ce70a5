/* Unit tests of the live verifier's pure parts: residency from a timeline,
 * the sweep's random configurations, the judge of the checks, the writers
 * of the occupancy API's answers and the opening of the CUDA runtime. */
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
#include "render/verify_out.h"

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
  v.run.driver_api_blocks_per_sm = 10;
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

/* The sweep summary's JSON counts every check under its key, from the
 * table: the configuration's and the driver's API among them. */
Test(config_check, the_summary_counts_every_check) {
  occ_sweep_summary s;
  memset(&s, 0, sizeof s);
  s.cases = 20;
  for (int i = 0; i < OCC_CHECK_COUNT; i++) s.checks[i] = 10 + i;
  cJSON *j = json_parsed(occ_json_sweep_summary(&s, 1));
  cr_assert_not_null(j);
  cJSON *checks = cJSON_GetObjectItem(j, "checks");
  for (int i = 0; i < OCC_CHECK_COUNT; i++) {
    cJSON *count = cJSON_GetObjectItem(checks, occ_checks[i].key);
    cr_assert(cJSON_IsNumber(count), "%s", occ_checks[i].key);
    cr_assert_eq(count->valueint, 10 + i, "%s", occ_checks[i].key);
  }
  cr_assert_eq(cJSON_GetObjectItem(checks, "config")->valueint,
               10 + OCC_CHECK_CONFIG);
  cr_assert_eq(cJSON_GetObjectItem(checks, "driver_api")->valueint,
               10 + OCC_CHECK_DRIVER_API);
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
  /* The source judges once (device_cmd.c); the writer reads it. */
  mk.failed = occ_module_failed(&mk, &p);
  cJSON *j = json_parsed(occ_json_module_check(&mk, &p, occ_module_agrees(&mk, &p)));
  cr_assert_not_null(j);
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "smem_config_executed_bytes")));
  cJSON *predicted = cJSON_GetObjectItem(j, "predicted_smem_config_bytes");
  cr_assert(cJSON_IsNumber(predicted) && predicted->valuedouble == 102400);
  cJSON_Delete(j);
  p.launch_smem_config_bytes = 0;
  j = json_parsed(occ_json_module_check(&mk, &p, occ_module_agrees(&mk, &p)));
  cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "predicted_smem_config_bytes")));
  cJSON_Delete(j);
}

/* ---- The CUDA occupancy API: cudart's, the driver's beside it ---- */

static const unsigned api_bit = 1u << OCC_CHECK_API;
static const unsigned driver_bit = 1u << OCC_CHECK_DRIVER_API;

/* The driver's answer is checked against cudart's; a difference is shown
 * but the verdict stays the prediction's against cudart and the GPU. */
Test(occupancy_api, the_drivers_answer_is_checked_against_cudarts) {
  occ_device d = h100();
  occ_verify same = agreeing_run(102400, 102400);
  occ_verify differs = same;
  differs.run.driver_api_blocks_per_sm = 9;
  occ_verify_judge(&d, &same);
  occ_verify_judge(&d, &differs);
  cr_assert(same.made & driver_bit);
  cr_assert_eq(same.failed, 0u);
  cr_assert_eq(differs.failed, driver_bit);
  cr_assert(differs.agree);
}

static occ_module_kernel module_answers(int api, int driver) {
  occ_module_kernel mk;
  memset(&mk, 0, sizeof mk);
  mk.regs_per_thread = 32;
  mk.api_blocks_per_sm = api;
  mk.driver_api_blocks_per_sm = driver;
  return mk;
}

static occ_result predicted(int blocks) {
  occ_result p;
  memset(&p, 0, sizeof p);
  p.active_blocks_per_sm = p.launch_active_blocks_per_sm = blocks;
  return p;
}

static char *module_text(const occ_module_kernel *mk, const occ_result *p) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  occ_print_module_check(out, mk, p, occ_module_agrees(mk, p));
  fclose(out);
  return text;
}

/* Every line of text fits 80 columns. */
static void assert_80_columns(const char *text) {
  for (const char *line = text; *line;) {
    size_t n = strcspn(line, "\n");
    cr_assert_leq(n, 80, "%.*s", (int)n, line);
    line += n + (line[n] == '\n');
  }
}

static const char *string_item(cJSON *j, const char *key) {
  cJSON *item = cJSON_GetObjectItem(j, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

static cJSON *differences(cJSON *j) {
  cJSON *list = cJSON_GetObjectItem(j, "differences");
  cr_assert(cJSON_IsArray(list));
  return list;
}

/* JSON names the functions that were called, beside their answers. */
Test(occupancy_api, a_module_names_the_functions_called) {
  occ_module_kernel mk = module_answers(10, 10);
  occ_result p = predicted(10);
  /* The source judges once (device_cmd.c); the writer reads it. */
  mk.failed = occ_module_failed(&mk, &p);
  cJSON *j = json_parsed(occ_json_module_check(&mk, &p, occ_module_agrees(&mk, &p)));
  cr_assert_not_null(j);
  cr_assert_str_eq(string_item(j, "api_function"),
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  cr_assert_str_eq(string_item(j, "driver_api_function"),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  cr_assert_eq(cJSON_GetObjectItem(j, "api_blocks_per_sm")->valueint, 10);
  cr_assert_eq(cJSON_GetObjectItem(j, "driver_api_blocks_per_sm")->valueint, 10);
  cr_assert_eq(cJSON_GetArraySize(differences(j)), 0);
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "agree")));
  cJSON_Delete(j);
}

/* Where the two answers agree the text names cudart's function alone. */
Test(occupancy_api, the_text_names_cudarts_function) {
  occ_module_kernel mk = module_answers(10, 10);
  occ_result p = predicted(10);
  char *text = module_text(&mk, &p);
  cr_assert(strstr(text, "CUDA occupancy API         10       cudart's answer"),
            "%s", text);
  cr_assert(strstr(text, "\n    cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"),
            "%s", text);
  cr_assert_null(strstr(text, "cuOccupancy"), "%s", text);
  assert_80_columns(text);
  free(text);
}

/* Where the driver's answer differs, both are shown, in text and JSON,
 * and the verdict is still cudart's against the prediction. */
Test(occupancy_api, a_driver_that_differs_is_shown_beside_cudart) {
  occ_module_kernel mk = module_answers(10, 9);
  occ_result p = predicted(10);
  char *text = module_text(&mk, &p);
  cr_assert(strstr(text, "CUDA occupancy API         10 "), "%s", text);
  cr_assert(strstr(text, "driver's occupancy API     9 "), "%s", text);
  cr_assert(strstr(text, "\n    cuOccupancyMaxActiveBlocksPerMultiprocessor\n"),
            "%s", text);
  cr_assert(strstr(text, "verdict: agree"), "%s", text);
  assert_80_columns(text);
  free(text);
  /* The source judges once (device_cmd.c); the writer reads it. */
  mk.failed = occ_module_failed(&mk, &p);
  cJSON *j = json_parsed(occ_json_module_check(&mk, &p, occ_module_agrees(&mk, &p)));
  cr_assert_not_null(j);
  cr_assert_eq(cJSON_GetObjectItem(j, "driver_api_blocks_per_sm")->valueint, 9);
  cJSON *list = differences(j);
  cr_assert_eq(cJSON_GetArraySize(list), 1);
  cr_assert_str_eq(cJSON_GetArrayItem(list, 0)->valuestring, "driver_api");
  cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "agree")));
  cJSON_Delete(j);
}

Test(occupancy_api, a_module_is_judged_by_cudarts_answer) {
  occ_module_kernel mk = module_answers(9, 10);
  occ_result p = predicted(10);
  cr_assert_not(occ_module_agrees(&mk, &p));
  cr_assert_eq(occ_module_failed(&mk, &p), api_bit | driver_bit);
  mk = module_answers(10, 9);
  cr_assert(occ_module_agrees(&mk, &p));
  cr_assert_eq(occ_module_failed(&mk, &p), driver_bit);
}

/* A runtime that cannot be opened is named, with the reason (each
 * Criterion test runs in its own process: nothing was opened before). */
Test(occupancy_api, a_missing_runtime_is_named) {
  setenv("OCCCALC_CUDART", "/nonexistent/libcudart.so.13", 1);
  char err[1024];
  cr_assert_eq(occ_gpu_runtime_open(err, sizeof err), OCC_GPU_ERR_CUDA);
  cr_assert(strstr(err, "no CUDA runtime") &&
            strstr(err, "/nonexistent/libcudart.so.13: cannot open"), "%s", err);
}

Test(occupancy_api, a_library_without_the_api_is_refused) {
  setenv("OCCCALC_CUDART", "libc.so.6", 1);
  char err[1024];
  cr_assert_eq(occ_gpu_runtime_open(err, sizeof err), OCC_GPU_ERR_CUDA);
  cr_assert(strstr(err, "libc.so.6 has no cudaGetErrorName"), "%s", err);
}
