/* cluster_gpu.c - the live cluster probe (occ_gpu_cluster_probe) on a real
 * GPU: for cluster sizes 1 to 16 at several block sizes, shared-memory
 * sizes and register caps, the offline rule (core/cluster.h, with the
 * database's layout of the board) = cudart's cudaOccupancyMaxActiveClusters
 * = the driver's = the co-resident clusters measured, and no cluster had two
 * blocks on one SM; the placement (SM groups) of each case is printed. Exit
 * 77 (skipped) without a GPU of compute capability 9.0 or newer, or without
 * a surveyed board; 1 on a difference. Then SWEEP_CASES random cluster
 * cases (occ_sweep_cluster_case, seed 1, half of them with a carveout
 * preference) through occ_verify_cluster, which must all agree: the
 * measured clusters are judged against the rule at launch. make
 * test-gpu-cluster. */
#define SWEEP_CASES 300
#include <stdio.h>
#include <string.h>

#include "core/cluster.h"
#include "db/gpudb.h"
#include "live/gpu.h"
#include "live/verify.h"

static int failures;

static void expect(bool ok, const char *what, const char *config) {
  if (ok) return;
  failures++;
  printf("gpu-cluster: FAILED: %s: %s\n", config, what);
}

/* The groups of SMs the launch joined lie inside the board's domains that
 * fit the cluster: no more SMs in all than those domains hold, and no group
 * larger than the largest. *exact: the groups are those domains. */
static bool groups_fit(const occ_cluster_probe_run *run, const occ_device *d,
                       int size, bool *exact) {
  int fitting[OCC_CLUSTER_DOMAINS_MAX], n = 0, domain_sms = 0, group_sms = 0;
  for (int i = 0; i < d->cluster_domain_count; i++)
    if (d->cluster_domain_sms[i] >= size) {
      fitting[n++] = d->cluster_domain_sms[i];
      domain_sms += d->cluster_domain_sms[i];
    }
  int listed = run->sm_groups < OCC_CLUSTER_DOMAINS_MAX ? run->sm_groups
                                                        : OCC_CLUSTER_DOMAINS_MAX;
  *exact = run->sm_groups == n;
  for (int i = 0; i < listed; i++) {
    group_sms += run->sm_group_sms[i];
    *exact &= i < n && run->sm_group_sms[i] == fitting[i];
  }
  if (run->sm_groups > listed) /* the rest are no larger than the last */
    group_sms += (run->sm_groups - listed) * run->sm_group_sms[listed - 1];
  return n > 0 && run->sm_group_sms[0] <= fitting[0] && group_sms <= domain_sms;
}

static void one(occ_gpu *gpu, const occ_device *d, int regs, int block,
                int64_t smem, int size) {
  char config[128], err[512];
  snprintf(config, sizeof config, "regs %d, block %d, smem %lld, cluster %d",
           regs, block, (long long)smem, size);
  occ_cluster_probe_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.probe.regs_per_thread = regs;
  cfg.probe.block_threads = block;
  cfg.probe.smem_dynamic_bytes = smem;
  cfg.probe.carveout_pct = OCC_CARVEOUT_DEFAULT;
  cfg.cluster_size = size;
  cfg.non_portable = size > OCC_CLUSTER_PORTABLE_MAX;
  occ_cluster_probe_run run;
  if (occ_gpu_cluster_probe(gpu, &cfg, &run, err, sizeof err) != OCC_GPU_OK) {
    expect(false, err, config);
    return;
  }
  occ_kernel k;
  occ_kernel_init(&k);
  k.block[0] = block;
  k.regs_per_thread = run.regs_per_thread;
  k.smem_dynamic_bytes = smem;
  occ_result r;
  occ_cluster cl = {{size, 1, 1}, cfg.non_portable};
  occ_cluster_result cr;
  if (occ_compute(d, &k, &r) != OCC_OK ||
      occ_cluster_compute(d, &r, &cl, &cr) != OCC_CLUSTER_OK || !cr.layout_known) {
    expect(false, "no offline answer", config);
    return;
  }
  bool exact = false;
  bool fit = run.launched && groups_fit(&run, d, size, &exact);
  printf("%s (%d regs): predicted %lld, cudart %d, driver %d, measured %d..%d"
         " (%d launches), blocks/SM %d (predicted %d), sharing %lld, SM groups %d%s\n",
         config, run.regs_per_thread, (long long)cr.max_active_clusters,
         run.api_max_active_clusters, run.driver_api_max_active_clusters,
         run.measured_min, run.measured_max, run.launches,
         run.measured_blocks_per_sm_max, cr.cluster_blocks_per_sm,
         (long long)run.clusters_sharing_sm, run.sm_groups,
         size < 2 ? "" : exact ? " (= the board's domains that fit)" : " (inside the board's domains)");
  expect(cr.max_active_clusters == run.api_max_active_clusters, "prediction != cudart", config);
  expect(run.driver_api_max_active_clusters == run.api_max_active_clusters,
         "driver != cudart", config);
  if (run.api_max_active_clusters == 0) {
    expect(!run.launched, "a launch the API refuses ran", config);
    return;
  }
  expect(run.launched, run.launch_error, config);
  expect(run.measured_min == run.api_max_active_clusters &&
             run.measured_max == run.api_max_active_clusters,
         "measured != cudart", config);
  expect(run.measured_blocks_per_sm_max == cr.cluster_blocks_per_sm,
         "blocks per SM under clusters", config);
  expect(run.clusters_sharing_sm == 0, "two blocks of a cluster on one SM", config);
  expect(size < 2 ? run.sm_groups == -1 : fit, "placement outside the domains", config);
}

