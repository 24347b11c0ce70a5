/* activity.c - the driver's shared-memory configuration of a launch from
 * CUPTI's kernel activity record (see activity.h). */
#include "live/activity.h"

#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "live/counter.h"
#include "live/cupti_buffer.h"

#define ACTIVITY_FUNCS(X)                                                    \
  X(cuptiGetVersion)                                                         \
  X(cuptiGetResultString)                                                    \
  X(cuptiActivityRegisterCallbacks)                                          \
  X(cuptiActivityEnable)                                                     \
  X(cuptiActivityDisable)                                                    \
  X(cuptiActivityFlushAll)                                                   \
  X(cuptiActivityGetNextRecord)

typedef struct activity_api {
#define FIELD(name) __typeof__(name) *name;
  ACTIVITY_FUNCS(FIELD)
#undef FIELD
} activity_api;

static activity_api api;
static bool loaded;
static char load_why[256]; /* why loading failed, once it has */

/* Written by the buffer callback, which CUPTI may call on its own worker
 * thread; read after cuptiActivityFlushAll has delivered every buffer. */
static atomic_int kernel_records;
static atomic_uint last_executed;

/* One probe launch makes one record: a small buffer is never full. */
#define BUFFER_BYTES (64 * 1024)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records) {
  occ_cupti_buffer_new(buffer, size, max_records, BUFFER_BYTES);
}

static void on_kernel(const CUpti_ActivityKernel10 *k) {
  atomic_store(&last_executed, k->sharedMemoryExecuted);
  atomic_fetch_add(&kernel_records, 1);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
                                      uint8_t *buffer, size_t size,
                                      size_t valid) {
  (void)ctx, (void)stream, (void)size;
  occ_cupti_buffer_each_kernel(api.cuptiActivityGetNextRecord, buffer, valid,
                               on_kernel);
}

static int fail(CUptiResult r, const char *call, char *why, size_t why_size) {
  const char *text = NULL;
  if (api.cuptiGetResultString) api.cuptiGetResultString(r, &text);
  snprintf(why, why_size, "%s: %s", call, text ? text : "CUPTI error");
  return -1;
}

#define CUPTI(call, ...)                                                     \
  do {                                                                       \
    CUptiResult r_ = api.call(__VA_ARGS__);                                  \
    if (r_ != CUPTI_SUCCESS) return fail(r_, #call, why, why_size);          \
  } while (0)

/* The records are read as this header's CUpti_ActivityKernel10: an older
 * CUPTI writes an older layout. */
static int load(char *why, size_t why_size) {
  void *lib = occ_cupti_open(RTLD_NOW | RTLD_LOCAL, why, why_size);
  if (!lib) return -1;
#define LOAD(name)                                                           \
  if (!(*(void **)&api.name = dlsym(lib, #name))) {                          \
    snprintf(why, why_size, "CUPTI has no %s", #name);                       \
    return -1;                                                               \
  }
  ACTIVITY_FUNCS(LOAD)
#undef LOAD
  uint32_t version = 0;
  CUPTI(cuptiGetVersion, &version);
  if (version < CUPTI_API_VERSION) {
    snprintf(why, why_size, "CUPTI API version %u, %u or newer needed",
             (unsigned)version, (unsigned)CUPTI_API_VERSION);
    return -1;
  }
  CUPTI(cuptiActivityRegisterCallbacks, buffer_requested, buffer_completed);
  return 0;
}

int occ_activity_begin(char *why, size_t why_size) {
  if (!loaded && !load_why[0]) loaded = load(load_why, sizeof load_why) == 0;
  if (!loaded) {
    snprintf(why, why_size, "%s", load_why);
    return -1;
  }
  atomic_store(&kernel_records, 0);
  CUPTI(cuptiActivityEnable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  return 0;
}

int occ_activity_end(int64_t *smem_executed_bytes, char *why,
                     size_t why_size) {
  /* Forced: the buffer holding the launch's record is not full. */
  CUptiResult flushed = api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  CUPTI(cuptiActivityDisable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (flushed != CUPTI_SUCCESS)
    return fail(flushed, "cuptiActivityFlushAll", why, why_size);
  int records = atomic_load(&kernel_records);
  if (records != 1) {
    snprintf(why, why_size, "%d kernel records for one launch", records);
    return -1;
  }
  *smem_executed_bytes = atomic_load(&last_executed);
  return 0;
}
