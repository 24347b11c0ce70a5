/* inject_counters.c - achieved occupancy (and --metrics) of the launches
 * in the injection library, through CUPTI's Range Profiler in auto range
 * and kernel replay mode: every measured launch is its own range,
 * measured exactly as Nsight Compute measures it (same metric, whole
 * kernel, replayed only when the metrics need more than one pass). PM
 * sampling was not chosen: it samples the whole GPU at an interval, so a
 * kernel shorter than a few intervals gets no or a partial value and the
 * samples of concurrent kernels cannot be told apart.
 *
 * Kernel replay costs about 3 ms a launch (an H200), whatever the kernel:
 * a program of hundreds of launches of a few configurations pays for the
 * same answer hundreds of times. So OCCCALC_RUN_COUNTER_LAUNCHES=N
 * measures only the first N launches of each configuration (kernel, grid,
 * block, cluster, dynamic shared memory): the profiler is stopped before
 * a launch that is not, and started again before one that is. 0, the
 * default, measures every launch.
 *
 * A graph launch is never profiled: the profiler is stopped around it.
 * Measured on an H100 with CUDA 13 (tests/run/graphs.cu, docs/run.md):
 * profiled from here (kernel replay, its ranges read after synchronising
 * its stream), a graph of two branches ran its two later nodes once in
 * three launches, a chain none of its nodes, the runtime putting WaitNs
 * kernels of its own in their place; the ranges went to the wrong
 * kernels. Graph kernels get no achieved occupancy, and say so.
 *
 * --cache-control all (OCCCALC_RUN_CACHE_CONTROL=all) flushes the L2
 * before each profiled launch, as ncu's default does: the launch's stream
 * first writes a buffer of twice the L2's size (allocated once per
 * context, in the program's process), so the kernel starts with none of
 * its data cached. The L1 is the kernel's own from its start. Only the
 * first replay pass is flushed; achieved occupancy needs one pass.
 *
 * Before the program forks, the profiler is closed: the GPU's counters
 * are one per device, and a child that runs a CUDA program would
 * otherwise find them held by its parent (CUPTI_ERROR_HARDWARE_BUSY, even
 * with the parent's profiler stopped). The parent opens it again at its
 * next measured launch (about 0.3 s on an H100). posix_spawn and system()
 * run no fork handlers: a child started so goes without counters, and
 * the report says why.
 *
 * Kernel replay serialises the launches, so when a later launch (or the
 * context's end, or the program's) comes, the last launches' ranges are
 * complete: they are decoded then, matched in order with the launches
 * seen since, and written as COUNTERS records carrying both correlation
 * ids (the driver call's, and the runtime call's around it) that the
 * launch's activity record may carry. One profiled context at a time (a
 * launch on another context ends the session of the last one), as
 * CUPTI's own profiling_injection sample does. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/counter.h"
#include "inject/inject_lib.h"
#include "inject/inject_turns.h"

/* The ranges are decoded in batches of HARVEST_AT launches, well inside
 * the MAX_PENDING ranges the image holds, rather than at every launch:
 * fewer decodes and image resets. On an H200 that took the overhead from
 * 3.67 to 3.53 ms a launch; nearly all of the rest is the kernel replay
 * itself (a one-pass configuration). CONFIGS configurations are counted;
 * past them every new configuration's launches are measured. */
enum { MAX_PENDING = 64, HARVEST_AT = 32, CONFIGS = 4096 };

/* A process holds its GPU's turn for the counters (inject_turns.h) at
 * least SLICE_MS before it yields to another process of the run that
 * wants it: reopening the profiler costs about 0.3 s (an H100), so
 * shorter slices would cost more than they measure. */
enum { SLICE_MS = 2000 };

typedef struct pending_launch {
  uint32_t driver_correlation, runtime_correlation;
} pending_launch;

/* A launch configuration as the driver call gives it, and how many of
 * its launches were seen. */