/* Random cluster cases, their probes compiled ahead as a sweep's are. */
static int sweep(occ_gpu *gpu, const occ_device *d) {
  occ_kernel kernels[SWEEP_CASES];
  occ_cluster clusters[SWEEP_CASES];
  int caps[SWEEP_CASES], compiled, agree = 0, launch_differs = 0;
  uint64_t state = 1;
  for (int i = 0; i < SWEEP_CASES; i++) {
    occ_sweep_cluster_case(d, &state, &kernels[i], &clusters[i]);
    caps[i] = kernels[i].regs_per_thread;
  }
  char err[512], why[256];
  if (occ_gpu_probe_prepare(gpu, caps, SWEEP_CASES, &compiled, why, sizeof why,
                            err, sizeof err) != OCC_GPU_OK) {
    expect(false, err, "occ_gpu_probe_prepare");
    return 0;
  }
  printf("sweep: %d probes compiled ahead%s%s\n", compiled, why[0] ? ": " : "", why);
  occ_verify_options options = {.counter = false, .deadline_s = 0};
  for (int i = 0; i < SWEEP_CASES; i++) {
    occ_cluster_verify v;
    char config[160];
    snprintf(config, sizeof config, "sweep case %d: regs %d, block %d, smem %lld, "
             "carveout %d, cluster %d", i, kernels[i].regs_per_thread,
             kernels[i].block[0],
             (long long)(kernels[i].smem_static_bytes + kernels[i].smem_dynamic_bytes),
             kernels[i].carveout_pct, clusters[i].dim[0]);
    if (occ_verify_cluster(gpu, &kernels[i], &clusters[i], &options, &v, err,
                           sizeof err) != OCC_GPU_OK) {
      expect(false, err, config);
      continue;
    }
    agree += v.agree;
    launch_differs += occ_verify_cluster_launch_differs(&v);
    if (!v.agree)
      printf("%s: predicted %lld (at launch %lld), cudart %d, driver %d, "
             "measured %d..%d, sharing %lld\n", config,
             (long long)v.cluster_prediction.max_active_clusters,
             (long long)v.launch_cluster_prediction.max_active_clusters,
             v.run.api_max_active_clusters, v.run.driver_api_max_active_clusters,
             v.run.measured_min, v.run.measured_max,
             (long long)v.run.clusters_sharing_sm);
    expect(v.agree, "the sweep case disagrees", config);
  }
  printf("sweep: %d/%d cluster cases agree, %d predicted to hold more at "
         "launch than the API says\n", agree, SWEEP_CASES, launch_differs);
  return SWEEP_CASES;
}

int main(void) {
  char err[512];
  int count;
  if (occ_gpu_count(&count, err, sizeof err) != OCC_GPU_OK ||
      occ_gpu_runtime_open(err, sizeof err) != OCC_GPU_OK) {
    printf("skipped: no GPU (%.200s)\n", err);
    return 77;
  }
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  occ_gpu *gpu;
  if (!db || occ_gpu_open(0, db, &gpu, err, sizeof err) != OCC_GPU_OK) {
    printf("gpu-cluster: FAILED: %s\n", err);
    return 1;
  }
  const occ_device *d = occ_gpu_device(gpu);
  if (d->cc_major < 9 || d->cluster_domain_count == 0) {
    printf("skipped: %s (cc %d.%d) %s\n", d->name, d->cc_major, d->cc_minor,
           d->cc_major < 9 ? "has no clusters" : "was never surveyed");
    occ_gpu_close(gpu);
    occ_gpudb_free(db);
    return 77;
  }
  static const struct { int regs, block; int64_t smem; } kernels[] = {
      {32, 128, 0}, {32, 256, 40000}, {64, 128, 8192}, {128, 256, 0},
      {32, 1024, 0}, {32, 128, 100000}, {32, 128, 232448 - 1024}};
  int cases = 0;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    for (int size = 1; size <= 16; size++, cases++)
      one(gpu, d, kernels[i].regs, kernels[i].block, kernels[i].smem, size);
  /* 9 to 16 blocks without the non-portable allowance: the API refuses. */
  occ_cluster_probe_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.probe.regs_per_thread = 32;
  cfg.probe.block_threads = 128;
  cfg.probe.carveout_pct = OCC_CARVEOUT_DEFAULT;
  cfg.cluster_size = 12;
  occ_cluster_probe_run run;
  occ_gpu_status s = occ_gpu_cluster_probe(gpu, &cfg, &run, err, sizeof err);
  printf("cluster 12 without the non-portable allowance: %s\n",
         s == OCC_GPU_OK ? "accepted" : err);
  expect(s == OCC_GPU_ERR_CUDA, "a non-portable size was accepted", "cluster 12");
  cases += sweep(gpu, d);
  occ_gpu_close(gpu);
  occ_gpudb_free(db);
  printf("gpu-cluster: %d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}
