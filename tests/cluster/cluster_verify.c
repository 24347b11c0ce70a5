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
 * the API, the driver and the hardware still are. */
Test(cluster_verify, unknown_layout_is_not_compared) {
  occ_cluster_verify v = agreeing();
  v.cluster_prediction.layout_known = false;
  v.cluster_prediction.max_active_clusters = 0;
  occ_verify_cluster_judge(&v);
  cr_expect(!v.api_checked);
  cr_expect(v.agree);
}

/* What the API refuses (0 clusters) must not launch. */
Test(cluster_verify, a_refused_launch_agrees_only_with_zero) {
  occ_cluster_verify v = agreeing();
  v.cluster_prediction.max_active_clusters = 0;
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
