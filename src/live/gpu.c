/* gpu.c - the live GPU (see gpu.h for the contract). */
#include "live/gpu.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/counter.h"
#include "live/timeline.h"

/* The probe's PTX, built from kernels/probe.cu and embedded by embed.sh. */
extern const unsigned char occ_probe_ptx[];
extern const size_t occ_probe_ptx_len;

/* Every spinning block stays this long, so that all blocks of a wave are
 * resident together whatever the block scheduler's launch rate
 * (FACTS section 2: 200 us matched the API in 620 of 620 cases). */
#define SPIN_NS 200000ull
/* The timeline launches this many waves of API x SMs blocks: at least two
 * so that every SM is kept full (FACTS section 2), four so that the ramp
 * at the start and the end weighs less in the achieved occupancy. */
#define WAVES 4
/* The spin's second bound, in SM clock cycles: 20 per nanosecond covers
 * any clock below 20 GHz, so a stalled global timer ends it too. */
#define SPIN_CYCLES_PER_NS 20
/* Longest wait for one launch when no earlier deadline applies. */
#define LAUNCH_WAIT_S 10.0
#define SEED_FLOATS 256
#define SINK_FLOATS 1024
#define MAX_CAP 255

typedef occ_probe_record probe_record;

/* The driver entry points occcalc uses, fetched from the static runtime. */
typedef struct driver_api {
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
  PFN_cuModuleLoadDataEx_v2010 cuModuleLoadDataEx;
  PFN_cuModuleUnload_v2000 cuModuleUnload;
  PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
  PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute;
  PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050
      cuOccupancyMaxActiveBlocksPerMultiprocessor;
  PFN_cuLaunchKernel_v4000 cuLaunchKernel;
  PFN_cuLaunchCooperativeKernel_v9000 cuLaunchCooperativeKernel;
  PFN_cuGetErrorName_v6000 cuGetErrorName;
  PFN_cuGetErrorString_v6000 cuGetErrorString;
  /* Optional (driver 12.4+): only to list a module's kernels. */
  PFN_cuModuleGetFunctionCount_v12040 cuModuleGetFunctionCount;
  PFN_cuModuleEnumerateFunctions_v12040 cuModuleEnumerateFunctions;
  PFN_cuFuncGetName_v12030 cuFuncGetName;
} driver_api;

typedef struct probe_module {
  CUmodule module;
  CUfunction function;
} probe_module;

struct occ_gpu {
  int ordinal;
  occ_device device;
  bool coop_supported;
  driver_api drv;
  CUcontext context;
  probe_module probes[MAX_CAP + 1]; /* by register cap */
  probe_record *records_dev;
  probe_record *records_host;
  int64_t records_cap;
  float *seed_dev;
  float *sink_dev;
  occ_counter *counter;
  char counter_why[160]; /* set once opening the counter failed */
};

const char *occ_gpu_strerror(occ_gpu_status status) {
  switch (status) {
  case OCC_GPU_OK: return "success";
  case OCC_GPU_ERR_CUDA: return "CUDA error";
  case OCC_GPU_ERR_DEVICE: return "unusable device";
  case OCC_GPU_ERR_TIMEOUT: return "time limit reached";
  case OCC_GPU_ERR_NOMEM: return "out of memory";
  case OCC_GPU_ERR_MODULE: return "module error";
  }
  return "unknown error";
}

double occ_gpu_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "gpu->drv.cuLaunchKernel(f, ...)" -> "cuLaunchKernel": a message names
 * the CUDA function, not our expression around it. */
static void call_name(const char *call, char *out, size_t size) {
  size_t end = strcspn(call, "(");
  size_t start = end;
  while (start > 0 && call[start - 1] != '.' && call[start - 1] != '>' &&
         call[start - 1] != ' ')
    start--;
  snprintf(out, size, "%.*s", (int)(end - start), call + start);
}

static occ_gpu_status rt_fail(cudaError_t e, const char *call,
                              const char *file, int line, char *err,
                              size_t err_size) {
  char name[64];
  call_name(call, name, sizeof name);
  snprintf(err, err_size, "%s (%s:%d): %s: %s", name, file, line,
           cudaGetErrorName(e), cudaGetErrorString(e));
  return OCC_GPU_ERR_CUDA;
}

