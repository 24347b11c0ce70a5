/* gpu_impl.h - what the live GPU's files share (gpu_driver.c,
 * gpu_device.c, gpu_probe.c, gpu_module.c, gpu_cluster.c,
 * gpu_prepare.c): the driver's entry points, the open device, the probe's
 * handles and the checked-call macros. Internal to src/live/; the
 * contract is gpu.h. */
#ifndef OCC_GPU_IMPL_H
#define OCC_GPU_IMPL_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stdint.h>

#include "live/cudart.h"
#include "live/counter.h"
#include "live/gpu.h"
#include "live/timeline.h"

/* The probe's PTX, built from src/live/probe.cu and embedded by embed.sh. */
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
 * pays nothing for CUDA, where no live command runs or no driver exists
 * (gpu_driver.c fills it). */
extern driver_api occ_drv;
/* The CUDA runtime, opened by occ_gpu_runtime_open (NULL until then). */
extern const occ_cudart *occ_rt;

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


static inline double occ_ms_since(double t0) { return (occ_gpu_now_s() - t0) * 1e3; }

/* The register cap the probe is compiled with for a kernel of regs
 * registers per thread: 1 to MAX_CAP. */
static inline int occ_gpu_cap_of(int regs) {
  return regs < 1 ? 1 : regs > MAX_CAP ? MAX_CAP : regs;
}

/* A failed driver or runtime call as err's text ("cuLaunchKernel
 * (file:line): NAME: text"); returns OCC_GPU_ERR_CUDA. */
occ_gpu_status occ_drv_fail(CUresult r, const char *call, const char *file,
                            int line, char *err, size_t err_size);
occ_gpu_status occ_rt_fail(cudaError_t e, const char *call, const char *file,
                           int line, char *err, size_t err_size);

/* Checked calls: on failure, return the status with the call, file and
 * line in err (the caller's err and err_size). */
#define DRV(call)                                                           \
  do {                                                                      \
    CUresult drv_r_ = (call);                                               \
    if (drv_r_ != CUDA_SUCCESS)                                             \
      return occ_drv_fail(drv_r_, #call, __FILE__, __LINE__, err, err_size);    \
  } while (0)

/* A runtime call, checked as DRV checks a driver call. */
#define RT(call)                                                            \
  do {                                                                      \
    cudaError_t rt_e_ = (call);                                             \
    if (rt_e_ != cudaSuccess)                                               \
      return occ_rt_fail(rt_e_, #call, __FILE__, __LINE__, err, err_size);      \
  } while (0)

/* The CUresult's name ("CUDA_ERROR_...") in out. */
void occ_drv_error_name(CUresult r, char *out, size_t n);

/* gpu_device.c: the runtime's current device made gpu, once. */
occ_gpu_status occ_gpu_runtime_device(occ_gpu *gpu, char *err, size_t err_size);

/* gpu_probe.c: the probe's handles, loaded once per register cap, and the
 * attributes and occupancy questions a module's kernel shares with it. */
occ_gpu_status occ_gpu_kernel_function(kernel_handles *k, char *err,
                                       size_t err_size);
occ_gpu_status occ_gpu_probe_handles(probe_module *p, char *err,
                                     size_t err_size);
occ_gpu_status occ_gpu_probe_kernel(occ_gpu *gpu, int cap, kernel_handles *k,
                                    bool *cached, char *err, size_t err_size);
/* The probe for cfg's registers, on the runtime's device made gpu, unless
 * cfg's deadline has passed (OCC_GPU_ERR_TIMEOUT); its load time in
 * *jit_ms, *cached when it was loaded before. */
occ_gpu_status occ_gpu_probe_load(occ_gpu *gpu, const occ_probe_config *cfg,
                                  kernel_handles *k, bool *cached,
                                  double *jit_ms, char *err, size_t err_size);
occ_gpu_status occ_gpu_set_smem_attrs(occ_gpu *gpu, const kernel_handles *k,
                                      int64_t smem_dynamic, int64_t smem_static,
                                      int carveout, char *err, size_t err_size);
occ_gpu_status occ_gpu_ask_occupancy(const kernel_handles *k, int block_threads,
                                     int64_t smem_dynamic, int *api, int *driver,
                                     char *err, size_t err_size);
occ_gpu_status occ_gpu_wait_idle(double deadline, char *err, size_t err_size);
occ_gpu_status occ_gpu_probe_attrs(CUfunction fn, occ_probe_run *run,
                                   char *err, size_t err_size);

/* gpu_module.c: a kernel's attributes as the driver reads them. */
occ_gpu_status occ_gpu_module_attrs(CUfunction fn, occ_module_kernel *out,
                                    char *err, size_t err_size);

#endif
