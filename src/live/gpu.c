/* gpu.c - the live GPU (see gpu.h for the contract). */
#include "live/gpu.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/activity.h"
#include "live/cluster_timeline.h"
#include "live/counter.h"
#include "live/cudart.h"
#include "live/dl.h"
#include "live/jitlink.h"
#include "live/timeline.h"

/* The probe's PTX, built from kernels/probe.cu and embedded by embed.sh. */
extern const unsigned char occ_probe_ptx[];
extern const size_t occ_probe_ptx_len;

/* Every spinning block stays this long, so that all blocks of a wave are
 * resident together whatever the block scheduler's launch rate
 * (measured: with a 200 us spin the overlapping intervals per SM matched
 * cuOccupancyMaxActiveBlocksPerMultiprocessor in 620 of 620
 * configurations on the H100 and the H200). */
#define SPIN_NS 200000ull
/* The timeline launches this many waves of API x SMs blocks: at least two
 * so that every SM is kept full while the last blocks run, four so that the ramp
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

/* The driver entry points occcalc uses, each of the ABI that its PFN type
 * names (the legacy default stream's variants). */
typedef struct driver_api {
  PFN_cuGetErrorName_v6000 cuGetErrorName;
  PFN_cuGetErrorString_v6000 cuGetErrorString;
  PFN_cuInit_v2000 cuInit;
  PFN_cuDeviceGetCount_v2000 cuDeviceGetCount;
  PFN_cuDeviceGet_v2000 cuDeviceGet;
  PFN_cuDeviceGetName_v2000 cuDeviceGetName;
  PFN_cuDeviceGetAttribute_v2000 cuDeviceGetAttribute;
  PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 cuDevicePrimaryCtxRelease;
  PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
  PFN_cuCtxGetCurrent_v4000 cuCtxGetCurrent;
  PFN_cuMemAlloc_v3020 cuMemAlloc;
  PFN_cuMemFree_v3020 cuMemFree;
  PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD;
  PFN_cuMemcpyDtoH_v3020 cuMemcpyDtoH;
  PFN_cuMemsetD8Async_v3020 cuMemsetD8Async;
  PFN_cuStreamQuery_v2000 cuStreamQuery;
  PFN_cuKernelGetFunction_v12000 cuKernelGetFunction;
  PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute;
  PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050
      cuOccupancyMaxActiveBlocksPerMultiprocessor;
  PFN_cuLaunchKernel_v4000 cuLaunchKernel;
  PFN_cuLaunchCooperativeKernel_v9000 cuLaunchCooperativeKernel;
  PFN_cuLaunchKernelEx_v11060 cuLaunchKernelEx;
  PFN_cuOccupancyMaxActiveClusters_v11070 cuOccupancyMaxActiveClusters;
  PFN_cuOccupancyMaxPotentialClusterSize_v11070
      cuOccupancyMaxPotentialClusterSize;
  /* Optional: only to name a module's kernels. */
  PFN_cuKernelGetName_v12030 cuKernelGetName;
} driver_api;

/* The driver, loaded by the first live command (occcalc has one thread):
 * libcuda.so.1 is only ever opened with dlopen, so ./occcalc starts, and
 * pays nothing for CUDA, where no live command runs or no driver exists. */
static driver_api drv;
static bool drv_ready;
/* The CUDA runtime, opened by occ_gpu_runtime_open (NULL until then). */
static const occ_cudart *rt;

/* One kernel as both APIs see it: the runtime's handle, which its
 * occupancy API is asked about, and the function it is in the device's
 * context, which the driver launches and reads attributes from. */
typedef struct kernel_handles {
  cudaKernel_t kernel;
  CUfunction function;
} kernel_handles;

typedef struct probe_module {
  cudaLibrary_t library; /* the probe's PTX, JIT-compiled with one cap */
  kernel_handles k;
  void *cubin; /* the image the library was loaded from, when it was
                  compiled ahead (occ_gpu_probe_prepare): it lives as long
                  as the library */
} probe_module;

struct occ_gpu {
  int ordinal;
  CUdevice cu_device;
  occ_device device;
  bool coop_supported;
  CUcontext context; /* the device's primary context, retained */
  bool runtime_ready; /* cudart's current device is this one */
  probe_module probes[MAX_CAP + 1]; /* by register cap */
  /* The JIT's error log: the driver may compile a library when a context
   * first needs it, so the buffer lives as long as the libraries. */
  char jit_log[1024];
  CUdeviceptr records_dev;
  probe_record *records_host;
  int64_t records_cap;
  CUdeviceptr seed_dev;
  CUdeviceptr sink_dev;
  occ_counter *counter;
  char counter_why[160]; /* set once opening the counter failed */
};

double occ_gpu_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "drv.cuLaunchKernel(f, ...)" -> "cuLaunchKernel": a message names the
 * CUDA function, not our expression around it. */
static void call_name(const char *call, char *out, size_t size) {
  size_t end = strcspn(call, "(");
  size_t start = end;
  while (start > 0 && call[start - 1] != '.' && call[start - 1] != '>' &&
         call[start - 1] != ' ')
    start--;
  snprintf(out, size, "%.*s", (int)(end - start), call + start);
}

static void drv_error_text(CUresult r, char *out, size_t size) {
  const char *name = NULL, *text = NULL;
  if (drv.cuGetErrorName) drv.cuGetErrorName(r, &name);
  if (drv.cuGetErrorString) drv.cuGetErrorString(r, &text);
  if (name && text)
    snprintf(out, size, "%s: %s", name, text);
  else
    snprintf(out, size, "CUresult %d", (int)r);
}

