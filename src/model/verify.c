/* verify.c - the verifier's checks and verdicts (see verify.h). */
#include "model/verify.h"

#include "model/cluster.h"

const char occ_gpu_api_function[] =
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
const char occ_gpu_driver_api_function[] =
    "cuOccupancyMaxActiveBlocksPerMultiprocessor";

/* The API and the cooperative bound are checked against the occupancy
 * API's rule, the residency against what the SM holds at launch: the two
 * differ under a carveout preference (see occ.h). */
static bool judge_api(const occ_device *d, const occ_verify *v, int64_t *got,
                      int64_t *want) {
  (void)d;
  *got = v->run.api_blocks_per_sm;
  *want = v->prediction.active_blocks_per_sm;
  return true;
}

static bool judge_measured_min(const occ_device *d, const occ_verify *v,
                               int64_t *got, int64_t *want) {
  (void)d;
  *got = v->run.measured_min;
  *want = v->prediction.launch_active_blocks_per_sm;
  return true;
}

static bool judge_measured_max(const occ_device *d, const occ_verify *v,
                               int64_t *got, int64_t *want) {
  (void)d;
  *got = v->run.measured_max;
  *want = v->prediction.launch_active_blocks_per_sm;
  return true;
}

/* Only checked where it was tried; not part of the verdict, since the
 * cooperative bound is the API's, not the hardware's. */
static bool judge_cooperative(const occ_device *d, const occ_verify *v,
                              int64_t *got, int64_t *want) {
  *got = v->run.cooperative_max_blocks;
  *want = (int64_t)v->prediction.active_blocks_per_sm * d->sm_count;
  return v->run.coop_checked;
}

/* The SM's shared-memory configuration the driver chose for the timeline
 * launch (CUPTI) against the one predicted at launch, where both are
 * known (a prediction of 0 is none). Counted, not part of the verdict:
 * the rule is fitted to surveys, and residency does not follow from it
 * (the configuration always holds the blocks that fit). */
static bool judge_config(const occ_device *d, const occ_verify *v,
                         int64_t *got, int64_t *want) {
  (void)d;
  *got = v->run.smem_config_executed_bytes;
  *want = v->prediction.launch_smem_config_bytes;
  return *got >= 0 && *want > 0;
}

/* The driver's occupancy API for the same kernel, attributes and launch:
 * NVIDIA's two libraries should agree; where they do not, both answers
 * are shown. Counted, not part of the verdict, which judges the
 * prediction against the CUDA occupancy API (cudart's) and the GPU. */
static bool judge_driver_api(const occ_device *d, const occ_verify *v,
                             int64_t *got, int64_t *want) {
  (void)d;
  *got = v->run.driver_api_blocks_per_sm;
  *want = v->run.api_blocks_per_sm;
  return true;
}

const occ_check occ_checks[OCC_CHECK_COUNT] = {
    [OCC_CHECK_API] = {"api", "API == prediction", "the API says",
                       "the prediction", true, judge_api},
    [OCC_CHECK_MEASURED_MIN] = {"measured_min", "measured min == pred",
                                "fewest measured resident",
                                "the prediction at launch", true,
                                judge_measured_min},
    [OCC_CHECK_MEASURED_MAX] = {"measured_max", "measured max == pred",
                                "most measured resident",
                                "the prediction at launch", true,
                                judge_measured_max},
    [OCC_CHECK_COOPERATIVE] = {"cooperative", "cooperative bound",
                               "cooperative bound", "the prediction x SMs",
                               false, judge_cooperative},
    [OCC_CHECK_CONFIG] = {"config", "SM config == pred",
                          "the driver configured (B)",
                          "the prediction at launch", false, judge_config},
    [OCC_CHECK_DRIVER_API] = {"driver_api", "driver API == API",
                              "the driver's API says", "cudart's API", false,
                              judge_driver_api},
};

