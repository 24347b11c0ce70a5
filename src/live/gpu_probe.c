/* gpu_probe.c - the probe kernel on a device: loaded per register cap, its
 * occupancy asked of the API and measured on a timeline, the cooperative
 * bound, the hardware counter (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "live/activity.h"

/* The kernel's function in the device's context; under lazy loading (the
 * default) this is what loads the library there, JIT-compiling PTX. */
occ_gpu_status occ_gpu_kernel_function(kernel_handles *k, char *err,
                                      size_t err_size) {
  DRV(occ_drv.cuKernelGetFunction(&k->function, (CUkernel)k->kernel));
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_probe_handles(probe_module *p, char *err,
                                    size_t err_size) {
  RT(occ_rt->cudaLibraryGetKernel(&p->k.kernel, p->library, "occ_probe"));
  return occ_gpu_kernel_function(&p->k, err, err_size);
}

/* Appends " (LOG)" to err when the JIT left a log. */
static void append_log(const char *log, char *err, size_t err_size) {
  size_t used = strlen(err);
  if (log[0]) snprintf(err + used, err_size - used, " (%s)", log);
}

/* Loads the probe with the runtime, the JIT's max-registers option set to
 * cap, once per cap: the probe keeps more live values than any cap, so it
 * gets exactly cap registers (read back by the caller). */
occ_gpu_status occ_gpu_probe_kernel(occ_gpu *gpu, int cap, kernel_handles *k,
                                   bool *cached, char *err, size_t err_size) {
  probe_module *p = &gpu->probes[cap];
  *cached = p->library != NULL;
  if (!p->library) {
    gpu->jit_log[0] = '\0';
    enum cudaJitOption opts[] = {cudaJitMaxRegisters, cudaJitErrorLogBuffer,
                                 cudaJitErrorLogBufferSizeBytes};
    void *vals[] = {(void *)(uintptr_t)cap, gpu->jit_log,
                    (void *)(uintptr_t)sizeof gpu->jit_log};
    cudaError_t e = occ_rt->cudaLibraryLoadData(&p->library, occ_probe_ptx, opts,
                                            vals, 3, NULL, NULL, 0);
    if (e != cudaSuccess) {
      p->library = NULL;
      occ_gpu_status s = occ_rt_fail(e, "cudaLibraryLoadData", __FILE__, __LINE__,
                                 err, err_size);
      append_log(gpu->jit_log, err, err_size);
      return s;
    }
    occ_gpu_status s = occ_gpu_probe_handles(p, err, err_size);
    if (s != OCC_GPU_OK) {
      append_log(gpu->jit_log, err, err_size);
      occ_rt->cudaLibraryUnload(p->library);
      p->library = NULL;
      return s;
    }
  }
  *k = p->k;
  return OCC_GPU_OK;
}

/* Sets what the occupancy API and the launch read from the kernel: the
 * dynamic shared-memory opt-in (reset below the default cap, since the
 * probe is reused) and the carveout preference. Set through the runtime,
 * as a program using cudart would, and on the context's function, which
 * the driver launches and answers for, so both APIs see the same kernel
 * whatever the runtime does with a cudaKernel_t's attributes. */
occ_gpu_status occ_gpu_set_smem_attrs(occ_gpu *gpu, const kernel_handles *k,
                                     int64_t smem_dynamic, int64_t smem_static,
                                     int carveout, char *err,
                                     size_t err_size) {
  int64_t max_dyn = gpu->device.smem_per_block_bytes - smem_static;
  if (smem_dynamic > max_dyn) max_dyn = smem_dynamic;
  if (max_dyn < 0) max_dyn = 0;
  int pref = carveout < 0 ? cudaSharedmemCarveoutDefault : carveout;
  RT(occ_rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)max_dyn));
  RT(occ_rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributePreferredSharedMemoryCarveout,
                              pref));
  DRV(occ_drv.cuFuncSetAttribute(
      k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      (int)max_dyn));
  DRV(occ_drv.cuFuncSetAttribute(
      k->function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, pref));
  return OCC_GPU_OK;
}