typedef struct launch_config {
  CUfunction f;
  unsigned grid[3], block[3], cluster[3], shared_mem_bytes;
  uint64_t launches; /* seen (0: a free slot) */
  uint64_t measured; /* of them, measured */
} launch_config;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Achieved occupancy, the duration, then up to OCC_RECORD_METRICS_MAX. */
static const char *metrics[OCC_RECORD_FIRST_METRIC + OCC_RECORD_METRICS_MAX];
static int metric_count;
static char metric_text[1024];
static CUcontext active_ctx;
static int active_device;
static occ_prof *prof;
static bool running;  /* prof started: launches now are measured */
static bool refused; /* a reason was written: no more tries */
static pending_launch pending[MAX_PENDING];
static int pending_count;
static uint64_t launches_measured; /* of each configuration; 0: all */
static launch_config configs[CONFIGS];
static size_t config_count;
static _Thread_local uint32_t runtime_correlation;
static _Thread_local bool measuring; /* the launch between enter and exit */
static bool profiling; /* counters asked for: else only the attributes */
static int turns_fd = -1;
static uint64_t turn_key;  /* the GPU whose turn is held */
static bool holding;
static struct timespec held_since;
static launch_config *counted; /* the configuration to_measure counted */
static bool turn_missed, turn_held; /* ever, in this process */
static bool measured_since_open; /* a launch measured by this profiler */
/* The early start (start_early): the configuration built for device 0
 * before any context, and the program's first context once made. */
static occ_prof *prepared;
static bool preparing; /* the thread is building it: a launch waits */
static CUcontext first_context;
static pthread_cond_t context_made = PTHREAD_COND_INITIALIZER;
static pthread_cond_t prepare_done = PTHREAD_COND_INITIALIZER;
/* What the library cost the process (the summary record), under lock. */
static double seconds_in, profiler_seconds;
static uint64_t profiled, flushed;
static _Thread_local double measured_since; /* a measured launch's enter */
/* --cache-control all: the buffer written before each profiled launch. */
static bool flush_caches;
static CUcontext flush_ctx;
static CUdeviceptr flush_buffer;
static size_t flush_bytes;
static char flush_why[OCC_RECORD_WHY_MAX]; /* why a flush failed, or "" */

static void refuse(const char *why) {
  if (refused) return;
  refused = true;
  occ_launch_record r;
  occ_inject_record_init(&r, OCC_RECORD_NO_COUNTERS);
  snprintf(r.why, sizeof r.why, "%s", why);
  occ_inject_write(&r);
}

static void write_range(size_t index, const pending_launch *p) {
  occ_launch_record r;
  occ_inject_record_init(&r, OCC_RECORD_COUNTERS);
  const char *name = NULL;
  char why[OCC_RECORD_WHY_MAX];
  if (occ_prof_values(prof, index, r.values, &name, why, sizeof why) != 0) {
    refuse(why);
    return;
  }
  r.device = active_device;
  r.correlation = p->driver_correlation;
  r.runtime_correlation = p->runtime_correlation;
  r.value_count = metric_count;
  snprintf(r.name, sizeof r.name, "%s", name ? name : "");
  occ_inject_write(&r);
}

/* Writes the ranges decoded so far for the launches waiting for them, in
 * order, and with reset empties the image for the next ones. A launch
 * whose range is not there yet keeps waiting. */
static void harvest(bool reset) {
  size_t ranges = 0;
  char why[OCC_RECORD_WHY_MAX];
  if (!prof || pending_count == 0) return;
  if (occ_prof_decode(prof, &ranges, why, sizeof why) != 0) {
    refuse(why);
    return;
  }
  /* Each range is a launch seen, in order: one more is a kernel not seen
   * launched, and every value after it would go to the wrong launch. */
  if (ranges > (size_t)pending_count) {
    refuse("CUPTI measured more kernels than the program launched");
    return;
  }
  int used = 0;
  for (; (size_t)used < ranges && used < pending_count; used++)
    write_range((size_t)used, &pending[used]);
  memmove(pending, pending + used, (size_t)(pending_count - used) *
          sizeof *pending);
  pending_count -= used;
  if (reset && ranges > 0 && occ_prof_reset(prof, why, sizeof why) != 0)
    refuse(why);
}

/* Stops measuring: the launches measured so far are written; a launch
 * still without its range then never gets one. */
static void pause_profiler(void) {
  char why[OCC_RECORD_WHY_MAX];
  if (!prof || !running) return;
  running = false;
  if (occ_prof_stop(prof, why, sizeof why) != 0) {
    refuse(why);
    return;
  }
  harvest(false);
  pending_count = 0;
}