static occ_gpu_status drv_fail(CUresult r, const char *call, const char *file,
                               int line, char *err, size_t err_size) {
  char name[64], text[160];
  call_name(call, name, sizeof name);
  drv_error_text(r, text, sizeof text);
  snprintf(err, err_size, "%s (%s:%d): %s", name, file, line, text);
  return OCC_GPU_ERR_CUDA;
}

#define DRV(call)                                                           \
  do {                                                                      \
    CUresult drv_r_ = (call);                                               \
    if (drv_r_ != CUDA_SUCCESS)                                             \
      return drv_fail(drv_r_, #call, __FILE__, __LINE__, err, err_size);    \
  } while (0)

static occ_gpu_status rt_fail(cudaError_t e, const char *call, const char *file,
                              int line, char *err, size_t err_size) {
  char name[64];
  call_name(call, name, sizeof name);
  snprintf(err, err_size, "%s (%s:%d): %s: %s", name, file, line,
           rt->cudaGetErrorName(e), rt->cudaGetErrorString(e));
  return OCC_GPU_ERR_CUDA;
}

/* A runtime call, checked as DRV checks a driver call. */
#define RT(call)                                                            \
  do {                                                                      \
    cudaError_t rt_e_ = (call);                                             \
    if (rt_e_ != cudaSuccess)                                               \
      return rt_fail(rt_e_, #call, __FILE__, __LINE__, err, err_size);      \
  } while (0)

/* The ABI of each entry point as of this CUDA version: it matches the PFN
 * types above. */
#define ENTRY_VERSION 12040

static PFN_cuGetProcAddress_v12000 get_proc_address;

/* libcuda.so.1 and its cuGetProcAddress, through which every other entry
 * point is fetched by its base name and ENTRY_VERSION. */
static occ_gpu_status open_libcuda(char *err, size_t err_size) {
  static const char *const names[] = {"libcuda.so.1", NULL};
  static const occ_dl_library libcuda = {
      .what = "NVIDIA driver", .names = names, .flags = RTLD_NOW | RTLD_LOCAL};
  static void *lib;
  if (!lib) lib = occ_dl_open(&libcuda, NULL, 0, err, err_size);
  if (!lib) return OCC_GPU_ERR_CUDA;
  *(void **)&get_proc_address = dlsym(lib, "cuGetProcAddress_v2");
  if (!get_proc_address) {
    snprintf(err, err_size, "dlsym (%s:%d): libcuda.so.1 has no "
             "cuGetProcAddress_v2: the NVIDIA driver predates CUDA 12.0",
             __FILE__, __LINE__);
    return OCC_GPU_ERR_CUDA;
  }
  return OCC_GPU_OK;
}

/* cuGetProcAddress refuses every symbol of a version newer than the
 * driver: say so once, with both versions. */
static occ_gpu_status check_driver_version(char *err, size_t err_size) {
  PFN_cuDriverGetVersion_v2020 get_version = NULL;
  int version = 0;
  CUresult r = get_proc_address("cuDriverGetVersion", (void **)&get_version,
                                2020, CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL);
  if (r == CUDA_SUCCESS && !get_version) r = CUDA_ERROR_NOT_FOUND;
  if (r == CUDA_SUCCESS) r = get_version(&version);
  if (r != CUDA_SUCCESS)
    return drv_fail(r, "cuDriverGetVersion", __FILE__, __LINE__, err,
                    err_size);
  if (version >= ENTRY_VERSION) return OCC_GPU_OK;
  snprintf(err, err_size, "cuDriverGetVersion (%s:%d): the NVIDIA driver "
           "supports CUDA %d.%d; occcalc needs %d.%d or newer", __FILE__,
           __LINE__, version / 1000, version % 1000 / 10,
           ENTRY_VERSION / 1000, ENTRY_VERSION % 1000 / 10);
  return OCC_GPU_ERR_CUDA;
}

static occ_gpu_status load_entry(const char *symbol, void **fn, bool optional,
                                 char *err, size_t err_size) {
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = get_proc_address(symbol, fn, ENTRY_VERSION,
                                CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
  if (r == CUDA_SUCCESS && found == CU_GET_PROC_ADDRESS_SUCCESS && *fn)
    return OCC_GPU_OK;
  *fn = NULL;
  if (optional) return OCC_GPU_OK;
  if (r != CUDA_SUCCESS)
    return drv_fail(r, "cuGetProcAddress", __FILE__, __LINE__, err, err_size);
  snprintf(err, err_size, "cuGetProcAddress (%s:%d): the driver has no %s",
           __FILE__, __LINE__, symbol);
  return OCC_GPU_ERR_CUDA;
}

#define ENTRY(name, optional)                                                \
  do {                                                                       \
    occ_gpu_status s_ = load_entry(#name, (void **)&drv.name, optional, err, \
                                   err_size);                                \
    if (s_ != OCC_GPU_OK) return s_;                                         \
  } while (0)

static occ_gpu_status load_entries(char *err, size_t err_size) {
  ENTRY(cuGetErrorName, false);
  ENTRY(cuGetErrorString, false);
  ENTRY(cuInit, false);
  ENTRY(cuDeviceGetCount, false);
  ENTRY(cuDeviceGet, false);
  ENTRY(cuDeviceGetName, false);
  ENTRY(cuDeviceGetAttribute, false);
  ENTRY(cuDevicePrimaryCtxRetain, false);
  ENTRY(cuDevicePrimaryCtxRelease, false);
  ENTRY(cuCtxSetCurrent, false);
  ENTRY(cuCtxGetCurrent, false);
  ENTRY(cuMemAlloc, false);
  ENTRY(cuMemFree, false);
  ENTRY(cuMemcpyHtoD, false);
  ENTRY(cuMemcpyDtoH, false);
  ENTRY(cuMemsetD8Async, false);
  ENTRY(cuStreamQuery, false);
  ENTRY(cuKernelGetFunction, false);
  ENTRY(cuFuncGetAttribute, false);
  ENTRY(cuFuncSetAttribute, false);
  ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor, false);
  ENTRY(cuLaunchKernel, false);
  ENTRY(cuLaunchCooperativeKernel, false);
  ENTRY(cuLaunchKernelEx, false);
  ENTRY(cuOccupancyMaxActiveClusters, false);
  ENTRY(cuOccupancyMaxPotentialClusterSize, false);
  ENTRY(cuKernelGetName, true);
  return OCC_GPU_OK;
}

/* Opens the driver, fetches the entry points and initializes it, once. */
static occ_gpu_status load_driver(char *err, size_t err_size) {
  if (drv_ready) return OCC_GPU_OK;
  occ_gpu_status s;
  if ((s = open_libcuda(err, err_size)) != OCC_GPU_OK ||
      (s = check_driver_version(err, err_size)) != OCC_GPU_OK ||
      (s = load_entries(err, err_size)) != OCC_GPU_OK)
    return s;
  DRV(drv.cuInit(0));
  drv_ready = true;
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_runtime_open(char *err, size_t err_size) {
  if (!rt) rt = occ_cudart_open(err, err_size);
  return rt ? OCC_GPU_OK : OCC_GPU_ERR_CUDA;
}

/* Without a visible device cuInit fails with CUDA_ERROR_NO_DEVICE; a count
 * of 0 is the same error (the runtime reported it so). */
occ_gpu_status occ_gpu_count(int *count, char *err, size_t err_size) {
  occ_gpu_status s = load_driver(err, err_size);
  if (s != OCC_GPU_OK) return s;
  DRV(drv.cuDeviceGetCount(count));
  if (*count > 0) return OCC_GPU_OK;
  return drv_fail(CUDA_ERROR_NO_DEVICE, "cuDeviceGetCount", __FILE__,
                  __LINE__, err, err_size);
}

static occ_gpu_status read_attr(int *value, CUdevice_attribute attr,
                                CUdevice dev, char *err, size_t err_size) {
  DRV(drv.cuDeviceGetAttribute(value, attr, dev));
  return OCC_GPU_OK;
}

#define ATTR(field, attr)                                                   \
  do {                                                                      \
    int v_;                                                                 \
    occ_gpu_status s_ = read_attr(&v_, attr, dev, err, err_size);           \
    if (s_ != OCC_GPU_OK) return s_;                                        \
    (field) = v_;                                                           \
  } while (0)

/* The thread block cluster layout is measured per board (make
 * cluster-survey), so the device gets the one of the database's board of
 * its name, and only if that board has its SM count and capability;
 * otherwise it has none (unknown, never guessed). */
static void board_cluster_layout(const occ_gpudb *db, const char *name,
                                 occ_device *d) {
  occ_device board;
  char near[256];
  d->cluster_domain_count = 0;
  d->cluster_max_blocks_per_sm = 0;
  if (occ_gpudb_find_gpu(db, name, &board, near, sizeof near) != 0 ||
      board.sm_count != d->sm_count || board.cc_major != d->cc_major ||
      board.cc_minor != d->cc_minor)
    return;
  d->cluster_domain_count = board.cluster_domain_count;
  memcpy(d->cluster_domain_sms, board.cluster_domain_sms,
         sizeof d->cluster_domain_sms);
  d->cluster_max_blocks_per_sm = board.cluster_max_blocks_per_sm;
}

/* The database's entry for the capability gives what the driver does not
 * report (allocation units, carveout configurations, the barrier rule);
 * every limit the driver reports overwrites it. */
static occ_gpu_status read_device(CUdevice dev, int ordinal,
                                  const occ_gpudb *db, occ_device *d,
                                  bool *coop, char *err, size_t err_size) {
  int major, minor, coop_attr;
  ATTR(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  ATTR(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  char name[256];
  DRV(drv.cuDeviceGetName(name, (int)sizeof name, dev));
  char near[64];
  if (occ_gpudb_find_cc(db, major, minor, d, near, sizeof near) != 0) {
    snprintf(err, err_size, "device %d (%s) has compute capability %d.%d, "
             "which is not in the database (nearest: %s)", ordinal, name,
             major, minor, near);
    return OCC_GPU_ERR_DEVICE;
  }
  snprintf(d->name, sizeof d->name, "%.*s", OCC_NAME_MAX - 1, name);
  d->source = "driver";
  ATTR(d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  ATTR(d->warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  ATTR(d->max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  ATTR(d->max_block_dim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  ATTR(d->max_block_dim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  ATTR(d->max_block_dim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  ATTR(d->max_threads_per_sm,
       CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  ATTR(d->max_blocks_per_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  ATTR(d->regs_per_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  ATTR(d->regs_per_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  ATTR(d->smem_per_sm_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  ATTR(d->smem_per_block_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  ATTR(d->smem_per_block_optin_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  ATTR(d->reserved_smem_per_block_bytes,
       CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  ATTR(coop_attr, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  *coop = coop_attr != 0;
  board_cluster_layout(db, name, d);
  /* The driver's numbers with the database's rules must still hold
   * together (a configuration list ending at the SM's size, say). */
  char why[256];
  if (occ_device_check_text(d, why, sizeof why) == 0) return OCC_GPU_OK;
  snprintf(err, err_size, "device %d (%s): the driver's properties with the "
           "database's rules for cc %d.%d: %s", ordinal, d->name, major, minor, why);
  return OCC_GPU_ERR_DEVICE;
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
  DRV(drv.cuMemAlloc(&gpu->records_dev, bytes));
  DRV(drv.cuMemAlloc(&gpu->seed_dev, SEED_FLOATS * sizeof(float)));
  DRV(drv.cuMemAlloc(&gpu->sink_dev, SINK_FLOATS * sizeof(float)));
  /* Seeds near 1 keep the probe's arithmetic finite and its sum far from
   * the sentinel that would make it write. */
  float seed[SEED_FLOATS];
  for (int i = 0; i < SEED_FLOATS; i++) seed[i] = 0.5f + (float)i / 1024.0f;
  DRV(drv.cuMemcpyHtoD(gpu->seed_dev, seed, sizeof seed));
  return OCC_GPU_OK;
}

/* The device's primary context, the one the CUDA runtime and CUPTI would
 * use, made current on this thread. */
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
  DRV(drv.cuDeviceGet(&gpu->cu_device, gpu->ordinal));
  DRV(drv.cuDevicePrimaryCtxRetain(&gpu->context, gpu->cu_device));
  DRV(drv.cuCtxSetCurrent(gpu->context));
  s = read_device(gpu->cu_device, gpu->ordinal, db, &gpu->device,
                  &gpu->coop_supported, err, err_size);
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

/* Libraries were loaded only where the runtime was open; memory exists
 * only in a retained context. */
void occ_gpu_close(occ_gpu *gpu) {
  if (!gpu) return;
  occ_counter_close(gpu->counter);
  for (int i = 0; rt && i <= MAX_CAP; i++)
    if (gpu->probes[i].library) rt->cudaLibraryUnload(gpu->probes[i].library);
  for (int i = 0; i <= MAX_CAP; i++) free(gpu->probes[i].cubin);
  if (gpu->context) {
    if (gpu->records_dev) drv.cuMemFree(gpu->records_dev);
    if (gpu->seed_dev) drv.cuMemFree(gpu->seed_dev);
    if (gpu->sink_dev) drv.cuMemFree(gpu->sink_dev);
    drv.cuDevicePrimaryCtxRelease(gpu->cu_device);
  }
  free(gpu->records_host);
  free(gpu);
}

const occ_device *occ_gpu_device(const occ_gpu *gpu) { return &gpu->device; }
int occ_gpu_ordinal(const occ_gpu *gpu) { return gpu->ordinal; }

static double ms_since(double t0) { return (occ_gpu_now_s() - t0) * 1e3; }

/* The runtime's current device made this one, once per device: the
 * runtime then works in the primary context the driver calls use, which
 * is checked, not assumed (ordinals could differ between the two only if
 * the environment changed between their initializations). */
static occ_gpu_status runtime_device(occ_gpu *gpu, char *err, size_t err_size) {
  if (gpu->runtime_ready) return OCC_GPU_OK;
  occ_gpu_status s = occ_gpu_runtime_open(err, err_size);
  if (s != OCC_GPU_OK) return s;
  RT(rt->cudaSetDevice(gpu->ordinal));
  CUcontext current = NULL;
  DRV(drv.cuCtxGetCurrent(&current));
  if (current != gpu->context) {
    snprintf(err, err_size, "cudaSetDevice (%s:%d): the runtime's device %d "
             "is not in the driver's context for device %d", __FILE__,
             __LINE__, gpu->ordinal, gpu->ordinal);
    return OCC_GPU_ERR_DEVICE;
  }
  gpu->runtime_ready = true;
  return OCC_GPU_OK;
}

/* The kernel's function in the device's context; under lazy loading (the
 * default) this is what loads the library there, JIT-compiling PTX. */
static occ_gpu_status kernel_function(kernel_handles *k, char *err,
                                      size_t err_size) {
  DRV(drv.cuKernelGetFunction(&k->function, (CUkernel)k->kernel));
  return OCC_GPU_OK;
}

static occ_gpu_status probe_handles(probe_module *p, char *err,
                                    size_t err_size) {
  RT(rt->cudaLibraryGetKernel(&p->k.kernel, p->library, "occ_probe"));
  return kernel_function(&p->k, err, err_size);
}

/* Appends " (LOG)" to err when the JIT left a log. */
static void append_log(const char *log, char *err, size_t err_size) {
  size_t used = strlen(err);
  if (log[0]) snprintf(err + used, err_size - used, " (%s)", log);
}

/* Loads the probe with the runtime, the JIT's max-registers option set to
 * cap, once per cap: the probe keeps more live values than any cap, so it
 * gets exactly cap registers (read back by the caller). */
static occ_gpu_status probe_kernel(occ_gpu *gpu, int cap, kernel_handles *k,
                                   bool *cached, char *err, size_t err_size) {
  probe_module *p = &gpu->probes[cap];
  *cached = p->library != NULL;
  if (!p->library) {
    gpu->jit_log[0] = '\0';
    enum cudaJitOption opts[] = {cudaJitMaxRegisters, cudaJitErrorLogBuffer,
                                 cudaJitErrorLogBufferSizeBytes};
    void *vals[] = {(void *)(uintptr_t)cap, gpu->jit_log,
                    (void *)(uintptr_t)sizeof gpu->jit_log};
    cudaError_t e = rt->cudaLibraryLoadData(&p->library, occ_probe_ptx, opts,
                                            vals, 3, NULL, NULL, 0);
    if (e != cudaSuccess) {
      p->library = NULL;
      occ_gpu_status s = rt_fail(e, "cudaLibraryLoadData", __FILE__, __LINE__,
                                 err, err_size);
      append_log(gpu->jit_log, err, err_size);
      return s;
    }
    occ_gpu_status s = probe_handles(p, err, err_size);
    if (s != OCC_GPU_OK) {
      append_log(gpu->jit_log, err, err_size);
      rt->cudaLibraryUnload(p->library);
      p->library = NULL;
      return s;
    }
  }
  *k = p->k;
  return OCC_GPU_OK;
}

static occ_gpu_status func_attr(CUfunction fn, CUfunction_attribute attr,
                                int *value, char *err, size_t err_size) {
  DRV(drv.cuFuncGetAttribute(value, attr, fn));
  return OCC_GPU_OK;
}

/* Sets what the occupancy API and the launch read from the kernel: the
 * dynamic shared-memory opt-in (reset below the default cap, since the
 * probe is reused) and the carveout preference. Set through the runtime,
 * as a program using cudart would, and on the context's function, which
 * the driver launches and answers for, so both APIs see the same kernel
 * whatever the runtime does with a cudaKernel_t's attributes. */
static occ_gpu_status set_smem_attrs(occ_gpu *gpu, const kernel_handles *k,
                                     int64_t smem_dynamic, int64_t smem_static,
                                     int carveout, char *err,
                                     size_t err_size) {
  int64_t max_dyn = gpu->device.smem_per_block_bytes - smem_static;
  if (smem_dynamic > max_dyn) max_dyn = smem_dynamic;
  if (max_dyn < 0) max_dyn = 0;
  int pref = carveout < 0 ? cudaSharedmemCarveoutDefault : carveout;
  RT(rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)max_dyn));
  RT(rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributePreferredSharedMemoryCarveout,
                              pref));
  DRV(drv.cuFuncSetAttribute(
      k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      (int)max_dyn));
  DRV(drv.cuFuncSetAttribute(
      k->function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, pref));
  return OCC_GPU_OK;
}

/* The CUDA occupancy API's answer (cudart's, given the cudaKernel_t) and
 * the driver's for the same kernel and launch. */
static occ_gpu_status ask_occupancy(const kernel_handles *k, int block_threads,
                                    int64_t smem_dynamic, int *api, int *driver,
                                    char *err, size_t err_size) {
  RT(rt->cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      api, (const void *)k->kernel, block_threads, (size_t)smem_dynamic));
  DRV(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
      driver, k->function, block_threads, (size_t)smem_dynamic));
  return OCC_GPU_OK;
}

/* Waits for the device with a deadline instead of a blocking synchronize,
 * so a probe that does not end cannot hang occcalc. */
static occ_gpu_status wait_idle(double deadline, char *err, size_t err_size) {
  double limit = occ_gpu_now_s() + LAUNCH_WAIT_S;
  if (deadline > 0 && deadline < limit) limit = deadline;
  for (;;) {
    CUresult r = drv.cuStreamQuery(NULL);
    if (r == CUDA_SUCCESS) return OCC_GPU_OK;
    if (r != CUDA_ERROR_NOT_READY)
      return drv_fail(r, "cuStreamQuery", __FILE__, __LINE__, err, err_size);
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
  DRV(drv.cuMemsetD8Async(gpu->records_dev, 0,
                          (size_t)grid * sizeof(probe_record), NULL));
  if (cooperative)
    *result = drv.cuLaunchCooperativeKernel(
        fn, (unsigned)grid, 1, 1, (unsigned)cfg->block_threads, 1, 1, smem,
        NULL, args);
  else
    *result = drv.cuLaunchKernel(fn, (unsigned)grid, 1, 1,
                                 (unsigned)cfg->block_threads, 1, 1, smem,
                                 NULL, args, NULL);
  return wait_idle(cfg->deadline_s, err, err_size);
}

static void error_name(CUresult r, char *out, size_t n) {
  const char *name = NULL;
  drv.cuGetErrorName(r, &name);
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
  bool tracing = occ_activity_begin(run->smem_config_error,
                                    sizeof run->smem_config_error) == 0;
  occ_gpu_status s = launch(gpu, fn, false, grid, cfg, SPIN_NS, &r, err, err_size);
  if (tracing)
    executed_config(s == OCC_GPU_OK && r == CUDA_SUCCESS, run);
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
    error_name(r, run->launch_error, sizeof run->launch_error);
    run->counter_ok = false;
    if (cfg->counter)
      snprintf(run->counter_error, sizeof run->counter_error,
               "the probe was not launched");
    return OCC_GPU_OK;
  }
  run->launched = true;
  t1 = occ_gpu_now_s();
  DRV(drv.cuMemcpyDtoH(gpu->records_host, gpu->records_dev,
                       (size_t)grid * sizeof(probe_record)));
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
    error_name(r_fit, a, sizeof a);
    error_name(r_over, b, sizeof b);
    snprintf(run->coop_note, sizeof run->coop_note, "%lld blocks: %s; %lld: %s",
             (long long)n, a, (long long)n + 1, b);
  }
  run->coop_ms = ms_since(t0);
  return OCC_GPU_OK;
}

static occ_gpu_status module_attrs(CUfunction fn, occ_module_kernel *out,
                                   char *err, size_t err_size) {
  int regs, smem, local, cnst, threads, ptx, bin;
  occ_gpu_status s;
  if ((s = func_attr(fn, CU_FUNC_ATTRIBUTE_NUM_REGS, &regs, err, err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &smem, err,
                     err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local, err,
                     err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &cnst, err,
                     err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &threads,
                     err, err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_PTX_VERSION, &ptx, err, err_size)) ||
      (s = func_attr(fn, CU_FUNC_ATTRIBUTE_BINARY_VERSION, &bin, err,
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
static occ_gpu_status probe_attrs(CUfunction fn, occ_probe_run *run,
                                  char *err, size_t err_size) {
  occ_module_kernel attrs;
  occ_gpu_status s = module_attrs(fn, &attrs, err, err_size);
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
  run->smem_config_executed_bytes = -1;
  if (cfg->deadline_s > 0 && occ_gpu_now_s() > cfg->deadline_s) {
    snprintf(err, err_size, "the verification's time limit was reached");
    return OCC_GPU_ERR_TIMEOUT;
  }
  int cap = cfg->regs_per_thread < 1 ? 1
            : cfg->regs_per_thread > MAX_CAP ? MAX_CAP
                                             : cfg->regs_per_thread;
  occ_gpu_status s = runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  kernel_handles k;
  double t0 = occ_gpu_now_s();
  s = probe_kernel(gpu, cap, &k, &run->jit_cached, err, err_size);
  run->jit_ms = ms_since(t0);
  if (s != OCC_GPU_OK) return s;
  if ((s = probe_attrs(k.function, run, err, err_size)) != OCC_GPU_OK) return s;
  s = set_smem_attrs(gpu, &k, cfg->smem_dynamic_bytes, run->smem_static_bytes,
                     cfg->carveout_pct, err, err_size);
  if (s == OCC_GPU_OK)
    s = ask_occupancy(&k, cfg->block_threads, cfg->smem_dynamic_bytes,
                      &run->api_blocks_per_sm, &run->driver_api_blocks_per_sm,
                      err, err_size);
  if (s == OCC_GPU_OK) s = timeline_run(gpu, k.function, cfg, run, err, err_size);
  if (s != OCC_GPU_OK) return s;
  return coop_run(gpu, k.function, cfg, run, err, err_size);
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

/* The library's kernels (NULL where there are none or on an error; the
 * caller frees). */
static cudaKernel_t *library_kernels(cudaLibrary_t lib, unsigned int *count) {
  *count = 0;
  if (rt->cudaLibraryGetKernelCount(count, lib) != cudaSuccess || !*count)
    return NULL;
  cudaKernel_t *kernels = calloc(*count, sizeof *kernels);
  if (kernels &&
      rt->cudaLibraryEnumerateKernels(kernels, *count, lib) == cudaSuccess)
    return kernels;
  free(kernels);
  return NULL;
}

/* A kernel's name in its module (mangled for C++), where the driver can
 * say it (cuKernelGetName, CUDA 12.3). */
static const char *kernel_name(cudaKernel_t kernel) {
  const char *name = NULL;
  if (!drv.cuKernelGetName) return NULL;
  return drv.cuKernelGetName(&name, (CUkernel)kernel) == CUDA_SUCCESS ? name
                                                                      : NULL;
}

/* Appends " (kernels: a b c)" to err. */
static void list_kernels(const cudaKernel_t *kernels, unsigned int count,
                         char *err, size_t err_size) {
  if (!kernels || !drv.cuKernelGetName) return;
  size_t used = strlen(err);
  snprintf(err + used, err_size - used, " (kernels:");
  for (unsigned int i = 0; i < count; i++) {
    const char *name = kernel_name(kernels[i]);
    used = strlen(err);
    if (name) snprintf(err + used, err_size - used, " %s", name);
  }
  used = strlen(err);
  snprintf(err + used, err_size - used, ")");
}

/* What cudaLibraryGetKernel answers for a name the library lacks. */
static bool no_such_kernel(cudaError_t e) {
  return e == cudaErrorSymbolNotFound || e == cudaErrorInvalidDeviceFunction;
}

/* The kernel called name: by its name in the module (mangled for C++),
 * else the one kernel whose name match accepts (its readable name). */
static occ_gpu_status find_kernel(cudaLibrary_t lib, const char *path,
                                  const occ_name_match *match,
                                  cudaKernel_t *kernel, char *err,
                                  size_t err_size) {
  cudaError_t e = rt->cudaLibraryGetKernel(kernel, lib, match->name);
  if (e == cudaSuccess) return OCC_GPU_OK;
  if (!no_such_kernel(e))
    return rt_fail(e, "cudaLibraryGetKernel", __FILE__, __LINE__, err,
                   err_size);
  unsigned int count, found = 0;
  cudaKernel_t *kernels = library_kernels(lib, &count);
  const char *mangled = NULL;
  for (unsigned int i = 0; kernels && i < count; i++) {
    const char *name = kernel_name(kernels[i]);
    if (name && match->accepts(match->context, name) && found++ == 0)
      mangled = name;
  }
  /* The one match is fetched by its name, as a kernel named exactly is. */
  if (found == 1) {
    e = rt->cudaLibraryGetKernel(kernel, lib, mangled);
    free(kernels);
    if (e == cudaSuccess) return OCC_GPU_OK;
    return rt_fail(e, "cudaLibraryGetKernel", __FILE__, __LINE__, err,
                   err_size);
  }
  snprintf(err, err_size, found ? "%s: '%s' names %u kernels; give one's "
                                  "mangled name"
                                : "%s: no kernel named '%s'",
           path, match->name, found);
  list_kernels(kernels, count, err, err_size);
  free(kernels);
  return OCC_GPU_ERR_MODULE;
}

static occ_gpu_status module_query(occ_gpu *gpu, cudaLibrary_t lib,
                                   const char *path,
                                   const occ_name_match *match,
                                   int block_threads, int64_t smem_dynamic,
                                   int carveout, occ_module_kernel *out,
                                   char *err, size_t err_size) {
  kernel_handles k;
  occ_gpu_status s = find_kernel(lib, path, match, &k.kernel, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if ((s = kernel_function(&k, err, err_size)) != OCC_GPU_OK) return s;
  const char *found = kernel_name(k.kernel);
  snprintf(out->name, sizeof out->name, "%s", found ? found : match->name);
  s = module_attrs(k.function, out, err, err_size);
  if (s != OCC_GPU_OK) return s;
  s = set_smem_attrs(gpu, &k, smem_dynamic, out->smem_static_bytes, carveout,
                     err, err_size);
  if (s != OCC_GPU_OK) return s;
  return ask_occupancy(&k, block_threads, smem_dynamic, &out->api_blocks_per_sm,
                       &out->driver_api_blocks_per_sm, err, err_size);
}

occ_gpu_status occ_gpu_module_kernel(occ_gpu *gpu, const char *path,
                                     const occ_name_match *match, int block_threads,
                                     int64_t smem_dynamic_bytes,
                                     int carveout_pct, occ_module_kernel *out,
                                     char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  occ_gpu_status s = runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  char *data;
  size_t len;
  if ((s = read_file(path, &data, &len, err, err_size)) != OCC_GPU_OK) return s;
  /* The image stays with the library until it is unloaded: under lazy
   * loading the driver reads it when the kernel is first used. */
  cudaLibrary_t lib;
  cudaError_t e = rt->cudaLibraryLoadData(&lib, data, NULL, NULL, 0, NULL,
                                          NULL, 0);
  if (e != cudaSuccess) {
    free(data);
    snprintf(err, err_size, "cudaLibraryLoadData (%s:%d): %s: %s: %s",
             __FILE__, __LINE__, path, rt->cudaGetErrorName(e),
             rt->cudaGetErrorString(e));
    return OCC_GPU_ERR_MODULE;
  }
  s = module_query(gpu, lib, path, match, block_threads, smem_dynamic_bytes,
                   carveout_pct, out, err, err_size);
  rt->cudaLibraryUnload(lib);
  free(data);
  return s;
}

/* --- Thread block clusters --- */

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
 * through the runtime and on the context's function, as set_smem_attrs. */
static occ_gpu_status set_cluster_attrs(const kernel_handles *k, bool allowed,
                                        char *err, size_t err_size) {
  RT(rt->cudaFuncSetAttribute((const void *)k->kernel,
                              cudaFuncAttributeNonPortableClusterSizeAllowed,
                              allowed ? 1 : 0));
  DRV(drv.cuFuncSetAttribute(
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
  RT(rt->cudaOccupancyMaxActiveClusters(&run->api_max_active_clusters,
                                        (const void *)k->kernel, &rcfg));
  CUlaunchAttribute dattr;
  CUlaunchConfig dcfg = cluster_launch_config((int64_t)size * 64, size,
                                              &cfg->probe, &dattr);
  DRV(drv.cuOccupancyMaxActiveClusters(&run->driver_api_max_active_clusters,
                                       k->function, &dcfg));
  dcfg.numAttrs = 0; /* the potential size is asked without one */
  DRV(drv.cuOccupancyMaxPotentialClusterSize(&run->max_potential_cluster_size,
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
  DRV(drv.cuMemsetD8Async(gpu->records_dev, 0,
                          (size_t)grid * sizeof(probe_record), NULL));
  CUresult r = drv.cuLaunchKernelEx(&c, fn, args, NULL);
  occ_gpu_status s = wait_idle(cfg->probe.deadline_s, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (r != CUDA_SUCCESS) {
    run->launched = false;
    error_name(r, run->launch_error, sizeof run->launch_error);
    return OCC_GPU_OK;
  }
  run->launched = true;
  DRV(drv.cuMemcpyDtoH(gpu->records_host, gpu->records_dev,
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
  if (p->deadline_s > 0 && occ_gpu_now_s() > p->deadline_s) {
    snprintf(err, err_size, "the verification's time limit was reached");
    return OCC_GPU_ERR_TIMEOUT;
  }
  int cap = p->regs_per_thread < 1 ? 1
            : p->regs_per_thread > MAX_CAP ? MAX_CAP : p->regs_per_thread;
  occ_gpu_status s = runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  kernel_handles k;
  bool cached;
  double t0 = occ_gpu_now_s();
  s = probe_kernel(gpu, cap, &k, &cached, err, err_size);
  run->jit_ms = ms_since(t0);
  if (s != OCC_GPU_OK) return s;
  occ_probe_run attrs;
  if ((s = probe_attrs(k.function, &attrs, err, err_size)) != OCC_GPU_OK ||
      (s = set_smem_attrs(gpu, &k, p->smem_dynamic_bytes,
                          attrs.smem_static_bytes, p->carveout_pct, err,
                          err_size)) != OCC_GPU_OK ||
      (s = set_cluster_attrs(&k, cfg->non_portable, err, err_size)) !=
          OCC_GPU_OK)
    return s;
  run->regs_per_thread = attrs.regs_per_thread;
  int driver_blocks;
  if ((s = ask_occupancy(&k, p->block_threads, p->smem_dynamic_bytes,
                         &run->api_blocks_per_sm, &driver_blocks, err,
                         err_size)) != OCC_GPU_OK ||
      (s = ask_clusters(&k, cfg, run, err, err_size)) != OCC_GPU_OK)
    return s;
  /* WAVES x the API's clusters keep every domain full; one cluster, to be
   * refused, when the API says none fit. Never more than the records. */
  int64_t clusters = run->api_max_active_clusters > 0
                         ? WAVES * (int64_t)run->api_max_active_clusters
                         : 1;
  if (clusters * cfg->cluster_size > gpu->records_cap)
    clusters = gpu->records_cap / cfg->cluster_size;
  run->grid_blocks = clusters * cfg->cluster_size;
  t0 = occ_gpu_now_s();
  for (int i = 0; i < OCC_CLUSTER_PROBE_LAUNCHES; i++) {
    s = cluster_launch(gpu, k.function, cfg, run->grid_blocks, run, err,
                       err_size);
    if (s != OCC_GPU_OK || !run->launched) break;
  }
  run->launch_ms = ms_since(t0);
  return s;
}

/* --- Probes compiled ahead, in parallel --- */

/* The caps still to compile, taken by the workers in turn. */
typedef struct prepare_work {
  const int *caps;
  int count, next;
  int cc_major, cc_minor;
  void **cubins;
  size_t *sizes;
  pthread_mutex_t lock;
  bool failed;
  char err[512];
} prepare_work;

static void *prepare_worker(void *arg) {
  prepare_work *w = arg;
  for (;;) {
    pthread_mutex_lock(&w->lock);
    int i = w->failed ? w->count : w->next++;
    pthread_mutex_unlock(&w->lock);
    if (i >= w->count) return NULL;
    char err[512];
    if (occ_jitlink_compile((const char *)occ_probe_ptx, w->cc_major,
                            w->cc_minor, w->caps[i], &w->cubins[i],
                            &w->sizes[i], err, sizeof err) != 0) {
      pthread_mutex_lock(&w->lock);
      if (!w->failed) snprintf(w->err, sizeof w->err, "%s", err);
      w->failed = true;
      pthread_mutex_unlock(&w->lock);
    }
  }
}

/* Compiles w's caps on up to one thread per online CPU. */
static void compile_all(prepare_work *w) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
  if (threads > w->count) threads = w->count;
  pthread_t ids[64];
  int started = 0;
  for (; started < threads; started++)
    if (pthread_create(&ids[started], NULL, prepare_worker, w) != 0) break;
  if (started == 0) prepare_worker(w); /* no thread: this one does it all */
  for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
}

/* Loads the compiled caps with the runtime, as probe_kernel loads PTX; a
 * probe module takes its cubin over. */
static occ_gpu_status load_prepared(occ_gpu *gpu, prepare_work *w, char *err,
                                    size_t err_size) {
  for (int i = 0; i < w->count; i++) {
    probe_module *p = &gpu->probes[w->caps[i]];
    RT(rt->cudaLibraryLoadData(&p->library, w->cubins[i], NULL, NULL, 0, NULL,
                               NULL, 0));
    p->cubin = w->cubins[i];
    w->cubins[i] = NULL;
    occ_gpu_status s = probe_handles(p, err, err_size);
    if (s != OCC_GPU_OK) {
      rt->cudaLibraryUnload(p->library);
      p->library = NULL;
      free(p->cubin);
      p->cubin = NULL;
      return s;
    }
  }
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_probe_prepare(occ_gpu *gpu, const int *caps, int count,
                                     int *compiled, char *why, size_t why_size,
                                     char *err, size_t err_size) {
  *compiled = 0;
  why[0] = '\0';
  occ_gpu_status s = runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (!occ_jitlink_open(why, why_size)) return OCC_GPU_OK;
  int todo[MAX_CAP + 1], n = 0;
  bool wanted[MAX_CAP + 1] = {false};
  for (int i = 0; i < count; i++) {
    int cap = caps[i] < 1 ? 1 : caps[i] > MAX_CAP ? MAX_CAP : caps[i];
    if (!wanted[cap] && !gpu->probes[cap].library) todo[n++] = cap;
    wanted[cap] = true;
  }
  if (n == 0) return OCC_GPU_OK;
  void *cubins[MAX_CAP + 1] = {NULL};
  size_t sizes[MAX_CAP + 1];
  prepare_work w = {.caps = todo, .count = n, .cc_major = gpu->device.cc_major,
                    .cc_minor = gpu->device.cc_minor, .cubins = cubins,
                    .sizes = sizes};
  pthread_mutex_init(&w.lock, NULL);
  compile_all(&w);
  pthread_mutex_destroy(&w.lock);
  /* A cap that did not compile ahead is left to the driver's JIT. */
  if (w.failed)
    snprintf(why, why_size, "%s", w.err);
  else
    s = load_prepared(gpu, &w, err, err_size);
  for (int i = 0; i < n; i++) free(cubins[i]);
  if (s == OCC_GPU_OK && !w.failed) *compiled = n;
  return s;
}
