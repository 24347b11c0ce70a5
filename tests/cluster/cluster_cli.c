/* cluster_cli.c - --cluster's value and its checks (cli/params.h),
 * the sweep's cluster counts (live/cluster_sweep.h) and the live cluster
 * verification's JSON (render/cluster_verify_out.h), without a GPU. Part
 * of make test-cluster-unit. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli/params.h"
#include "live/cluster_sweep.h"
#include "model/cluster.h"
#include "model/measure.h"
#include "render/cluster_verify_out.h"
#include "db_fixture.h"

/* occ_json_add_int writes raw digits: read them back. */
static long long int_of(const cJSON *obj, const char *key) {
  const cJSON *item = cJSON_GetObjectItem(obj, key);
  cr_assert(item && (cJSON_IsRaw(item) || cJSON_IsNumber(item)), "%s", key);
  return cJSON_IsRaw(item) ? atoll(item->valuestring) : (long long)item->valuedouble;
}

/* --cluster as the option table reads it: the shape, then the rule of
 * every device with --non-portable as given. */
static bool parses(const char *text, bool non_portable, occ_cluster *c,
                   char *why) {
  occ_shape s;
  if (occ_parse_shape(text, INT32_MAX, &s, why, 256) != 0) return false;
  memcpy(c->dim, s.dim, sizeof s.dim);
  c->non_portable = non_portable;
  return occ_cluster_shape_check(c, text, why, 256) == 0;
}

Test(cluster_arg, sizes) {
  occ_cluster c;
  char why[256];
  cr_expect(parses("2", false, &c, why) && c.dim[0] == 2 && c.dim[1] == 1 &&
            c.dim[2] == 1 && !c.non_portable);
  cr_expect(parses("2x2x2", false, &c, why)); /* 8: the largest portable */
  cr_expect(parses("4x4", true, &c, why) && c.non_portable);
  cr_expect(!parses("12", false, &c, why) && strstr(why, "--non-portable"));
  cr_expect(!parses("17", true, &c, why) && strstr(why, "at most 16"));
  cr_expect(!parses("4x4x2", true, &c, why) && strstr(why, "at most 16"));
  /* Each dimension alone above 16: no product that overflows. */
  cr_expect(!parses("65536x65536x65536", true, &c, why) && strstr(why, "at most 16"));
  cr_expect(!parses("0", false, &c, why) && strstr(why, "at least 1"));
  cr_expect(!parses("2x0", false, &c, why));
  cr_expect(!parses("2x", false, &c, why));
}

Test(cluster_arg, device_and_grid) {
  occ_cluster c = {{4, 1, 1}, false};
  char why[256];
  occ_device hopper = {.name = "H", .cc_major = 9, .cc_minor = 0};
  occ_device ampere = {.name = "A", .cc_major = 8, .cc_minor = 0};
  cr_expect(occ_cluster_device_check(&c, &hopper, NULL, 0, why, sizeof why) == 0);
  cr_expect(occ_cluster_device_check(&c, &hopper, NULL, 8, why, sizeof why) == 0);
  cr_expect(occ_cluster_device_check(&c, &ampere, NULL, 0, why, sizeof why) != 0 &&
            strstr(why, "9.0"));
  /* More blocks in a cluster than in the grid, or not a whole number. */
  cr_expect(occ_cluster_device_check(&c, &hopper, NULL, 2, why, sizeof why) != 0);
  cr_expect(occ_cluster_device_check(&c, &hopper, NULL, 6, why, sizeof why) != 0);
  /* A shaped grid: whole clusters along each dimension. */
  occ_cluster square = {{2, 2, 1}, false};
  occ_shape fits = {{64, 64, 1}, 4096, "64x64", false};
  occ_shape odd = {{64, 63, 1}, 4032, "64x63", false};
  cr_expect(occ_cluster_device_check(&square, &hopper, &fits, 4096, why, sizeof why) == 0);
  cr_expect(occ_cluster_device_check(&square, &hopper, &odd, 4032, why, sizeof why) != 0 &&
            strstr(why, "64x63"));
}

Test(cluster_sweep, count_and_add) {
  occ_device hopper = {.cc_major = 9}, ampere = {.cc_major = 8};
  cr_expect_eq(occ_cluster_sweep_count(&ampere, 1000), 0);
  cr_expect_eq(occ_cluster_sweep_count(&hopper, 1000), 100);
  cr_expect_eq(occ_cluster_sweep_count(&hopper, 5), 1);
  occ_cluster_sweep_summary s = {0};
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.api_checked = v.api_agrees = v.measured_checked = true;
  v.placement_agrees = v.driver_agrees = true;
  occ_cluster_sweep_add(&s, &v); /* measured disagrees */
  v.measured_agrees = v.agree = true;
  occ_cluster_sweep_add(&s, &v);
  cr_expect(s.cases == 2 && s.agree == 1 && s.api_agree == 2 &&
            s.measured_checked == 2 && s.measured_agree == 1 &&
            s.placement_agree == 2);
}