static void drv_error_text(const driver_api *drv, CUresult r, char *out,
                           size_t size) {
  const char *name = NULL, *text = NULL;
  if (drv->cuGetErrorName) drv->cuGetErrorName(r, &name);
  if (drv->cuGetErrorString) drv->cuGetErrorString(r, &text);
  if (name && text)
    snprintf(out, size, "%s: %s", name, text);
  else
    snprintf(out, size, "CUresult %d", (int)r);
}

static occ_gpu_status drv_fail(const driver_api *drv, CUresult r,
                               const char *call, const char *file, int line,
                               char *err, size_t err_size) {
  char name[64], text[160];
  call_name(call, name, sizeof name);
  drv_error_text(drv, r, text, sizeof text);
  snprintf(err, err_size, "%s (%s:%d): %s", name, file, line, text);
  return OCC_GPU_ERR_CUDA;
}

#define RT(call)                                                            \
  do {                                                                      \
    cudaError_t rt_e_ = (call);                                             \
    if (rt_e_ != cudaSuccess)                                               \
      return rt_fail(rt_e_, #call, __FILE__, __LINE__, err, err_size);      \
  } while (0)

#define DRV(gpu, call)                                                      \
  do {                                                                      \
    CUresult drv_r_ = (call);                                               \
    if (drv_r_ != CUDA_SUCCESS)                                             \
      return drv_fail(&(gpu)->drv, drv_r_, #call, __FILE__, __LINE__, err, \
                      err_size);                                            \
  } while (0)

/* The ABI of each entry point as of this CUDA version: it matches the PFN
 * types above. */
#define ENTRY_VERSION 12040

static occ_gpu_status load_entry(const char *symbol, void **fn, bool optional,
                                 char *err, size_t err_size) {
  enum cudaDriverEntryPointQueryResult found;
  cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, fn, ENTRY_VERSION,
                                                   cudaEnableDefault, &found);
  if (e == cudaSuccess && found == cudaDriverEntryPointSuccess) return OCC_GPU_OK;
  *fn = NULL;
  if (optional) return OCC_GPU_OK;
  if (e != cudaSuccess)
    return rt_fail(e, "cudaGetDriverEntryPointByVersion", __FILE__, __LINE__,
                   err, err_size);
  snprintf(err, err_size, "cudaGetDriverEntryPointByVersion (%s:%d): the "
           "driver has no %s", __FILE__, __LINE__, symbol);
  return OCC_GPU_ERR_CUDA;
}

#define ENTRY(d, name, optional)                                              \
  do {                                                                        \
    occ_gpu_status s_ = load_entry(#name, (void **)&(d)->name, optional, err, \
                                   err_size);                                 \
    if (s_ != OCC_GPU_OK) return s_;                                          \
  } while (0)

static occ_gpu_status load_driver(driver_api *d, char *err, size_t err_size) {
  ENTRY(d, cuGetErrorName, false);
  ENTRY(d, cuGetErrorString, false);
  ENTRY(d, cuCtxGetCurrent, false);
  ENTRY(d, cuModuleLoadDataEx, false);
  ENTRY(d, cuModuleUnload, false);
  ENTRY(d, cuModuleGetFunction, false);
  ENTRY(d, cuFuncGetAttribute, false);
  ENTRY(d, cuFuncSetAttribute, false);
  ENTRY(d, cuOccupancyMaxActiveBlocksPerMultiprocessor, false);
  ENTRY(d, cuLaunchKernel, false);
  ENTRY(d, cuLaunchCooperativeKernel, false);
  ENTRY(d, cuModuleGetFunctionCount, true);
  ENTRY(d, cuModuleEnumerateFunctions, true);
  ENTRY(d, cuFuncGetName, true);
  return OCC_GPU_OK;
}

/* The runtime says "driver version is insufficient" also when there is
 * no driver at all; say which. */
occ_gpu_status occ_gpu_count(int *count, char *err, size_t err_size) {
  cudaError_t e = cudaGetDeviceCount(count);
  if (e == cudaSuccess) return OCC_GPU_OK;
  occ_gpu_status s = rt_fail(e, "cudaGetDeviceCount", __FILE__, __LINE__, err,
                             err_size);
  void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver)
    dlclose(driver);
  else {
    size_t used = strlen(err);
    snprintf(err + used, err_size - used, " (no NVIDIA driver: libcuda.so.1 "
             "is not installed)");
  }
  return s;
}

