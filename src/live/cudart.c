/* cudart.c - the CUDA runtime opened with dlopen (see cudart.h). */
#include "live/cudart.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#include "live/dl.h"

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
  /* The major version of the headers occcalc was compiled with: the
   * runtime's ABI holds within a major version. */
  char soname[32], hint[96];
  snprintf(soname, sizeof soname, "libcudart.so.%d", CUDART_VERSION / 1000);
  snprintf(hint, sizeof hint, "install the CUDA %d runtime, or name it with "
           "LD_LIBRARY_PATH or OCCCALC_CUDART", CUDART_VERSION / 1000);
  const char *const names[] = {soname, NULL};
  const char *const dirs[] = {OCC_CUDA_LIB_DIR, NULL};
  const occ_dl_library cudart = {.what = "CUDA runtime",
                                 .env = "OCCCALC_CUDART",
                                 .names = names,
                                 .dirs = dirs,
                                 .hint = hint,
                                 .flags = RTLD_NOW | RTLD_LOCAL};
  return occ_dl_open(&cudart, name, name_size, err, err_size);
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
