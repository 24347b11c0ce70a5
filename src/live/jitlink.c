/* jitlink.c - nvJitLink opened with dlopen (see jitlink.h). */
#include "live/jitlink.h"

#include <cuda.h>
#include <dlfcn.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/dl.h"

#ifndef OCC_CUDA_LIB_DIR
#define OCC_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

/* The header's inline functions call versioned symbols
 * (__nvJitLinkCreate_13_0 for the CUDA 13.0 header): those are fetched. */
typedef struct jitlink_api {
  __typeof__(nvJitLinkCreate) *create;
  __typeof__(nvJitLinkAddData) *add_data;
  __typeof__(nvJitLinkComplete) *complete;
  __typeof__(nvJitLinkGetLinkedCubinSize) *cubin_size;
  __typeof__(nvJitLinkGetLinkedCubin) *cubin;
  __typeof__(nvJitLinkGetErrorLogSize) *log_size;
  __typeof__(nvJitLinkGetErrorLog) *log;
  __typeof__(nvJitLinkDestroy) *destroy;
} jitlink_api;

static jitlink_api api;
static bool api_ready;

static bool fetch(void *lib, const char *base, void **fn, char *err,
                  size_t err_size) {
  char name[96];
  snprintf(name, sizeof name, "__%s_%d_%d", base, CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10);
  *fn = dlsym(lib, name);
  if (!*fn)
    snprintf(err, err_size, "dlsym (%s:%d): libnvJitLink has no %s", __FILE__,
             __LINE__, name);
  return *fn != NULL;
}

bool occ_jitlink_open(char *err, size_t err_size) {
  if (api_ready) return true;
  char soname[32];
  snprintf(soname, sizeof soname, "libnvJitLink.so.%d", CUDA_VERSION / 1000);
  const char *const names[] = {soname, NULL};
  const char *const dirs[] = {OCC_CUDA_LIB_DIR, NULL};
  const occ_dl_library jitlink = {.what = "nvJitLink",
                                  .names = names,
                                  .dirs = dirs,
                                  .flags = RTLD_NOW | RTLD_LOCAL};
  void *lib = occ_dl_open(&jitlink, NULL, 0, err, err_size);
  if (!lib) return false;
  if (!fetch(lib, "nvJitLinkCreate", (void **)&api.create, err, err_size) ||
      !fetch(lib, "nvJitLinkAddData", (void **)&api.add_data, err, err_size) ||
      !fetch(lib, "nvJitLinkComplete", (void **)&api.complete, err, err_size) ||
      !fetch(lib, "nvJitLinkGetLinkedCubinSize", (void **)&api.cubin_size, err,
             err_size) ||
      !fetch(lib, "nvJitLinkGetLinkedCubin", (void **)&api.cubin, err,
             err_size) ||
      !fetch(lib, "nvJitLinkGetErrorLogSize", (void **)&api.log_size, err,
             err_size) ||
      !fetch(lib, "nvJitLinkGetErrorLog", (void **)&api.log, err, err_size) ||
      !fetch(lib, "nvJitLinkDestroy", (void **)&api.destroy, err, err_size)) {
    dlclose(lib);
    return false;
  }
  api_ready = true; /* the library stays open for the process */
  return true;
}

/* Appends the linker's error log, if any, to err. */
static void append_log(nvJitLinkHandle h, char *err, size_t err_size) {
  size_t n = 0;
  if (api.log_size(h, &n) != NVJITLINK_SUCCESS || n <= 1) return;
  char *log = malloc(n);
  if (log && api.log(h, log) == NVJITLINK_SUCCESS) {
    size_t used = strlen(err);
    snprintf(err + used, err_size - used, " (%.*s)", (int)strcspn(log, "\n"), log);
  }
  free(log);
}

int occ_jitlink_compile(const char *ptx, int cc_major, int cc_minor,
                        int max_regs, void **cubin, size_t *size, char *err,
                        size_t err_size) {
  char arch[32], regs[32];
  snprintf(arch, sizeof arch, "-arch=sm_%d%d", cc_major, cc_minor);
  snprintf(regs, sizeof regs, "-maxrregcount=%d", max_regs);
  const char *options[] = {arch, regs};
  nvJitLinkHandle h;
  nvJitLinkResult r = api.create(&h, 2, options);
  if (r != NVJITLINK_SUCCESS) {
    snprintf(err, err_size, "nvJitLinkCreate (%s:%d): error %d (%s %s)",
             __FILE__, __LINE__, (int)r, arch, regs);
    return -1;
  }
  *cubin = NULL;
  const char *call = "nvJitLinkAddData";
  r = api.add_data(h, NVJITLINK_INPUT_PTX, ptx, strlen(ptx) + 1, "occ_probe");
  if (r == NVJITLINK_SUCCESS) call = "nvJitLinkComplete", r = api.complete(h);
  if (r == NVJITLINK_SUCCESS)
    call = "nvJitLinkGetLinkedCubinSize", r = api.cubin_size(h, size);
  if (r == NVJITLINK_SUCCESS && !(*cubin = malloc(*size))) {
    snprintf(err, err_size, "out of memory for a %zu-byte cubin", *size);
    api.destroy(&h);
    return -1;
  }
  if (r == NVJITLINK_SUCCESS)
    call = "nvJitLinkGetLinkedCubin", r = api.cubin(h, *cubin);
  if (r != NVJITLINK_SUCCESS) {
    snprintf(err, err_size, "%s (%s:%d): error %d (%s %s)", call, __FILE__,
             __LINE__, (int)r, arch, regs);
    append_log(h, err, err_size);
    free(*cubin);
    *cubin = NULL;
  }
  api.destroy(&h);
  return r == NVJITLINK_SUCCESS ? 0 : -1;
}