/* The CUDA occupancy API's answer (cudart's, given the cudaKernel_t) and
 * the driver's for the same kernel and launch. */
occ_gpu_status occ_gpu_ask_occupancy(const kernel_handles *k, int block_threads,
                                    int64_t smem_dynamic, int *api, int *driver,
                                    char *err, size_t err_size) {
  RT(occ_rt->cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      api, (const void *)k->kernel, block_threads, (size_t)smem_dynamic));
  DRV(occ_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
      driver, k->function, block_threads, (size_t)smem_dynamic));
  return OCC_GPU_OK;
}

/* Waits for the device with a deadline instead of a blocking synchronize,
 * so a probe that does not end cannot hang occcalc. */
occ_gpu_status occ_gpu_wait_idle(double deadline, char *err, size_t err_size) {
  double limit = occ_gpu_now_s() + LAUNCH_WAIT_S;
  if (deadline > 0 && deadline < limit) limit = deadline;
  for (;;) {
    CUresult r = occ_drv.cuStreamQuery(NULL);
    if (r == CUDA_SUCCESS) return OCC_GPU_OK;
    if (r != CUDA_ERROR_NOT_READY)
      return occ_drv_fail(r, "cuStreamQuery", __FILE__, __LINE__, err, err_size);
    if (occ_gpu_now_s() > limit) {
      snprintf(err, err_size, "the probe kernel was still running at the "
               "time limit");
      return OCC_GPU_ERR_TIMEOUT;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
}

/* Resident blocks and achieved occupancy of the last timeline launch. */
static occ_gpu_status timeline(const occ_gpu *gpu, int64_t n,
                               int warps_per_block, occ_probe_run *run,
                               char *err, size_t err_size) {
  const occ_device *d = &gpu->device;
  occ_residency res;
  int64_t bad = 0;
  switch (occ_timeline_residency(gpu->records_host, n, d->sm_count,
                                 warps_per_block,
                                 occ_device_max_warps(d), &res,
                                 &bad)) {
  case OCC_TIMELINE_OK: break;
  case OCC_TIMELINE_NOMEM:
    snprintf(err, err_size, "out of memory");
    return OCC_GPU_ERR_NOMEM;
  case OCC_TIMELINE_NO_RECORD:
    snprintf(err, err_size, "probe block %lld left no timeline record",
             (long long)bad);
    return OCC_GPU_ERR_CUDA;
  }
  run->sms_seen = res.sms_seen;
  run->measured_min = res.min_blocks;
  run->measured_max = res.max_blocks;
  run->achieved_timeline = res.achieved;
  return OCC_GPU_OK;
}

static occ_gpu_status launch(occ_gpu *gpu, CUfunction fn, bool cooperative,
                             int64_t grid, const occ_probe_config *cfg,
                             unsigned long long spin_ns, CUresult *result,
                             char *err, size_t err_size) {
  long long max_cycles = (long long)spin_ns * SPIN_CYCLES_PER_NS + 100000;
  void *args[] = {&gpu->records_dev, &gpu->seed_dev, &gpu->sink_dev, &spin_ns,
                  &max_cycles};
  unsigned int smem = (unsigned int)cfg->smem_dynamic_bytes;
  DRV(occ_drv.cuMemsetD8Async(gpu->records_dev, 0,
                          (size_t)grid * sizeof(probe_record), NULL));
  if (cooperative)
    *result = occ_drv.cuLaunchCooperativeKernel(
        fn, (unsigned)grid, 1, 1, (unsigned)cfg->block_threads, 1, 1, smem,
        NULL, args);
  else
    *result = occ_drv.cuLaunchKernel(fn, (unsigned)grid, 1, 1,
                                 (unsigned)cfg->block_threads, 1, 1, smem,
                                 NULL, args, NULL);
  return occ_gpu_wait_idle(cfg->deadline_s, err, err_size);
}

static void counter_begin(occ_gpu *gpu, occ_probe_run *run, bool *active) {
  *active = false;
  if (!gpu->counter && !gpu->counter_why[0])
    gpu->counter = occ_counter_open(gpu->context, gpu->ordinal,
                                    gpu->counter_why, sizeof gpu->counter_why);
  if (!gpu->counter) {
    snprintf(run->counter_error, sizeof run->counter_error, "%s",
             gpu->counter_why);
    return;
  }
  *active = occ_counter_begin(gpu->counter, run->counter_error,
                              sizeof run->counter_error) == 0;
}

/* The configuration the driver chose for the timeline launch: a launch
 * refused or not made has none. Unknown is not an error: the check is not
 * made. */
static void executed_config(bool launched, occ_probe_run *run) {
  int64_t executed;
  bool read = occ_activity_end(&executed, run->smem_config_error,
                               sizeof run->smem_config_error) == 0;
  if (!launched)
    snprintf(run->smem_config_error, sizeof run->smem_config_error,
             "the probe was not launched");
  else if (read)
    run->smem_config_executed_bytes = executed;
}

static occ_gpu_status timeline_run(occ_gpu *gpu, CUfunction fn,
                                   const occ_probe_config *cfg,
                                   occ_probe_run *run, char *err,
                                   size_t err_size) {
  const occ_device *d = &gpu->device;
  /* WAVES x the API's blocks, or the expected ones where more, keep every
   * SM full; never more than the records. */
  int per_sm = run->api_blocks_per_sm;
  if (per_sm > 0 && cfg->expected_blocks_per_sm > per_sm)
    per_sm = cfg->expected_blocks_per_sm;
  int64_t grid = per_sm > 0 ? WAVES * (int64_t)per_sm * d->sm_count : 1;
  if (grid > gpu->records_cap) grid = gpu->records_cap;
  run->grid_blocks = grid;
  bool counting = false;
  double t0 = occ_gpu_now_s();
  if (cfg->counter)
    counter_begin(gpu, run, &counting);
  else
    snprintf(run->counter_error, sizeof run->counter_error,
             "not asked for");
  run->counter_ms = occ_ms_since(t0);
  CUresult r;
  double t1 = occ_gpu_now_s();
  bool tracing = occ_activity_begin(run->smem_config_error,
                                    sizeof run->smem_config_error) == 0;
  occ_gpu_status s = launch(gpu, fn, false, grid, cfg, SPIN_NS, &r, err, err_size);
  if (tracing)
    executed_config(s == OCC_GPU_OK && r == CUDA_SUCCESS, run);
  run->launch_ms = occ_ms_since(t1);
  double t2 = occ_gpu_now_s();
  if (counting) {
    double pct;
    if (occ_counter_end(gpu->counter, &pct, run->counter_error,
                        sizeof run->counter_error) == 0) {
      run->counter_ok = true;
      run->achieved_counter = pct / 100.0;
    }
  }
  run->counter_ms += occ_ms_since(t2);
  if (s != OCC_GPU_OK) return s;
  if (r != CUDA_SUCCESS) {
    /* A refused launch is a measurement: no block was resident. */
    run->launched = false;
    occ_drv_error_name(r, run->launch_error, sizeof run->launch_error);
    run->counter_ok = false;
    if (cfg->counter)
      snprintf(run->counter_error, sizeof run->counter_error,
               "the probe was not launched");
    return OCC_GPU_OK;
  }
  run->launched = true;
  t1 = occ_gpu_now_s();
  DRV(occ_drv.cuMemcpyDtoH(gpu->records_host, gpu->records_dev,
                       (size_t)grid * sizeof(probe_record)));
  int warps = (cfg->block_threads + d->warp_size - 1) / d->warp_size;
  s = timeline(gpu, grid, warps, run, err, err_size);
  run->launch_ms += occ_ms_since(t1);
  return s;
}

/* A cooperative launch of api x SMs blocks must succeed and one block more
 * must be refused as too large: the driver's own residency bound. */
static occ_gpu_status coop_run(occ_gpu *gpu, CUfunction fn,
                               const occ_probe_config *cfg, occ_probe_run *run,
                               char *err, size_t err_size) {
  run->cooperative_max_blocks = -1;
  if (!gpu->coop_supported) {
    snprintf(run->coop_note, sizeof run->coop_note,
             "the device does not support cooperative launches");
    return OCC_GPU_OK;
  }
  if (run->api_blocks_per_sm <= 0) {
    snprintf(run->coop_note, sizeof run->coop_note,
             "not tried: the API allows no block");
    return OCC_GPU_OK;
  }
  double t0 = occ_gpu_now_s();
  int64_t n = (int64_t)run->api_blocks_per_sm * gpu->device.sm_count;
  CUresult r_fit, r_over;
  occ_gpu_status s = launch(gpu, fn, true, n, cfg, 0, &r_fit, err, err_size);
  if (s != OCC_GPU_OK) return s;
  s = launch(gpu, fn, true, n + 1, cfg, 0, &r_over, err, err_size);
  if (s != OCC_GPU_OK) return s;
  run->coop_checked = true;
  run->coop_fits = r_fit == CUDA_SUCCESS;
  run->coop_over_refused = r_over == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  if (run->coop_fits && run->coop_over_refused)
    run->cooperative_max_blocks = n;
  else {
    char a[48], b[48];
    occ_drv_error_name(r_fit, a, sizeof a);
    occ_drv_error_name(r_over, b, sizeof b);
    snprintf(run->coop_note, sizeof run->coop_note, "%lld blocks: %s; %lld: %s",
             (long long)n, a, (long long)n + 1, b);
  }
  run->coop_ms = occ_ms_since(t0);
  return OCC_GPU_OK;
}

/* The probe's attributes, read as a module kernel's are. */
occ_gpu_status occ_gpu_probe_attrs(CUfunction fn, occ_probe_run *run,
                                  char *err, size_t err_size) {
  occ_module_kernel attrs;
  occ_gpu_status s = occ_gpu_module_attrs(fn, &attrs, err, err_size);
  if (s != OCC_GPU_OK) return s;
  run->regs_per_thread = attrs.regs_per_thread;
  run->smem_static_bytes = attrs.smem_static_bytes;
  run->local_bytes_per_thread = attrs.local_bytes_per_thread;
  run->max_threads_per_block = attrs.max_threads_per_block;
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_probe_load(occ_gpu *gpu, const occ_probe_config *cfg,
                                  kernel_handles *k, bool *cached,
                                  double *jit_ms, char *err, size_t err_size) {
  if (cfg->deadline_s > 0 && occ_gpu_now_s() > cfg->deadline_s) {
    snprintf(err, err_size, "the verification's time limit was reached");
    return OCC_GPU_ERR_TIMEOUT;
  }
  occ_gpu_status s = occ_gpu_runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  double t0 = occ_gpu_now_s();
  s = occ_gpu_probe_kernel(gpu, occ_gpu_cap_of(cfg->regs_per_thread), k, cached,
                           err, err_size);
  *jit_ms = occ_ms_since(t0);
  return s;
}

occ_gpu_status occ_gpu_probe(occ_gpu *gpu, const occ_probe_config *cfg,
                             occ_probe_run *run, char *err, size_t err_size) {
  memset(run, 0, sizeof *run);
  run->cooperative_max_blocks = -1;
  run->smem_config_executed_bytes = -1;
  kernel_handles k;
  occ_gpu_status s = occ_gpu_probe_load(gpu, cfg, &k, &run->jit_cached,
                                        &run->jit_ms, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if ((s = occ_gpu_probe_attrs(k.function, run, err, err_size)) != OCC_GPU_OK) return s;
  s = occ_gpu_set_smem_attrs(gpu, &k, cfg->smem_dynamic_bytes, run->smem_static_bytes,
                     cfg->carveout_pct, err, err_size);
  if (s == OCC_GPU_OK)
    s = occ_gpu_ask_occupancy(&k, cfg->block_threads, cfg->smem_dynamic_bytes,
                      &run->api_blocks_per_sm, &run->driver_api_blocks_per_sm,
                      err, err_size);
  if (s == OCC_GPU_OK) s = timeline_run(gpu, k.function, cfg, run, err, err_size);
  if (s != OCC_GPU_OK) return s;
  return coop_run(gpu, k.function, cfg, run, err, err_size);
}