static void resume_profiler(void) {
  char why[OCC_RECORD_WHY_MAX];
  if (!prof || running) return;
  if (occ_prof_start(prof, why, sizeof why) != 0) {
    refuse(why);
    return;
  }
  running = true;
}

static void close_profiler(void) {
  char why[OCC_RECORD_WHY_MAX];
  if (prof && running && occ_prof_stop(prof, why, sizeof why) == 0)
    harvest(false);
  running = false;
  occ_prof_close(prof);
  prof = NULL;
  active_ctx = NULL;
  pending_count = 0;
  if (holding) occ_turns_give(turns_fd, turn_key);
  holding = false;
}

/* The PCI address of the device of ordinal, as the turn's key; the
 * ordinal itself when the driver cannot say (one name per GPU still,
 * unless CUDA_VISIBLE_DEVICES differs between the processes). */
static uint64_t device_key(int ordinal) {
  static const CUdevice_attribute pci[] = {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
                                           CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                           CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID};
  int v[3];
  if (occ_inject_device_attributes(ordinal, pci, v, 3))
    return occ_turns_key(v[0], v[1], v[2]);
  return (uint64_t)1 << 40 | (uint32_t)ordinal;
}

static bool slice_over(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t ms = (int64_t)(now.tv_sec - held_since.tv_sec) * 1000 +
               (now.tv_nsec - held_since.tv_nsec) / 1000000;
  return ms >= SLICE_MS;
}

/* This process's turn for the GPU of ordinal: taken if free. */
static bool take_turn(int ordinal) {
  if (holding) return true;
  turn_key = device_key(ordinal);
  if (!occ_turns_try(turns_fd, turn_key)) {
    turn_missed = true;
    return false;
  }
  holding = turn_held = true;
  clock_gettime(CLOCK_MONOTONIC, &held_since);
  return true;
}

/* Opens the profiler on ctx when this process has its GPU's turn; else
 * leaves prof NULL (the launch goes unmeasured). */
static void open_profiler(CUcontext ctx) {
  uint32_t device = 0;
  char why[OCC_RECORD_WHY_MAX];
  occ_inject_cupti.cuptiGetDeviceId(ctx, &device);
  if (!take_turn((int)device)) return;
  double start = occ_inject_now();
  /* Started earlier than anything here could be: waiting is shorter. */
  while (preparing) pthread_cond_wait(&prepare_done, &lock);
  if (prepared && device == 0) {
    prof = prepared;
    if (occ_prof_enable(prof, ctx, why, sizeof why) != 0) {
      occ_prof_close(prof);
      prof = NULL;
    }
  } else {
    prof = occ_prof_open(ctx, (int)device, metrics, metric_count, true,
                         MAX_PENDING, why, sizeof why);
    occ_prof_close(prepared);
  }
  prepared = NULL;
  bool started = prof && occ_prof_start(prof, why, sizeof why) == 0;
  profiler_seconds += occ_inject_now() - start;
  if (!started) {
    occ_prof_close(prof);
    prof = NULL;
    occ_turns_give(turns_fd, turn_key);
    holding = false;
    refuse(why);
    return;
  }
  active_ctx = ctx;
  active_device = (int)device;
  running = true;
  measured_since_open = false;
}

/* The driver's functions the flush calls, from the program's driver. */
typedef struct flush_api {
  CUresult (*alloc)(CUdeviceptr *, size_t);
  CUresult (*memset)(CUdeviceptr, unsigned char, size_t, CUstream);
} flush_api;

/* The buffer of ctx (the current context, the launch's, on the
 * profiler's device), allocated at its first profiled launch: twice the
 * L2, so that writing it evicts all. */
static bool flush_buffer_of(CUcontext ctx, const flush_api *api) {
  if (flush_ctx == ctx && flush_buffer) return true;
  static const CUdevice_attribute l2_size = CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
  int l2 = 0;
  if (!occ_inject_device_attributes(active_device, &l2_size, &l2, 1) ||
      l2 <= 0) {
    snprintf(flush_why, sizeof flush_why, "the GPU's L2 size is unknown");
    return false;
  }
  /* A buffer of an earlier context went with it: not freed here. */
  flush_bytes = 2 * (size_t)l2;
  if (api->alloc(&flush_buffer, flush_bytes) != CUDA_SUCCESS) {
    flush_buffer = 0;
    snprintf(flush_why, sizeof flush_why,
             "%zu MiB for the flush could not be allocated on the GPU",
             flush_bytes >> 20);
    return false;
  }
  flush_ctx = ctx;
  return true;
}

