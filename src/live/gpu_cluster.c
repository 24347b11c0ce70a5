/* gpu_cluster.c - the cluster probe: the occupancy API's clusters and a timeline of
 * cluster launches on a device of compute capability 9.0 or newer (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <stdio.h>
#include <string.h>

#include "live/cluster_timeline.h"

/* A launch of grid blocks in clusters of size along x, in the driver's
 * form; *attr must outlive the configuration. */
static CUlaunchConfig cluster_launch_config(int64_t grid, int size,
                                            const occ_probe_config *p,
                                            CUlaunchAttribute *attr) {
  CUlaunchConfig c;
  memset(&c, 0, sizeof c);
  memset(attr, 0, sizeof *attr);
  c.gridDimX = (unsigned)grid;
  c.gridDimY = c.gridDimZ = 1;
  c.blockDimX = (unsigned)p->block_threads;
  c.blockDimY = c.blockDimZ = 1;
  c.sharedMemBytes = (unsigned)p->smem_dynamic_bytes;
  attr->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr->value.clusterDim.x = (unsigned)size;
  attr->value.clusterDim.y = attr->value.clusterDim.z = 1;
  c.attrs = attr;
  c.numAttrs = 1;
  return c;
}

/* The non-portable size allowance, set (or cleared: the probe is reused)
 * through the runtime and on the context's function, as occ_gpu_set_smem_attrs. */
static occ_gpu_status set_cluster_attrs(const kernel_handles *k, bool allowed,
                                        char *err, size_t err_size) {
  RT(occ_rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributeNonPortableClusterSizeAllowed,
                              allowed ? 1 : 0));
  DRV(occ_drv.cuFuncSetAttribute(
      k->function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
      allowed ? 1 : 0));
  return OCC_GPU_OK;
}

/* cudart's cudaOccupancyMaxActiveClusters and the driver's answer beside
 * it, for a grid of whole clusters (the grid does not change the answer),
 * and the largest cluster the driver would allow. */
static occ_gpu_status ask_clusters(const kernel_handles *k,
                                   const occ_cluster_probe_config *cfg,
                                   occ_cluster_probe_run *run, char *err,
                                   size_t err_size) {
  int size = cfg->cluster_size;
  cudaLaunchAttribute rattr;
  memset(&rattr, 0, sizeof rattr);
  rattr.id = cudaLaunchAttributeClusterDimension;
  rattr.val.clusterDim.x = (unsigned)size;
  rattr.val.clusterDim.y = rattr.val.clusterDim.z = 1;
  cudaLaunchConfig_t rcfg;
  memset(&rcfg, 0, sizeof rcfg);
  rcfg.gridDim.x = (unsigned)size * 64;
  rcfg.gridDim.y = rcfg.gridDim.z = 1;
  rcfg.blockDim.x = (unsigned)cfg->probe.block_threads;
  rcfg.blockDim.y = rcfg.blockDim.z = 1;
  rcfg.dynamicSmemBytes = (size_t)cfg->probe.smem_dynamic_bytes;
  rcfg.attrs = &rattr;
  rcfg.numAttrs = 1;
  RT(occ_rt->cudaOccupancyMaxActiveClusters(&run->api_max_active_clusters,
                                        (const void *)k->kernel, &rcfg));
  CUlaunchAttribute dattr;
  CUlaunchConfig dcfg = cluster_launch_config((int64_t)size * 64, size,
                                              &cfg->probe, &dattr);
  DRV(occ_drv.cuOccupancyMaxActiveClusters(&run->driver_api_max_active_clusters,
                                       k->function, &dcfg));
  dcfg.numAttrs = 0; /* the potential size is asked without one */
  DRV(occ_drv.cuOccupancyMaxPotentialClusterSize(&run->max_potential_cluster_size,
                                             k->function, &dcfg));
  return OCC_GPU_OK;
}

/* Folds one launch's clusters into the run: the peak into min..max, the
 * placement summed; of the SM groups, the launch with the fewest is kept
 * (a join never crosses a domain, so fewer groups are nearer the
 * domains). */
static void fold_launch(const occ_cluster_residency *c, int blocks_per_sm,
                        occ_cluster_probe_run *run) {
  if (run->launches == 0 || c->peak_clusters < run->measured_min)
    run->measured_min = c->peak_clusters;
  if (c->peak_clusters > run->measured_max) run->measured_max = c->peak_clusters;
  if (blocks_per_sm > run->measured_blocks_per_sm_max)
    run->measured_blocks_per_sm_max = blocks_per_sm;
  run->clusters_sharing_sm += c->clusters_sharing_sm;
  if (run->launches == 0 || c->groups < run->sm_groups) {
    run->sm_groups = c->groups;
    memcpy(run->sm_group_sms, c->group_sms, sizeof run->sm_group_sms);
  }
  run->launches++;
}