static occ_gpu_status read_attr(int *value, enum cudaDeviceAttr attr,
                                int ordinal, char *err, size_t err_size) {
  RT(cudaDeviceGetAttribute(value, attr, ordinal));
  return OCC_GPU_OK;
}

#define ATTR(field, attr)                                                   \
  do {                                                                      \
    int v_;                                                                 \
    occ_gpu_status s_ = read_attr(&v_, attr, ordinal, err, err_size);       \
    if (s_ != OCC_GPU_OK) return s_;                                        \
    (field) = v_;                                                           \
  } while (0)

/* The database's entry for the capability gives what the driver does not
 * report (allocation units, carveout configurations, the barrier rule);
 * every limit the driver reports overwrites it. */
static occ_gpu_status read_device(int ordinal, const occ_gpudb *db,
                                  occ_device *d, bool *coop, char *err,
                                  size_t err_size) {
  int major, minor, coop_attr;
  ATTR(major, cudaDevAttrComputeCapabilityMajor);
  ATTR(minor, cudaDevAttrComputeCapabilityMinor);
  char name[256];
  struct cudaDeviceProp prop;
  RT(cudaGetDeviceProperties(&prop, ordinal));
  snprintf(name, sizeof name, "%s", prop.name);
  char near[64];
  if (occ_gpudb_find_cc(db, major, minor, d, near, sizeof near) != 0) {
    snprintf(err, err_size, "device %d (%s) has compute capability %d.%d, "
             "which is not in the database (nearest: %s)", ordinal, name,
             major, minor, near);
    return OCC_GPU_ERR_DEVICE;
  }
  snprintf(d->name, sizeof d->name, "%.*s", OCC_NAME_MAX - 1, name);
  d->source = "driver";
  ATTR(d->sm_count, cudaDevAttrMultiProcessorCount);
  ATTR(d->warp_size, cudaDevAttrWarpSize);
  ATTR(d->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock);
  ATTR(d->max_block_dim[0], cudaDevAttrMaxBlockDimX);
  ATTR(d->max_block_dim[1], cudaDevAttrMaxBlockDimY);
  ATTR(d->max_block_dim[2], cudaDevAttrMaxBlockDimZ);
  ATTR(d->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
  ATTR(d->max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor);
  ATTR(d->regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor);
  ATTR(d->regs_per_block, cudaDevAttrMaxRegistersPerBlock);
  ATTR(d->smem_per_sm_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  ATTR(d->smem_per_block_bytes, cudaDevAttrMaxSharedMemoryPerBlock);
  ATTR(d->smem_per_block_optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin);
  ATTR(d->reserved_smem_per_block_bytes, cudaDevAttrReservedSharedMemoryPerBlock);
  ATTR(coop_attr, cudaDevAttrCooperativeLaunch);
  *coop = coop_attr != 0;
  return OCC_GPU_OK;
}

static occ_gpu_status alloc_buffers(occ_gpu *gpu, char *err, size_t err_size) {
  const occ_device *d = &gpu->device;
  /* The timeline launches WAVES x (API blocks) x SMs, the cooperative
   * check one more than API x SMs. */
  gpu->records_cap = WAVES * (int64_t)d->max_blocks_per_sm * d->sm_count + 1;
  size_t bytes = (size_t)gpu->records_cap * sizeof(probe_record);
  gpu->records_host = malloc(bytes);
  if (!gpu->records_host) {
    snprintf(err, err_size, "out of memory for %zu bytes", bytes);
    return OCC_GPU_ERR_NOMEM;
  }
  RT(cudaMalloc((void **)&gpu->records_dev, bytes));
  RT(cudaMalloc((void **)&gpu->seed_dev, SEED_FLOATS * sizeof(float)));
  RT(cudaMalloc((void **)&gpu->sink_dev, SINK_FLOATS * sizeof(float)));
  /* Seeds near 1 keep the probe's arithmetic finite and its sum far from
   * the sentinel that would make it write. */
  float seed[SEED_FLOATS];
  for (int i = 0; i < SEED_FLOATS; i++) seed[i] = 0.5f + (float)i / 1024.0f;
  RT(cudaMemcpy(gpu->seed_dev, seed, sizeof seed, cudaMemcpyHostToDevice));
  return OCC_GPU_OK;
}

static occ_gpu_status open_context(occ_gpu *gpu, const occ_gpudb *db,
                                   char *err, size_t err_size) {
  int count;
  occ_gpu_status s = occ_gpu_count(&count, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (gpu->ordinal < 0 || gpu->ordinal >= count) {
    snprintf(err, err_size, "no device %d: %d device%s (0 to %d)",
             gpu->ordinal, count, count == 1 ? "" : "s", count - 1);
    return OCC_GPU_ERR_DEVICE;
  }
  RT(cudaSetDevice(gpu->ordinal));
  RT(cudaFree(NULL)); /* creates the primary context */
  s = load_driver(&gpu->drv, err, err_size);
  if (s != OCC_GPU_OK) return s;
  DRV(gpu, gpu->drv.cuCtxGetCurrent(&gpu->context));
  s = read_device(gpu->ordinal, db, &gpu->device, &gpu->coop_supported, err,
                  err_size);
  if (s != OCC_GPU_OK) return s;
  return alloc_buffers(gpu, err, err_size);
}

occ_gpu_status occ_gpu_open(int ordinal, const occ_gpudb *db, occ_gpu **out,
                            char *err, size_t err_size) {
  *out = NULL;
  occ_gpu *gpu = calloc(1, sizeof *gpu);
  if (!gpu) {
    snprintf(err, err_size, "out of memory");
    return OCC_GPU_ERR_NOMEM;
  }
  gpu->ordinal = ordinal;
  occ_gpu_status s = open_context(gpu, db, err, err_size);
  if (s != OCC_GPU_OK) {
    occ_gpu_close(gpu);
    return s;
  }
  *out = gpu;
  return OCC_GPU_OK;
}

void occ_gpu_close(occ_gpu *gpu) {
  if (!gpu) return;
  occ_counter_close(gpu->counter);
  if (gpu->drv.cuModuleUnload)
    for (int i = 0; i <= MAX_CAP; i++)
      if (gpu->probes[i].module) gpu->drv.cuModuleUnload(gpu->probes[i].module);
  if (gpu->context) {
    cudaFree(gpu->records_dev);
    cudaFree(gpu->seed_dev);
    cudaFree(gpu->sink_dev);
  }
  free(gpu->records_host);
  free(gpu);
}

const occ_device *occ_gpu_device(const occ_gpu *gpu) { return &gpu->device; }
int occ_gpu_ordinal(const occ_gpu *gpu) { return gpu->ordinal; }

static double ms_since(double t0) { return (occ_gpu_now_s() - t0) * 1e3; }

/* JIT-compiles the probe with max-registers cap, once per cap. */
static occ_gpu_status probe_function(occ_gpu *gpu, int cap, CUfunction *fn,
                                     bool *cached, char *err,
                                     size_t err_size) {
  probe_module *p = &gpu->probes[cap];
  *cached = p->module != NULL;
  if (!p->module) {
    char log[1024] = "";
    CUjit_option opts[] = {CU_JIT_MAX_REGISTERS, CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {(void *)(uintptr_t)cap, log, (void *)(uintptr_t)sizeof log};
    CUresult r = gpu->drv.cuModuleLoadDataEx(&p->module, occ_probe_ptx, 3,
                                             opts, vals);
    if (r != CUDA_SUCCESS) {
      p->module = NULL;
      occ_gpu_status s = drv_fail(&gpu->drv, r, "cuModuleLoadDataEx", __FILE__,
                                  __LINE__, err, err_size);
      size_t used = strlen(err);
      if (log[0]) snprintf(err + used, err_size - used, " (%s)", log);
      return s;
    }
    DRV(gpu, gpu->drv.cuModuleGetFunction(&p->function, p->module, "occ_probe"));
  }
  *fn = p->function;
  return OCC_GPU_OK;
}

static occ_gpu_status func_attr(occ_gpu *gpu, CUfunction fn,
                                CUfunction_attribute attr, int *value,
                                char *err, size_t err_size) {
  DRV(gpu, gpu->drv.cuFuncGetAttribute(value, attr, fn));
  return OCC_GPU_OK;
}

/* Sets what the occupancy API and the launch read from the function: the
 * dynamic shared-memory opt-in (reset below the default cap, since the
 * module is reused) and the carveout preference. */
static occ_gpu_status set_smem_attrs(occ_gpu *gpu, CUfunction fn,
                                     int64_t smem_dynamic, int64_t smem_static,
                                     int carveout, char *err,
                                     size_t err_size) {
  int64_t max_dyn = gpu->device.smem_per_block_bytes - smem_static;
  if (smem_dynamic > max_dyn) max_dyn = smem_dynamic;
  if (max_dyn < 0) max_dyn = 0;
  DRV(gpu, gpu->drv.cuFuncSetAttribute(
               fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               (int)max_dyn));
  DRV(gpu, gpu->drv.cuFuncSetAttribute(
               fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
               carveout < 0 ? CU_SHAREDMEM_CARVEOUT_DEFAULT : carveout));
  return OCC_GPU_OK;
}

/* Waits for the device with a deadline instead of a blocking synchronize,
 * so a probe that does not end cannot hang occcalc. */
static occ_gpu_status wait_idle(double deadline, char *err, size_t err_size) {
  double limit = occ_gpu_now_s() + LAUNCH_WAIT_S;
  if (deadline > 0 && deadline < limit) limit = deadline;
  for (;;) {
    cudaError_t e = cudaStreamQuery(NULL);
    if (e == cudaSuccess) return OCC_GPU_OK;
    if (e != cudaErrorNotReady) RT(e);
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
  RT(cudaMemsetAsync(gpu->records_dev, 0,
                     (size_t)grid * sizeof(probe_record), NULL));
  if (cooperative)
    *result = gpu->drv.cuLaunchCooperativeKernel(
        fn, (unsigned)grid, 1, 1, (unsigned)cfg->block_threads, 1, 1, smem,
        NULL, args);
  else
    *result = gpu->drv.cuLaunchKernel(fn, (unsigned)grid, 1, 1,
                                      (unsigned)cfg->block_threads, 1, 1, smem,
                                      NULL, args, NULL);
  return wait_idle(cfg->deadline_s, err, err_size);
}

static void error_name(const occ_gpu *gpu, CUresult r, char *out, size_t n) {
  const char *name = NULL;
  gpu->drv.cuGetErrorName(r, &name);
  snprintf(out, n, "%s", name ? name : "unknown CUresult");
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

static occ_gpu_status timeline_run(occ_gpu *gpu, CUfunction fn,
                                   const occ_probe_config *cfg,
                                   occ_probe_run *run, char *err,
                                   size_t err_size) {
  const occ_device *d = &gpu->device;
  int64_t grid = run->api_blocks_per_sm > 0
                     ? WAVES * (int64_t)run->api_blocks_per_sm * d->sm_count
                     : 1;
  run->grid_blocks = grid;
  bool counting = false;
  double t0 = occ_gpu_now_s();
  if (cfg->counter)
    counter_begin(gpu, run, &counting);
  else
    snprintf(run->counter_error, sizeof run->counter_error,
             "not asked for");
  run->counter_ms = ms_since(t0);
  CUresult r;
  double t1 = occ_gpu_now_s();
  occ_gpu_status s = launch(gpu, fn, false, grid, cfg, SPIN_NS, &r, err, err_size);
  run->launch_ms = ms_since(t1);
  double t2 = occ_gpu_now_s();
  if (counting) {
    double pct;
    if (occ_counter_end(gpu->counter, &pct, run->counter_error,
                        sizeof run->counter_error) == 0) {
      run->counter_ok = true;
      run->achieved_counter = pct / 100.0;
    }
  }
  run->counter_ms += ms_since(t2);
  if (s != OCC_GPU_OK) return s;
  if (r != CUDA_SUCCESS) {
    /* A refused launch is a measurement: no block was resident. */
    run->launched = false;
    error_name(gpu, r, run->launch_error, sizeof run->launch_error);
    run->counter_ok = false;
    if (cfg->counter)
      snprintf(run->counter_error, sizeof run->counter_error,
               "the probe was not launched");
    return OCC_GPU_OK;
  }
  run->launched = true;
  t1 = occ_gpu_now_s();
  RT(cudaMemcpy(gpu->records_host, gpu->records_dev,
                (size_t)grid * sizeof(probe_record), cudaMemcpyDeviceToHost));
  int warps = (cfg->block_threads + d->warp_size - 1) / d->warp_size;
  s = timeline(gpu, grid, warps, run, err, err_size);
  run->launch_ms += ms_since(t1);
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
    error_name(gpu, r_fit, a, sizeof a);
    error_name(gpu, r_over, b, sizeof b);
    snprintf(run->coop_note, sizeof run->coop_note, "%lld blocks: %s; %lld: %s",
             (long long)n, a, (long long)n + 1, b);
  }
  run->coop_ms = ms_since(t0);
  return OCC_GPU_OK;
}

static occ_gpu_status module_attrs(occ_gpu *gpu, CUfunction fn,
                                   occ_module_kernel *out, char *err,
                                   size_t err_size) {
  int regs, smem, local, cnst, threads, ptx, bin;
  occ_gpu_status s;
  if ((s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_NUM_REGS, &regs, err, err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &smem, err,
                     err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local, err,
                     err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &cnst, err,
                     err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &threads,
                     err, err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_PTX_VERSION, &ptx, err,
                     err_size)) ||
      (s = func_attr(gpu, fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION, &bin, err,
                     err_size)))
    return s;
  out->regs_per_thread = regs;
  out->smem_static_bytes = smem;
  out->local_bytes_per_thread = local;
  out->const_bytes = cnst;
  out->max_threads_per_block = threads;
  out->ptx_version = ptx;
  out->binary_version = bin;
  return OCC_GPU_OK;
}

/* The probe's attributes, read as a module kernel's are. */
static occ_gpu_status probe_attrs(occ_gpu *gpu, CUfunction fn,
                                  occ_probe_run *run, char *err,
                                  size_t err_size) {
  occ_module_kernel attrs;
  occ_gpu_status s = module_attrs(gpu, fn, &attrs, err, err_size);
  if (s != OCC_GPU_OK) return s;
  run->regs_per_thread = attrs.regs_per_thread;
  run->smem_static_bytes = attrs.smem_static_bytes;
  run->local_bytes_per_thread = attrs.local_bytes_per_thread;
  run->max_threads_per_block = attrs.max_threads_per_block;
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_probe(occ_gpu *gpu, const occ_probe_config *cfg,
                             occ_probe_run *run, char *err, size_t err_size) {
  memset(run, 0, sizeof *run);
  run->cooperative_max_blocks = -1;
  if (cfg->deadline_s > 0 && occ_gpu_now_s() > cfg->deadline_s) {
    snprintf(err, err_size, "the verification's time limit was reached");
    return OCC_GPU_ERR_TIMEOUT;
  }
  int cap = cfg->regs_per_thread < 1 ? 1
            : cfg->regs_per_thread > MAX_CAP ? MAX_CAP
                                             : cfg->regs_per_thread;
  CUfunction fn;
  double t0 = occ_gpu_now_s();
  occ_gpu_status s = probe_function(gpu, cap, &fn, &run->jit_cached, err, err_size);
  run->jit_ms = ms_since(t0);
  if (s != OCC_GPU_OK) return s;
  if ((s = probe_attrs(gpu, fn, run, err, err_size)) != OCC_GPU_OK) return s;
  s = set_smem_attrs(gpu, fn, cfg->smem_dynamic_bytes, run->smem_static_bytes,
                     cfg->carveout_pct, err, err_size);
  if (s != OCC_GPU_OK) return s;
  DRV(gpu, gpu->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
               &run->api_blocks_per_sm, fn, cfg->block_threads,
               (size_t)cfg->smem_dynamic_bytes));
  if ((s = timeline_run(gpu, fn, cfg, run, err, err_size)) != OCC_GPU_OK)
    return s;
  return coop_run(gpu, fn, cfg, run, err, err_size);
}

static occ_gpu_status read_file(const char *path, char **data, size_t *len,
                                char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: %s", path, strerror(errno));
    return OCC_GPU_ERR_MODULE;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *bigger = realloc(buf, cap * 2 + 1);
    if (!bigger) free(buf);
    buf = bigger;
    cap *= 2;
  }
  bool bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    snprintf(err, err_size, "%s: cannot read the file", path);
    return buf ? OCC_GPU_ERR_MODULE : OCC_GPU_ERR_NOMEM;
  }
  buf[n] = '\0'; /* PTX is loaded as a NUL-terminated string */
  *data = buf;
  *len = n;
  return OCC_GPU_OK;
}

/* The module's kernels, where the driver can list them (NULL otherwise;
 * the caller frees). */
static CUfunction *module_functions(occ_gpu *gpu, CUmodule mod,
                                   unsigned int *count) {
  *count = 0;
  if (!gpu->drv.cuModuleGetFunctionCount || !gpu->drv.cuModuleEnumerateFunctions ||
      !gpu->drv.cuFuncGetName ||
      gpu->drv.cuModuleGetFunctionCount(count, mod) != CUDA_SUCCESS || !*count)
    return NULL;
  CUfunction *fns = calloc(*count, sizeof *fns);
  if (fns && gpu->drv.cuModuleEnumerateFunctions(fns, *count, mod) == CUDA_SUCCESS)
    return fns;
  free(fns);
  return NULL;
}

static const char *function_name(occ_gpu *gpu, CUfunction fn) {
  const char *name = NULL;
  return gpu->drv.cuFuncGetName(&name, fn) == CUDA_SUCCESS ? name : NULL;
}

/* Appends " (kernels: a b c)" to err. */
static void list_kernels(occ_gpu *gpu, const CUfunction *fns,
                         unsigned int count, char *err, size_t err_size) {
  if (!fns) return;
  size_t used = strlen(err);
  snprintf(err + used, err_size - used, " (kernels:");
  for (unsigned int i = 0; i < count; i++) {
    const char *name = function_name(gpu, fns[i]);
    used = strlen(err);
    if (name) snprintf(err + used, err_size - used, " %s", name);
  }
  used = strlen(err);
  snprintf(err + used, err_size - used, ")");
}

/* The kernel called name: by its name in the module (mangled for C++),
 * else the one kernel whose name match accepts (its readable name). */
static occ_gpu_status find_function(occ_gpu *gpu, CUmodule mod, const char *path,
                                    const occ_name_match *match, CUfunction *fn,
                                    char *err, size_t err_size) {
  CUresult r = gpu->drv.cuModuleGetFunction(fn, mod, match->name);
  if (r != CUDA_ERROR_NOT_FOUND) {
    DRV(gpu, r);
    return OCC_GPU_OK;
  }
  unsigned int count, found = 0;
  CUfunction *fns = module_functions(gpu, mod, &count);
  for (unsigned int i = 0; fns && i < count; i++) {
    const char *name = function_name(gpu, fns[i]);
    if (name && match->accepts(match->context, name) && found++ == 0) *fn = fns[i];
  }
  if (found != 1)
    snprintf(err, err_size, found ? "%s: '%s' names %u kernels; give one's "
                                    "mangled name"
                                  : "%s: no kernel named '%s'",
             path, match->name, found);
  if (found != 1) list_kernels(gpu, fns, count, err, err_size);
  free(fns);
  return found == 1 ? OCC_GPU_OK : OCC_GPU_ERR_MODULE;
}

static occ_gpu_status module_query(occ_gpu *gpu, CUmodule mod, const char *path,
                                   const occ_name_match *match, int block_threads,
                                   int64_t smem_dynamic, int carveout,
                                   occ_module_kernel *out, char *err,
                                   size_t err_size) {
  CUfunction fn;
  occ_gpu_status s = find_function(gpu, mod, path, match, &fn, err, err_size);
  if (s != OCC_GPU_OK) return s;
  const char *found = function_name(gpu, fn);
  snprintf(out->name, sizeof out->name, "%s", found ? found : match->name);
  s = module_attrs(gpu, fn, out, err, err_size);
  if (s != OCC_GPU_OK) return s;
  s = set_smem_attrs(gpu, fn, smem_dynamic, out->smem_static_bytes, carveout,
                     err, err_size);
  if (s != OCC_GPU_OK) return s;
  DRV(gpu, gpu->drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
               &out->api_blocks_per_sm, fn, block_threads, (size_t)smem_dynamic));
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_module_kernel(occ_gpu *gpu, const char *path,
                                     const occ_name_match *match, int block_threads,
                                     int64_t smem_dynamic_bytes,
                                     int carveout_pct, occ_module_kernel *out,
                                     char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  char *data;
  size_t len;
  occ_gpu_status s = read_file(path, &data, &len, err, err_size);
  if (s != OCC_GPU_OK) return s;
  CUmodule mod;
  CUresult r = gpu->drv.cuModuleLoadDataEx(&mod, data, 0, NULL, NULL);
  free(data);
  if (r != CUDA_SUCCESS) {
    char text[160];
    drv_error_text(&gpu->drv, r, text, sizeof text);
    snprintf(err, err_size, "cuModuleLoadDataEx (%s:%d): %s: %s", __FILE__,
             __LINE__, path, text);
    return OCC_GPU_ERR_MODULE;
  }
  s = module_query(gpu, mod, path, match, block_threads, smem_dynamic_bytes,
                   carveout_pct, out, err, err_size);
  gpu->drv.cuModuleUnload(mod);
  return s;
}