/* --cache-control all: the L2 flushed on the launch's stream, so that the
 * profiled kernel (after it in the stream) starts with nothing cached. */
static void flush_before(CUcontext ctx, CUstream stream) {
  static flush_api api;
  static bool looked;
  if (!looked) {
    *(void **)&api.alloc = occ_inject_driver_symbol("cuMemAlloc_v2");
    *(void **)&api.memset = occ_inject_driver_symbol("cuMemsetD8Async");
    looked = true;
  }
  if (!api.alloc || !api.memset) {
    snprintf(flush_why, sizeof flush_why, "the driver has no cuMemsetD8Async");
    return;
  }
  if (!flush_buffer_of(ctx, &api)) return;
  if (api.memset(flush_buffer, 0, flush_bytes, stream) == CUDA_SUCCESS)
    flushed++;
  else
    snprintf(flush_why, sizeof flush_why, "the flush's memset failed");
}

/* measure: whether this launch is to be measured. */
static void launch_enter(CUcontext ctx, bool measure) {
  measuring = false;
  if (refused) return;
  if (prof && ctx != active_ctx) close_profiler();
  /* Another process of the run wants the GPU's counters: after a slice,
   * this launch goes unmeasured so that it gets them. */
  bool yielded = prof && holding && slice_over() &&
                 occ_turns_wanted(turns_fd, turn_key);
  if (yielded) close_profiler();
  if (!measure) {
    pause_profiler();
    return;
  }
  if (yielded)
    ; /* this one unmeasured: the process that wants the turn takes it */
  else if (!prof)
    open_profiler(ctx);
  else if (!running)
    resume_profiler();
  else if (pending_count >= HARVEST_AT)
    harvest(true);
  measuring = prof && running && !refused;
  measured_since_open |= measuring;
  /* Not measured for want of the turn: it does not use up one of its
   * configuration's --counter-launches. */
  if (!measuring && !refused && counted) counted->measured--;
}

static void launch_exit(const CUpti_CallbackData *cb) {
  if (!measuring || !prof || !running || pending_count == MAX_PENDING ||
      *(const CUresult *)cb->functionReturnValue != CUDA_SUCCESS)
    return;
  pending[pending_count++] =
      (pending_launch){cb->correlationId, runtime_correlation};
}

static bool is_runtime_launch(CUpti_CallbackId id) {
  switch (id) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
  case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: return true;
  default: return false;
  }
}

static const CUpti_CallbackId driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};

static const CUpti_CallbackId runtime_launches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};

/* The driver's callback parameters (cupti.h declares them): those of
 * cuLaunchCooperativeKernel and of the _ptsz forms begin with the same
 * members as cuLaunchKernel's, read through one type. */
typedef cuLaunchKernel_params launch_params;
_Static_assert(offsetof(cuLaunchCooperativeKernel_params, hStream) ==
                   offsetof(launch_params, hStream) &&
               offsetof(cuLaunchKernel_ptsz_params, hStream) ==
                   offsetof(launch_params, hStream) &&
               offsetof(cuLaunchCooperativeKernel_ptsz_params, hStream) ==
                   offsetof(launch_params, hStream),
               "the launch calls' parameters share their leading members");

/* The stream a kernel launch goes to, for the launches that can be
 * captured into a graph; NULL for the others (and the legacy default
 * stream). */
static CUstream launch_stream(CUpti_CallbackId id, const void *params) {
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    return ((const launch_params *)params)->hStream;
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    return ((const cuLaunchKernelEx_params *)params)->config->hStream;
  default: return NULL;
  }
}

/* The stream the launch runs on, the per-thread default stream named as
 * such for the _ptsz calls (whose NULL means it). */
static CUstream run_stream(CUpti_CallbackId id, const void *params) {
  CUstream stream = launch_stream(id, params);
  bool per_thread =
      id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
      id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
      id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
  return !stream && per_thread ? CU_STREAM_PER_THREAD : stream;
}

