/* cudart.c - the CUDA runtime opened with dlopen (see cudart.h). */
#include "live/cudart.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The build passes the toolkit's library directory ($(CUDA)/lib64), where
 * the toolkit installs libcudart without putting it on the loader's path. */
#ifndef OCC_CUDA_LIB_DIR
#define OCC_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

static occ_cudart table;
static bool table_ready;

/* The library opened, and its name as it was given to dlopen (for
 * messages), into name. */
static void *open_library(char *name, size_t name_size, char *err,
                          size_t err_size) {
  const char *forced = getenv("OCCCALC_CUDART");
  if (forced && forced[0]) {
    snprintf(name, name_size, "%s", forced);
    void *lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      snprintf(err, err_size, "dlopen (%s:%d): no CUDA runtime: "
               "OCCCALC_CUDART: %s", __FILE__, __LINE__, dlerror());
    return lib;
  }
  /* The major version of the headers occcalc was compiled with: the
   * runtime's ABI holds within a major version. */
  char soname[32];
  snprintf(soname, sizeof soname, "libcudart.so.%d", CUDART_VERSION / 1000);
  snprintf(name, name_size, "%s", soname);
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (lib) return lib;
  snprintf(name, name_size, "%s/%s", OCC_CUDA_LIB_DIR, soname);
  lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    snprintf(err, err_size, "dlopen (%s:%d): no CUDA runtime: %s is neither "
             "on the loader's path nor in %s (install the CUDA %d runtime, or "
             "name it with LD_LIBRARY_PATH or OCCCALC_CUDART)", __FILE__,
             __LINE__, soname, OCC_CUDA_LIB_DIR, CUDART_VERSION / 1000);
  return lib;
}

/* Each entry point by its own name, so the table's member, the symbol
 * fetched and the function a message or an output names are one. */
#define ENTRY(name)                                                          \
  do {                                                                       \
    *(void **)&table.name = dlsym(lib, #name);                               \
    if (!table.name) {                                                       \
      snprintf(err, err_size, "dlsym (%s:%d): %s has no %s (the CUDA %d.%d " \
               "runtime or later is needed)", __FILE__, __LINE__, lib_name,  \
               #name, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);    \
      return false;                                                          \
    }                                                                        \
  } while (0)

static bool load_entries(void *lib, const char *lib_name, char *err,
                         size_t err_size) {
  ENTRY(cudaGetErrorName);
  ENTRY(cudaGetErrorString);
  ENTRY(cudaSetDevice);
  ENTRY(cudaLibraryLoadData);
  ENTRY(cudaLibraryUnload);
  ENTRY(cudaLibraryGetKernel);
  ENTRY(cudaLibraryGetKernelCount);
  ENTRY(cudaLibraryEnumerateKernels);
  ENTRY(cudaFuncSetAttribute);
  ENTRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor);
  ENTRY(cudaOccupancyMaxActiveClusters);
  return true;
}

/* The library stays open for the process: kernels it loaded live on. */
const occ_cudart *occ_cudart_open(char *err, size_t err_size) {
  if (table_ready) return &table;
  char name[4096];
  void *lib = open_library(name, sizeof name, err, err_size);
  if (!lib) return NULL;
  if (!load_entries(lib, name, err, err_size)) {
    dlclose(lib);
    return NULL;
  }
  table_ready = true;
  return &table;
}
