/* cluster_verify.c - the live cluster verification's judge and the sweep's
 * cluster cases (model/verify.h, live/verify.h), without a GPU. Part of make test-cluster-unit. */
#include <criterion/criterion.h>
#include <string.h>

#include "live/verify.h"

static occ_cluster_verify agreeing(void) {
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.cluster_prediction.layout_known = true;
  v.cluster_prediction.max_active_clusters = 327;
  v.launch_cluster_prediction = v.cluster_prediction;
  v.run.api_max_active_clusters = 327;
  v.run.driver_api_max_active_clusters = 327;
  v.run.launched = true;
  v.run.measured_min = v.run.measured_max = 327;
  return v;
}

Test(cluster_verify, judge_agrees_and_names_each_difference) {
  occ_cluster_verify v = agreeing();
  occ_verify_cluster_judge(&v);
  cr_expect(v.agree && v.api_checked && v.api_agrees && v.measured_agrees);
  v = agreeing();
  v.cluster_prediction.max_active_clusters = 312; /* SMs x B / C: wrong */
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree && !v.api_agrees && v.measured_agrees);
  v = agreeing();
  v.run.measured_min = 326;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree && !v.measured_agrees);
  v = agreeing();
  v.run.clusters_sharing_sm = 1;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree && !v.placement_agrees);
  v = agreeing();
  v.run.driver_api_max_active_clusters = 0;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree && !v.driver_agrees);
}

/* No layout: the prediction is not compared (unknown, not a failure);
 * the API, the driver and the hardware still are, the hardware against
 * cudart's answer while the SM holds at launch what the API's rule
 * says, and not at all where it holds more (nothing to judge it by). */
Test(cluster_verify, unknown_layout_is_not_compared) {
  occ_cluster_verify v = agreeing();
  v.cluster_prediction.layout_known = false;
  v.cluster_prediction.max_active_clusters = 0;
  v.launch_cluster_prediction = v.cluster_prediction;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.api_checked && v.measured_checked && v.measured_agrees);
  cr_expect(v.agree);
  v.run.measured_max = 328;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree && !v.measured_agrees);
  v.prediction.active_blocks_per_sm = 4;
  v.prediction.launch_active_blocks_per_sm = 7;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.measured_checked && v.agree);
}

/* The probe of --regs 32 --block 64 --dyn-smem 12288 --carveout 28
 * --cluster 4, predicted on the H100 SXM as occ_verify_cluster does: the
 * occupancy API's rule configures 64 KB (4 blocks per SM, 124 clusters),
 * the driver 100 KB (7 blocks per SM, 216 clusters, as measured on the
 * H200, whose layout is the same). */
static occ_cluster_verify carveout_case(void) {
  occ_device d;
  occ_gpudb *db;
  char err[256], near[128];
  cr_assert_not_null(db = occ_gpudb_load_builtin(err, sizeof err));
  cr_assert_eq(occ_gpudb_find_gpu(db, "H100 SXM", &d, near, sizeof near), 0);
  occ_gpudb_free(db);
  occ_cluster_verify v;
  memset(&v, 0, sizeof v);
  v.cluster = (occ_cluster){{4, 1, 1}, false};
  occ_kernel_init(&v.probe);
  v.probe.regs_per_thread = 32;
  v.probe.block[0] = 64;
  v.probe.smem_dynamic_bytes = 12288;
  v.probe.carveout_pct = 28;
  cr_assert_eq(occ_verify_cluster_predict(&d, &v), OCC_OK);
  v.run.api_max_active_clusters = v.run.driver_api_max_active_clusters = 124;
  v.run.launched = true;
  v.run.launches = 3;
  return v;
}

Test(cluster_verify,
     the_prediction_at_launch_is_the_rule_over_the_driver_s_configuration) {
  occ_cluster_verify v = carveout_case();
  cr_expect_eq(v.prediction.active_blocks_per_sm, 4);
  cr_expect_eq(v.prediction.launch_active_blocks_per_sm, 7);
  cr_expect_eq(v.cluster_prediction.max_active_clusters, 124);
  cr_expect_eq(v.launch_cluster_prediction.max_active_clusters, 216);
  cr_expect(occ_verify_cluster_launch_differs(&v));
  int64_t expected = 0;
  cr_expect(occ_verify_cluster_expected(&v, &expected) && expected == 216);
}