/* A launch into a stream being captured runs nothing now (it becomes a
 * graph node), and any profiler call in between would invalidate the
 * capture: such launches are left alone. */
static bool capturing(CUpti_CallbackId id, const CUpti_CallbackData *cb) {
  typedef CUresult (*is_capturing_fn)(CUstream, CUstreamCaptureStatus *);
  static is_capturing_fn is_capturing;
  static bool looked;
  if (!looked) {
    *(void **)&is_capturing = occ_inject_driver_symbol("cuStreamIsCapturing");
    looked = true;
  }
  CUstream stream = launch_stream(id, cb->functionParams);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return is_capturing && stream && is_capturing(stream, &status) == CUDA_SUCCESS &&
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* The launch's configuration from the driver call's parameters; false
 * for the calls that give none (the deprecated cuLaunch and cuLaunchGrid,
 * whose block shape was set by an earlier call). */
static bool config_of(CUpti_CallbackId id, const void *params,
                      launch_config *c) {
  memset(c, 0, sizeof *c);
  c->cluster[0] = c->cluster[1] = c->cluster[2] = 1;
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const launch_params *p = params;
    c->f = p->f;
    c->grid[0] = p->gridDimX, c->grid[1] = p->gridDimY;
    c->grid[2] = p->gridDimZ;
    c->block[0] = p->blockDimX, c->block[1] = p->blockDimY;
    c->block[2] = p->blockDimZ;
    c->shared_mem_bytes = p->sharedMemBytes;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const cuLaunchKernelEx_params *p = params;
    const CUlaunchConfig *lc = p->config;
    c->f = p->f;
    c->grid[0] = lc->gridDimX, c->grid[1] = lc->gridDimY;
    c->grid[2] = lc->gridDimZ;
    c->block[0] = lc->blockDimX, c->block[1] = lc->blockDimY;
    c->block[2] = lc->blockDimZ;
    c->shared_mem_bytes = lc->sharedMemBytes;
    for (unsigned i = 0; lc->attrs && i < lc->numAttrs; i++)
      if (lc->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        c->cluster[0] = lc->attrs[i].value.clusterDim.x;
        c->cluster[1] = lc->attrs[i].value.clusterDim.y;
        c->cluster[2] = lc->attrs[i].value.clusterDim.z;
      }
    return true;
  }
  default: return false;
  }
}

static bool same_config(const launch_config *a, const launch_config *b) {
  return a->f == b->f && a->shared_mem_bytes == b->shared_mem_bytes &&
         memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
         memcmp(a->block, b->block, sizeof a->block) == 0 &&
         memcmp(a->cluster, b->cluster, sizeof a->cluster) == 0;
}

static size_t config_hash(const launch_config *c) {
  uint64_t h = (uint64_t)(uintptr_t)c->f * 0x9e3779b97f4a7c15u;
  const unsigned *v[] = {c->grid, c->block, c->cluster};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) h = (h ^ v[i][j]) * 0x100000001b3u;
  return (size_t)((h ^ c->shared_mem_bytes) * 0x100000001b3u % CONFIGS);
}

/* Whether this kernel launch (not a graph's) is to be measured: every
 * launch by default; else the first launches_measured of each
 * configuration (counted here, with the lock held). A launch of no known
 * configuration (a deprecated call's), or past CONFIGS of them, always
 * is. */
static bool to_measure(CUpti_CallbackId id, const void *params) {
  launch_config key;
  counted = NULL;
  if (launches_measured == 0) return true;
  if (!config_of(id, params, &key)) return true;
  size_t at = config_hash(&key);
  for (size_t probes = 0; probes < CONFIGS; probes++, at = (at + 1) % CONFIGS) {
    launch_config *c = &configs[at];
    if (c->launches == 0) {
      if (config_count == CONFIGS / 2) return true; /* keep probes short */
      *c = key;
      config_count++;
    } else if (!same_config(c, &key)) {
      continue;
    }
    c->launches++;
    if (c->measured >= launches_measured) return false;
    c->measured++;
    counted = c;
    return true;
  }
  return true;
}