/* The verifier's text section, malloc'd. */
static char *printed(const occ_cluster_verify *v) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  cr_assert(out);
  occ_print_cluster_verify(out, v);
  fclose(out);
  return text;
}

Test(cluster_verify_out, json_nulls_what_was_not_measured) {
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.cluster = (occ_cluster){{2, 1, 1}, false};
  v.cluster_prediction.cluster_size = 2;
  v.run.api_max_active_clusters = 528;
  cJSON *j = occ_json_cluster_verify(&v);
  cr_assert(j);
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "predicted_max_active_clusters")));
  cr_expect(cJSON_IsNull(
      cJSON_GetObjectItem(j, "predicted_launch_max_active_clusters")));
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "measured_min")));
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "domains_used_sms")));
  cr_expect_eq(int_of(j, "api_max_active_clusters"), 528);
  cJSON_Delete(j);
  v.cluster_prediction.layout_known = true;
  v.cluster_prediction.max_active_clusters = 528;
  v.run.launched = true;
  v.run.measured_min = 527;
  v.run.measured_max = 528;
  v.run.sm_groups = 2;
  v.run.sm_group_sms[0] = 18;
  v.run.sm_group_sms[1] = 16;
  j = occ_json_cluster_verify(&v);
  cr_assert(j);
  cr_expect_eq(int_of(j, "predicted_max_active_clusters"), 528);
  cr_expect_eq(int_of(j, "measured_min"), 527);
  cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "domains_used_sms")), 2);
  cJSON_Delete(j);
}

Test(cluster_verify_out, text_names_cudart_measured_and_placement) {
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.cluster = (occ_cluster){{2, 1, 1}, false};
  v.cluster_prediction = (occ_cluster_result){.cluster_size = 2,
                                              .layout_known = true,
                                              .max_active_clusters = 528};
  v.run.api_max_active_clusters = v.run.driver_api_max_active_clusters = 528;
  v.run.launched = true;
  v.run.launches = 3;
  v.run.measured_min = v.run.measured_max = 528;
  v.run.sm_groups = 1;
  v.run.sm_group_sms[0] = 2;
  occ_verify_cluster_judge(&v);
  char *text = printed(&v);
  cr_expect(strstr(text, "528 clusters at once"), "%s", text);
  cr_expect(strstr(text, "528 (cudaOccupancyMaxActiveClusters), driver 528"), "%s", text);
  cr_expect(strstr(text, "528..528 clusters co-resident over 3"), "%s", text);
  cr_expect(strstr(text, "no two blocks of a cluster shared an SM"), "%s", text);
  cr_expect(strstr(text, "verdict             agree"), "%s", text);
  cr_expect(!strstr(text, "at launch"), "%s", text);
  free(text);
}

/* Under --carveout 28 the driver configures more than the API's rule: the
 * text shows both predictions and judges the measurement by the one at
 * launch; JSON names it as the block verifier does. */
Test(cluster_verify_out, the_prediction_at_launch_beside_the_api_s,
     .init = load_db, .fini = free_db) {
  occ_device d = board("H100 SXM");
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.cluster = (occ_cluster){{4, 1, 1}, false};
  v.probe = test_kernel(32, 0, 12288, 64, 28);
  cr_assert_eq(occ_verify_cluster_predict(&d, &v), OCC_OK);
  v.run.api_max_active_clusters = v.run.driver_api_max_active_clusters = 124;
  v.run.launched = true;
  v.run.launches = 3;
  v.run.measured_min = v.run.measured_max = 216;
  occ_verify_cluster_judge(&v);
  char *text = printed(&v);
  cr_expect(strstr(text, "  predicted              124 clusters at once\n"
                         "  predicted at launch    216 clusters: the driver "
                         "configures 100 KB, not 64 KB\n"),
            "%s", text);
  cr_expect(strstr(text, "216..216 clusters co-resident"), "%s", text);
  cr_expect(strstr(text, "verdict             agree (prediction agree, "
                         "measured agree)"),
            "%s", text);
  free(text);
  cJSON *j = occ_json_cluster_verify(&v);
  cr_assert(j);
  cr_expect_eq(int_of(j, "predicted_max_active_clusters"), 124);
  cr_expect_eq(int_of(j, "predicted_launch_max_active_clusters"), 216);
  cr_expect_eq(int_of(j, "api_max_active_clusters"), 124);
  cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "agree")));
  cJSON_Delete(j);
}

/* run's rows: a cluster launch's occupancy, limiter and likely cause follow
 * the cluster rule (model/cluster.h, measure.c). */