/* One timeline launch of grid blocks in clusters, counted. */
static occ_gpu_status cluster_launch(occ_gpu *gpu, CUfunction fn,
                                     const occ_cluster_probe_config *cfg,
                                     int64_t grid, occ_cluster_probe_run *run,
                                     char *err, size_t err_size) {
  unsigned long long spin_ns = SPIN_NS;
  long long max_cycles = (long long)spin_ns * SPIN_CYCLES_PER_NS + 100000;
  void *args[] = {&gpu->records_dev, &gpu->seed_dev, &gpu->sink_dev, &spin_ns,
                  &max_cycles};
  CUlaunchAttribute attr;
  CUlaunchConfig c = cluster_launch_config(grid, cfg->cluster_size,
                                           &cfg->probe, &attr);
  DRV(occ_drv.cuMemsetD8Async(gpu->records_dev, 0,
                          (size_t)grid * sizeof(probe_record), NULL));
  CUresult r = occ_drv.cuLaunchKernelEx(&c, fn, args, NULL);
  occ_gpu_status s = occ_gpu_wait_idle(cfg->probe.deadline_s, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (r != CUDA_SUCCESS) {
    run->launched = false;
    occ_drv_error_name(r, run->launch_error, sizeof run->launch_error);
    return OCC_GPU_OK;
  }
  run->launched = true;
  DRV(occ_drv.cuMemcpyDtoH(gpu->records_host, gpu->records_dev,
                       (size_t)grid * sizeof(probe_record)));
  const occ_device *d = &gpu->device;
  occ_residency blocks;
  occ_cluster_residency clusters;
  int64_t bad = 0;
  occ_timeline_status t = occ_timeline_residency(
      gpu->records_host, grid, d->sm_count, 1, occ_device_max_warps(d),
      &blocks, &bad);
  if (t == OCC_TIMELINE_OK)
    t = occ_cluster_residency_compute(gpu->records_host, grid,
                                      cfg->cluster_size, &clusters, &bad);
  if (t == OCC_TIMELINE_NOMEM) {
    snprintf(err, err_size, "out of memory");
    return OCC_GPU_ERR_NOMEM;
  }
  if (t == OCC_TIMELINE_NO_RECORD) {
    snprintf(err, err_size, "probe block %lld left no timeline record",
             (long long)bad);
    return OCC_GPU_ERR_CUDA;
  }
  fold_launch(&clusters, blocks.max_blocks, run);
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_cluster_probe(occ_gpu *gpu,
                                     const occ_cluster_probe_config *cfg,
                                     occ_cluster_probe_run *run, char *err,
                                     size_t err_size) {
  memset(run, 0, sizeof *run);
  const occ_device *d = &gpu->device;
  if (d->cc_major < 9) {
    snprintf(err, err_size, "device %d (%s) has compute capability %d.%d: "
             "thread block clusters need 9.0 or newer", gpu->ordinal, d->name,
             d->cc_major, d->cc_minor);
    return OCC_GPU_ERR_DEVICE;
  }
  const occ_probe_config *p = &cfg->probe;
  kernel_handles k;
  bool cached;
  occ_gpu_status s = occ_gpu_probe_load(gpu, p, &k, &cached, &run->jit_ms, err,
                                        err_size);
  if (s != OCC_GPU_OK) return s;
  occ_probe_run attrs;
  if ((s = occ_gpu_probe_attrs(k.function, &attrs, err, err_size)) != OCC_GPU_OK ||
      (s = occ_gpu_set_smem_attrs(gpu, &k, p->smem_dynamic_bytes,
                          attrs.smem_static_bytes, p->carveout_pct, err,
                          err_size)) != OCC_GPU_OK ||
      (s = set_cluster_attrs(&k, cfg->non_portable, err, err_size)) !=
          OCC_GPU_OK)
    return s;
  run->regs_per_thread = attrs.regs_per_thread;
  int driver_blocks;
  if ((s = occ_gpu_ask_occupancy(&k, p->block_threads, p->smem_dynamic_bytes,
                         &run->api_blocks_per_sm, &driver_blocks, err,
                         err_size)) != OCC_GPU_OK ||
      (s = ask_clusters(&k, cfg, run, err, err_size)) != OCC_GPU_OK)
    return s;
  /* WAVES x the API's clusters, or the caller's expected ones where more
   * (the configuration at launch can hold more), keep every domain full;
   * one cluster, to be refused, when neither expects any. Never more than
   * the records. */
  int64_t expected = run->api_max_active_clusters;
  if (cfg->expected_clusters > expected) expected = cfg->expected_clusters;
  int64_t clusters = expected > 0 ? WAVES * expected : 1;
  if (clusters * cfg->cluster_size > gpu->records_cap)
    clusters = gpu->records_cap / cfg->cluster_size;
  run->grid_blocks = clusters * cfg->cluster_size;
  double t0 = occ_gpu_now_s();
  for (int i = 0; i < OCC_CLUSTER_PROBE_LAUNCHES; i++) {
    s = cluster_launch(gpu, k.function, cfg, run->grid_blocks, run, err,
                       err_size);
    if (s != OCC_GPU_OK || !run->launched) break;
  }
  run->launch_ms = occ_ms_since(t0);
  return s;
}
