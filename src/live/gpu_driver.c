/* gpu_driver.c - the NVIDIA driver, opened with dlopen: its entry points, its error
 * text, the CUDA runtime beside it, and the device count (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "live/dl.h"

driver_api occ_drv;
static bool drv_ready;
const occ_cudart *occ_rt;

double occ_gpu_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "occ_drv.cuLaunchKernel(f, ...)" -> "cuLaunchKernel": a message names the
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
  if (occ_drv.cuGetErrorName) occ_drv.cuGetErrorName(r, &name);
  if (occ_drv.cuGetErrorString) occ_drv.cuGetErrorString(r, &text);
  if (name && text)
    snprintf(out, size, "%s: %s", name, text);
  else
    snprintf(out, size, "CUresult %d", (int)r);
}

occ_gpu_status occ_drv_fail(CUresult r, const char *call, const char *file,
                               int line, char *err, size_t err_size) {
  char name[64], text[160];
  call_name(call, name, sizeof name);
  drv_error_text(r, text, sizeof text);
  snprintf(err, err_size, "%s (%s:%d): %s", name, file, line, text);
  return OCC_GPU_ERR_CUDA;
}


occ_gpu_status occ_rt_fail(cudaError_t e, const char *call, const char *file,
                              int line, char *err, size_t err_size) {
  char name[64];
  call_name(call, name, sizeof name);
  snprintf(err, err_size, "%s (%s:%d): %s: %s", name, file, line,
           occ_rt->cudaGetErrorName(e), occ_rt->cudaGetErrorString(e));
  return OCC_GPU_ERR_CUDA;
}


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
    return occ_drv_fail(r, "cuDriverGetVersion", __FILE__, __LINE__, err,
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
    return occ_drv_fail(r, "cuGetProcAddress", __FILE__, __LINE__, err, err_size);
  snprintf(err, err_size, "cuGetProcAddress (%s:%d): the driver has no %s",
           __FILE__, __LINE__, symbol);
  return OCC_GPU_ERR_CUDA;
}

#define ENTRY(name, optional)                                                \
  do {                                                                       \
    occ_gpu_status s_ = load_entry(#name, (void **)&occ_drv.name, optional, err, \
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
  DRV(occ_drv.cuInit(0));
  drv_ready = true;
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_runtime_open(char *err, size_t err_size) {
  if (!occ_rt) occ_rt = occ_cudart_open(err, err_size);
  return occ_rt ? OCC_GPU_OK : OCC_GPU_ERR_CUDA;
}

/* Without a visible device cuInit fails with CUDA_ERROR_NO_DEVICE; a count
 * of 0 is the same error (the runtime reported it so). */
occ_gpu_status occ_gpu_count(int *count, char *err, size_t err_size) {
  occ_gpu_status s = load_driver(err, err_size);
  if (s != OCC_GPU_OK) return s;
  DRV(occ_drv.cuDeviceGetCount(count));
  if (*count > 0) return OCC_GPU_OK;
  return occ_drv_fail(CUDA_ERROR_NO_DEVICE, "cuDeviceGetCount", __FILE__,
                  __LINE__, err, err_size);
}

void occ_drv_error_name(CUresult r, char *out, size_t n) {
  const char *name = NULL;
  occ_drv.cuGetErrorName(r, &name);
  snprintf(out, n, "%s", name ? name : "unknown CUresult");
}
