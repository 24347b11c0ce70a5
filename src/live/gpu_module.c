/* gpu_module.c - --module: a user's cubin, fatbin or PTX loaded, its kernel found by
 * name, its attributes and the occupancy API's answer (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static occ_gpu_status func_attr(CUfunction fn, CUfunction_attribute attr,
                                int *value, char *err, size_t err_size) {
  DRV(occ_drv.cuFuncGetAttribute(value, attr, fn));
  return OCC_GPU_OK;
}

occ_gpu_status occ_gpu_module_attrs(CUfunction fn, occ_module_kernel *out,
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
  if (occ_rt->cudaLibraryGetKernelCount(count, lib) != cudaSuccess || !*count)
    return NULL;
  cudaKernel_t *kernels = calloc(*count, sizeof *kernels);
  if (kernels &&
      occ_rt->cudaLibraryEnumerateKernels(kernels, *count, lib) == cudaSuccess)
    return kernels;
  free(kernels);
  return NULL;
}

/* A kernel's name in its module (mangled for C++), where the driver can
 * say it (cuKernelGetName, CUDA 12.3). */
static const char *kernel_name(cudaKernel_t kernel) {
  const char *name = NULL;
  if (!occ_drv.cuKernelGetName) return NULL;
  return occ_drv.cuKernelGetName(&name, (CUkernel)kernel) == CUDA_SUCCESS ? name
                                                                      : NULL;
}

/* Appends " (kernels: a b c)" to err. */
static void list_kernels(const cudaKernel_t *kernels, unsigned int count,
                         char *err, size_t err_size) {
  if (!kernels || !occ_drv.cuKernelGetName) return;
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
  cudaError_t e = occ_rt->cudaLibraryGetKernel(kernel, lib, match->name);
  if (e == cudaSuccess) return OCC_GPU_OK;
  if (!no_such_kernel(e))
    return occ_rt_fail(e, "cudaLibraryGetKernel", __FILE__, __LINE__, err,
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
    e = occ_rt->cudaLibraryGetKernel(kernel, lib, mangled);
    free(kernels);
    if (e == cudaSuccess) return OCC_GPU_OK;
    return occ_rt_fail(e, "cudaLibraryGetKernel", __FILE__, __LINE__, err,
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
  if ((s = occ_gpu_kernel_function(&k, err, err_size)) != OCC_GPU_OK) return s;
  const char *found = kernel_name(k.kernel);
  snprintf(out->name, sizeof out->name, "%s", found ? found : match->name);
  s = occ_gpu_module_attrs(k.function, out, err, err_size);
  if (s != OCC_GPU_OK) return s;
  s = occ_gpu_set_smem_attrs(gpu, &k, smem_dynamic, out->smem_static_bytes, carveout,
                     err, err_size);
  if (s != OCC_GPU_OK) return s;
  return occ_gpu_ask_occupancy(&k, block_threads, smem_dynamic, &out->api_blocks_per_sm,
                       &out->driver_api_blocks_per_sm, err, err_size);
}

occ_gpu_status occ_gpu_module_kernel(occ_gpu *gpu, const char *path,
                                     const occ_name_match *match, int block_threads,
                                     int64_t smem_dynamic_bytes,
                                     int carveout_pct, occ_module_kernel *out,
                                     char *err, size_t err_size) {
  memset(out, 0, sizeof *out);
  occ_gpu_status s = occ_gpu_runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  char *data;
  size_t len;
  if ((s = read_file(path, &data, &len, err, err_size)) != OCC_GPU_OK) return s;
  /* The image stays with the library until it is unloaded: under lazy
   * loading the driver reads it when the kernel is first used. */
  cudaLibrary_t lib;
  cudaError_t e = occ_rt->cudaLibraryLoadData(&lib, data, NULL, NULL, 0, NULL,
                                          NULL, 0);
  if (e != cudaSuccess) {
    free(data);
    snprintf(err, err_size, "cudaLibraryLoadData (%s:%d): %s: %s: %s",
             __FILE__, __LINE__, path, occ_rt->cudaGetErrorName(e),
             occ_rt->cudaGetErrorString(e));
    return OCC_GPU_ERR_MODULE;
  }
  s = module_query(gpu, lib, path, match, block_threads, smem_dynamic_bytes,
                   carveout_pct, out, err, err_size);
  occ_rt->cudaLibraryUnload(lib);
  free(data);
  return s;
}