Test(run_cluster_row, occupancy_and_cause_by_the_cluster_rule,
     .init = load_db, .fini = free_db) {
  occ_device d = board("H100 SXM");
  occ_item item = {.device = &d};
  item.kernel = test_kernel(32, 0, 0, 128, OCC_CARVEOUT_DEFAULT);
  occ_model_request request = {.grid_blocks = 1056 * 3};
  occ_model_section failed;
  cr_assert_eq(occ_model_build(&item, &request, &failed), OCC_OK);
  cr_expect_eq(occ_model_occupancy(&item), item.result.occupancy); /* none */
  occ_cluster cluster;
  cr_assert(occ_model_cluster_of_dims((const int[3]){2, 1, 1}, &cluster));
  cr_expect(!occ_model_cluster_of_dims((const int[3]){1, 1, 1}, &cluster));
  cr_expect(!occ_model_cluster_of_dims((const int[3]){0, 0, 0}, &cluster));
  cr_assert(occ_model_cluster_of_dims((const int[3]){12, 1, 1}, &cluster) &&
            cluster.non_portable);
  cr_assert(occ_model_cluster_of_dims((const int[3]){2, 1, 1}, &cluster));
  cr_assert_eq(occ_model_cluster(&item, &cluster, request.grid_blocks), OCC_OK);
  /* 528 clusters of 2 at 8 blocks per SM: half the API's 16. */
  cr_expect_eq(item.cluster_result.max_active_clusters, 528);
  cr_expect_float_eq(occ_model_occupancy(&item), 0.5, 1e-12);
  cr_expect(occ_model_limited_by_cluster(&item));
  /* Achieved 45 %: within 10 points of the cluster rule's 50 %, so no
   * cause, though 55 points below the API's 100 %. */
  occ_measure m = {.achieved_known = true, .achieved = 0.45, .mean_us = 50};
  occ_measure_derive(&item, &m);
  cr_expect_str_empty(m.cause);
  /* 1584 clusters over 528 a wave: 3 whole waves, no wave cause. At 30 %,
   * the cause is not the waves of blocks (1.5 of 2112). */
  m = (occ_measure){.achieved_known = true, .achieved = 0.30, .mean_us = 50};
  occ_measure_derive(&item, &m);
  cr_expect(strstr(m.cause, "imbalance") && !strstr(m.cause, "partial"), "%s",
            m.cause);
}

/* run's occupancy at launch for a cluster launch: the cluster rule over
 * what the SM holds as the driver configured it, not the kernel's count
 * without clusters (measure.c, model/cluster.h). */
Test(run_cluster_row, at_launch_by_the_cluster_rule, .init = load_db,
     .fini = free_db) {
  occ_device d = board("H100 SXM");
  occ_cluster cluster;
  cr_assert(occ_model_cluster_of_dims((const int[3]){2, 1, 1}, &cluster));
  occ_item item = {.device = &d};
  item.kernel = test_kernel(32, 0, 0, 128, OCC_CARVEOUT_DEFAULT);
  occ_model_request request = {.grid_blocks = 1056, .cluster = &cluster};
  occ_model_section failed;
  cr_assert_eq(occ_model_build(&item, &request, &failed), OCC_OK);
  occ_measure m = {.smem_executed_bytes = 32768};
  occ_measure_derive(&item, &m);
  /* 16 blocks fit without clusters; a cluster launch holds 8. */
  cr_expect_float_eq(m.launch_occupancy, 0.5, 1e-12);
  cr_expect_eq(item.launch_cluster_result.active_blocks, 1056);

  /* 12 KB dynamic under a 28 % carveout: the API's 4 blocks per SM, 7 as
   * the driver configures 100 KB; clusters of 4 then hold 216 clusters
   * (864 blocks) where the API's count gives 124 (496). */
  occ_item carve = {.device = &d};
  carve.kernel = test_kernel(32, 0, 12288, 64, 28);
  cr_assert(occ_model_cluster_of_dims((const int[3]){4, 1, 1}, &cluster));
  cr_assert_eq(occ_model_build(&carve, &request, &failed), OCC_OK);
  cr_expect_eq(carve.cluster_result.active_blocks, 496);
  cr_expect_eq(carve.launch_cluster_result.active_blocks, 864);
  m = (occ_measure){.smem_executed_bytes = 102400};
  occ_measure_derive(&carve, &m);
  cr_expect_float_eq(m.launch_occupancy, 864.0 * 2 / (132 * 64), 1e-12);
  m = (occ_measure){0}; /* not recorded: the launch rule's 7 blocks */
  occ_measure_derive(&carve, &m);
  cr_expect_float_eq(m.launch_occupancy, 864.0 * 2 / (132 * 64), 1e-12);
}
