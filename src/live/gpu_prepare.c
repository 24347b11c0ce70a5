/* gpu_prepare.c - the probe compiled ahead for many register caps at once, with
 * nvJitLink on a pool of threads, instead of by the driver's JIT one by
 * one (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "live/jitlink.h"

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

/* Loads the compiled caps with the runtime, as occ_gpu_probe_kernel loads PTX; a
 * probe module takes its cubin over. */
static occ_gpu_status load_prepared(occ_gpu *gpu, prepare_work *w, char *err,
                                    size_t err_size) {
  for (int i = 0; i < w->count; i++) {
    probe_module *p = &gpu->probes[w->caps[i]];
    RT(occ_rt->cudaLibraryLoadData(&p->library, w->cubins[i], NULL, NULL, 0, NULL,
                               NULL, 0));
    p->cubin = w->cubins[i];
    w->cubins[i] = NULL;
    occ_gpu_status s = occ_gpu_probe_handles(p, err, err_size);
    if (s != OCC_GPU_OK) {
      occ_rt->cudaLibraryUnload(p->library);
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
  occ_gpu_status s = occ_gpu_runtime_device(gpu, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (!occ_jitlink_open(why, why_size)) return OCC_GPU_OK;
  int todo[MAX_CAP + 1], n = 0;
  bool wanted[MAX_CAP + 1] = {false};
  for (int i = 0; i < count; i++) {
    int cap = occ_gpu_cap_of(caps[i]);
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