void occ_verify_judge(const occ_device *d, occ_verify *v) {
  v->made = v->failed = 0;
  v->agree = true;
  for (int i = 0; i < OCC_CHECK_COUNT; i++) {
    int64_t got, want;
    if (!occ_checks[i].judge(d, v, &got, &want)) continue;
    v->made |= 1u << i;
    if (got == want) continue;
    v->failed |= 1u << i;
    if (occ_checks[i].in_verdict) v->agree = false;
  }
}

bool occ_module_agrees(const occ_module_kernel *mk, const occ_result *prediction) {
  return mk->api_blocks_per_sm == prediction->active_blocks_per_sm;
}

unsigned occ_module_failed(const occ_module_kernel *mk,
                           const occ_result *prediction) {
  unsigned failed = 0;
  if (!occ_module_agrees(mk, prediction)) failed |= 1u << OCC_CHECK_API;
  if (mk->driver_api_blocks_per_sm != mk->api_blocks_per_sm)
    failed |= 1u << OCC_CHECK_DRIVER_API;
  return failed;
}

/* --- Thread block clusters --- */

occ_status occ_verify_cluster_predict(const occ_device *d,
                                      occ_cluster_verify *v) {
  occ_status st = occ_compute(d, &v->probe, &v->prediction);
  if (st != OCC_OK) return st;
  if (occ_cluster_compute(d, &v->prediction, &v->cluster,
                          &v->cluster_prediction) != OCC_CLUSTER_OK ||
      occ_model_cluster_at(d, &v->prediction,
                           v->prediction.launch_active_blocks_per_sm,
                           &v->cluster, &v->launch_cluster_prediction) !=
          OCC_CLUSTER_OK)
    return OCC_ERR_INVALID_DEVICE;
  return OCC_OK;
}

bool occ_verify_cluster_expected(const occ_cluster_verify *v,
                                 int64_t *clusters) {
  if (v->launch_cluster_prediction.layout_known) {
    *clusters = v->launch_cluster_prediction.max_active_clusters;
    return true;
  }
  if (v->prediction.launch_active_blocks_per_sm ==
      v->prediction.active_blocks_per_sm) {
    *clusters = v->run.api_max_active_clusters;
    return true;
  }
  return false;
}

bool occ_verify_cluster_launch_differs(const occ_cluster_verify *v) {
  return v->cluster_prediction.layout_known &&
         v->launch_cluster_prediction.layout_known &&
         v->launch_cluster_prediction.max_active_clusters !=
             v->cluster_prediction.max_active_clusters;
}

void occ_verify_cluster_judge(occ_cluster_verify *v) {
  const occ_cluster_probe_run *r = &v->run;
  v->api_checked = v->cluster_prediction.layout_known;
  v->api_agrees = v->api_checked && v->cluster_prediction.max_active_clusters ==
                                        r->api_max_active_clusters;
  v->driver_agrees =
      r->driver_api_max_active_clusters == r->api_max_active_clusters;
  /* A launch expected to hold clusters must run and hold that many; one
   * expected to hold none must be refused. */
  int64_t expected = 0;
  v->measured_checked = occ_verify_cluster_expected(v, &expected);
  if (!v->measured_checked)
    v->measured_agrees = false;
  else if (expected == 0)
    v->measured_agrees = !r->launched;
  else
    v->measured_agrees = r->launched && r->measured_min == expected &&
                         r->measured_max == expected;
  v->placement_agrees = r->clusters_sharing_sm == 0;
  v->agree = (!v->api_checked || v->api_agrees) && v->driver_agrees &&
             (!v->measured_checked || v->measured_agrees) &&
             v->placement_agrees;
}

void occ_cluster_sweep_add(occ_cluster_sweep_summary *s,
                           const occ_cluster_verify *v) {
  s->cases++;
  s->agree += v->agree;
  s->api_checked += v->api_checked;
  s->api_agree += v->api_checked && v->api_agrees;
  s->measured_checked += v->measured_checked;
  s->measured_agree += v->measured_checked && v->measured_agrees;
  s->placement_agree += v->placement_agrees;
  s->driver_agree += v->driver_agrees;
  s->launch_differs += occ_verify_cluster_launch_differs(v);
}