/* The GPU holds the clusters at launch: agree, the API still matching
 * the prediction by its own rule. */
Test(cluster_verify, measured_at_launch_agrees) {
  occ_cluster_verify v = carveout_case();
  v.run.measured_min = v.run.measured_max = 216;
  occ_verify_cluster_judge(&v);
  cr_expect(v.api_checked && v.api_agrees && v.driver_agrees);
  cr_expect(v.measured_checked && v.measured_agrees);
  cr_expect(v.agree);
}

/* Measuring the API's count under this carveout would be a finding. */
Test(cluster_verify, measured_at_the_api_s_count_disagrees) {
  occ_cluster_verify v = carveout_case();
  v.run.measured_min = v.run.measured_max = 124;
  occ_verify_cluster_judge(&v);
  cr_expect(v.api_agrees && v.measured_checked && !v.measured_agrees);
  cr_expect(!v.agree);
  /* The API's answers are still judged by the API's rule. */
  v = carveout_case();
  v.run.measured_min = v.run.measured_max = 216;
  v.run.api_max_active_clusters = v.run.driver_api_max_active_clusters = 216;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.api_agrees && v.measured_agrees && !v.agree);
}

Test(cluster_verify, the_sweep_counts_cases_whose_launch_differs) {
  occ_cluster_sweep_summary s;
  memset(&s, 0, sizeof s);
  occ_cluster_verify v = carveout_case();
  v.run.measured_min = v.run.measured_max = 216;
  occ_verify_cluster_judge(&v);
  occ_cluster_sweep_add(&s, &v);
  v = agreeing();
  occ_verify_cluster_judge(&v);
  occ_cluster_sweep_add(&s, &v);
  cr_expect(s.cases == 2 && s.agree == 2 && s.measured_agree == 2 &&
            s.launch_differs == 1);
}

/* What no prediction holds (0 clusters) must not launch. */
Test(cluster_verify, a_refused_launch_agrees_only_with_zero) {
  occ_cluster_verify v = agreeing();
  v.cluster_prediction.max_active_clusters = 0;
  v.launch_cluster_prediction.max_active_clusters = 0;
  v.run.api_max_active_clusters = v.run.driver_api_max_active_clusters = 0;
  v.run.launched = false;
  occ_verify_cluster_judge(&v);
  cr_expect(v.agree);
  v.run.launched = true;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.agree);
}

Test(cluster_verify, sweep_cases_cover_sizes_1_to_16) {
  occ_device d;
  memset(&d, 0, sizeof d);
  occ_gpudb *db;
  char err[256], near[128];
  cr_assert_not_null(db = occ_gpudb_load_builtin(err, sizeof err));
  cr_assert_eq(occ_gpudb_find_gpu(db, "H100", &d, near, sizeof near), 0);
  occ_gpudb_free(db);
  uint64_t state = 1, again = 1;
  bool seen[17] = {false};
  for (int i = 0; i < 400; i++) {
    occ_kernel k, k2;
    occ_cluster c, c2;
    occ_sweep_cluster_case(&d, &state, &k, &c);
    occ_sweep_cluster_case(&d, &again, &k2, &c2);
    cr_assert(k.regs_per_thread == k2.regs_per_thread &&
                  k.block[0] == k2.block[0] &&
                  k.smem_dynamic_bytes == k2.smem_dynamic_bytes &&
                  k.carveout_pct == k2.carveout_pct && c.dim[0] == c2.dim[0] &&
                  c.non_portable == c2.non_portable,
              "the same seed gives the same cases");
    cr_assert_eq(c.non_portable, c.dim[0] > 8);
    cr_assert_eq(occ_cluster_check(&d, &c), OCC_CLUSTER_OK);
    seen[c.dim[0]] = true;
  }
  for (int s = 1; s <= 16; s++) cr_expect(seen[s], "size %d never drawn", s);
}