static void on_driver(CUpti_CallbackId id, const CUpti_CallbackData *cb) {
  if (cb->callbackSite == CUPTI_API_ENTER) occ_inject_gate();
  bool graph = id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
               id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
  if (cb->callbackSite == CUPTI_API_EXIT && !graph &&
      *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS)
    occ_inject_attrs_note(id, cb->functionParams, cb->correlationId,
                          runtime_correlation);
  if (!profiling || capturing(id, cb)) return;
  double now = occ_inject_now(); /* a wait for the profiler's start counts */
  pthread_mutex_lock(&lock);
  if (cb->callbackSite == CUPTI_API_ENTER) {
    launch_enter(cb->context, !graph && to_measure(id, cb->functionParams));
    if (measuring && flush_caches)
      flush_before(cb->context, run_stream(id, cb->functionParams));
    profiled += measuring;
    measured_since = occ_inject_now();
    seconds_in += measured_since - now;
  } else {
    /* A profiled launch's call: its replay, and the callbacks'. */
    if (measuring) seconds_in += now - measured_since;
    launch_exit(cb);
    seconds_in += occ_inject_now() - now;
  }
  pthread_mutex_unlock(&lock);
}

/* The profiler is started beside the program: starting it takes about
 * 0.35 s on an H100 (0.1 s to build its configuration, 0.25 s in
 * cuptiRangeProfilerStart), and a program spends part of that making its
 * context and setting up before its first kernel. So from the library's
 * start (the program's cuInit) a thread of its own builds the
 * configuration for device 0, then waits for the program's first context
 * to enable and start it there; the first profiled launch waits only for
 * the rest. OCCCALC_RUN_EARLY_START=0 starts it at the first launch to be
 * measured instead (make bench-gpu-run-small compares the two). */
static void *start_early(void *unused) {
  (void)unused;
  char why[OCC_RECORD_WHY_MAX];
  double start = occ_inject_now();
  /* A failure here only loses the head start: open_profiler builds it. */
  occ_prof *p = occ_prof_prepare(0, metrics, metric_count, true,
                                 MAX_PENDING, why, sizeof why);
  pthread_mutex_lock(&lock);
  profiler_seconds += occ_inject_now() - start;
  prepared = p;
  preparing = false;
  pthread_cond_broadcast(&prepare_done);
  while (!first_context) pthread_cond_wait(&context_made, &lock);
  if (!prof && !refused) open_profiler(first_context);
  pthread_mutex_unlock(&lock);
  /* Held for no launch yet, the GPU's turn goes at once to another
   * process of the run that wants it: a process that makes a context and
   * never launches would otherwise hold the counters to its end. Once a
   * launch is measured, launch_enter's slices apply. */
  for (;;) {
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&lock);
    bool done = !prof || !holding || measured_since_open;
    if (!done && occ_turns_wanted(turns_fd, turn_key)) {
      close_profiler();
      done = true;
    }
    pthread_mutex_unlock(&lock);
    if (done) return NULL;
  }
}

static void start_early_thread(void) {
  const char *early = getenv("OCCCALC_RUN_EARLY_START");
  if (early && strcmp(early, "0") == 0) return;
  pthread_t thread;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  /* If no thread can be made, the first launch to be measured starts it.
   * Set before the thread runs: it clears it. */
  preparing = true;
  if (pthread_create(&thread, &attr, start_early, NULL) != 0)
    preparing = false;
  pthread_attr_destroy(&attr);
}

/* The program's first context: where the early start enables the
 * profiler. */
static void context_created(CUcontext ctx) {
  pthread_mutex_lock(&lock);
  if (!first_context) {
    first_context = ctx;
    pthread_cond_signal(&context_made);
  }
  pthread_mutex_unlock(&lock);
}

static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId id, const void *data) {
  (void)user;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && is_runtime_launch(id)) {
    const CUpti_CallbackData *cb = data;
    runtime_correlation =
        cb->callbackSite == CUPTI_API_ENTER ? cb->correlationId : 0;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    on_driver(id, data);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE &&
             id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    if (profiling) context_created(((const CUpti_ResourceData *)data)->context);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE &&
             id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    const CUpti_ResourceData *r = data;
    pthread_mutex_lock(&lock);
    if (prof && r->context == active_ctx) close_profiler();
    pthread_mutex_unlock(&lock);
  }
}

/* metrics[0] is achieved occupancy; then the comma list, at most
 * OCC_RECORD_METRICS_MAX. */
static int parse_metrics(const char *list) {
  metrics[metric_count++] = OCC_ACHIEVED_METRIC;
  metrics[metric_count++] = OCC_DURATION_METRIC;
  if (!list || !*list) return 0;
  snprintf(metric_text, sizeof metric_text, "%s", list);
  int n = occ_metrics_split(metric_text, metrics + metric_count,
                            OCC_RECORD_METRICS_MAX);
  if (n < 0) {
    refuse("more than 8 --metrics");
    return -1;
  }
  metric_count += n;
  return 0;
}

static int enable(CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain,
                  const CUpti_CallbackId *ids, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (occ_inject_cupti.cuptiEnableCallback(1, sub, domain, ids[i]) !=
        CUPTI_SUCCESS)
      return -1;
  return 0;
}

/* The GPU's counters are free for a child while the program forks: a
 * stopped profiler still holds them (measured: the child's start then
 * fails), a closed one does not. */
static void before_fork(void) {
  pthread_mutex_lock(&lock);
  close_profiler();
  pthread_mutex_unlock(&lock);
}

/* The child has no early-start thread: nothing of it to wait for or use
 * (its CUPTI objects are the parent's). */
static void in_child(void) {
  preparing = false;
  prepared = NULL;
  first_context = NULL;
}

int occ_inject_counters_start(bool profile, const char *list,
                              const char *launches) {
  profiling = profile;
  if (profile && parse_metrics(list) != 0) return -1;
  if (profile) pthread_atfork(before_fork, NULL, in_child);
  if (profile) turns_fd = occ_turns_open(getenv(OCC_ENV_OUT));
  if (launches && *launches) launches_measured = strtoull(launches, NULL, 10);
  const char *cache = getenv(OCC_ENV_CACHE_CONTROL);
  flush_caches = profile && cache && strcmp(cache, "all") == 0;
  if (profile) start_early_thread();
  CUpti_SubscriberHandle sub;
  /* Named, so that a client the program runs itself, refused, is told
   * who holds CUPTI ("CUPTI for occcalc run"). */
  CUpti_SubscriberParams named = {
      .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
      .subscriberName = "occcalc run"};
  CUpti_CallbackId contexts[] = {CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                                 CUPTI_CBID_RESOURCE_CONTEXT_CREATED};
  if (occ_inject_cupti.cuptiSubscribe_v2(&sub, on_callback, NULL, &named) !=
          CUPTI_SUCCESS ||
      enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_launches,
             sizeof driver_launches / sizeof *driver_launches) != 0 ||
      enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launches,
             sizeof runtime_launches / sizeof *runtime_launches) != 0 ||
      enable(sub, CUPTI_CB_DOMAIN_RESOURCE, contexts, 2) != 0) {
    if (!profile) return -1;
    refuse("CUPTI's callbacks could not be subscribed to (another tool, "
           "e.g. a profiler, holds them)");
    return -1;
  }
  return 0;
}

void occ_inject_counters_finish(void) {
  pthread_mutex_lock(&lock);
  /* Its rows then say why they have no achieved occupancy. */
  if (turn_missed && !turn_held)
    refuse("another process of this run held the GPU's counters whenever "
           "this one launched a kernel to measure");
  close_profiler();
  pthread_mutex_unlock(&lock);
}

void occ_inject_counters_add_seconds(double seconds) {
  pthread_mutex_lock(&lock);
  seconds_in += seconds;
  pthread_mutex_unlock(&lock);
}

void occ_inject_counters_summary(occ_launch_record *summary) {
  pthread_mutex_lock(&lock);
  summary->value_count = OCC_SUMMARY_VALUES;
  summary->values[OCC_SUMMARY_SECONDS] = seconds_in;
  summary->values[OCC_SUMMARY_PROFILER_SECONDS] = profiler_seconds;
  summary->values[OCC_SUMMARY_PROFILED] = (double)profiled;
  summary->values[OCC_SUMMARY_FLUSHED] = (double)flushed;
  snprintf(summary->why, sizeof summary->why, "%s", flush_why);
  pthread_mutex_unlock(&lock);
}
