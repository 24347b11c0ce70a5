/* sampler.c - the GPUs' PM sampling in a child process of occcalc (see
 * sampler.h). The call sequence is the one that worked on an H100 (CUDA
 * 13.0), sampling from a process of its own while another ran kernels:
 * cuInit only (no context), then per device
 * cuptiProfilerDeviceSupported, the chip's name, Enable (where another
 * profiler holding the counters shows), the counter availability and a
 * host configuration of the two metrics (one pass), the counter data
 * image, SetConfig (GPU time interval, keep the oldest records), Start;
 * a loop of DecodeData and per sample GetSampleInfo and
 * EvaluateToGpuValues, in a thread of its own; at the end, once the
 * samples cover the program's last launch, the final status, then Stop
 * and Disable (or, where they do not get there, Stop, the rest decoded,
 * the final status, Disable).
 *
 * Enable comes first so that occcalc learns early whether the counters
 * are free and can start the program while the rest is configured (on an
 * H100: about 0.2 s to Enable, 0.2 s more to Start); the program's first
 * launch waits at the gate (sampler.h) until sampling runs. */
#define _GNU_SOURCE
#include "live/sampler.h"

#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/counter.h"
#include "live/dl.h"
#include "live/pm_cache.h"

/* The hardware buffer each device's records wait in until decoded
 * (measured on an H100: 3-8 KB a sample; 32 MB is about 0.1 s of backlog
 * at 25 us, 25 times the decode period; SetConfig took 0.07 s with 16 MB,
 * 0.13 s with 128 MB, and 512 MB cost 0.23 s more than 64 MB).
 * Bounded: past it the buffer overflows, which is detected,
 * counted and reported. */
#define HW_BUFFER_BYTES (32u << 20)
/* Samples the host image holds (9.3 KB each on an H100 with CUDA 13.0,
 * 19 MB in all): the backlog of one decode call must fit, or the rest is
 * dropped (counted as lost). */
#define IMAGE_SAMPLES 2048
/* How often the buffer is decoded while the program runs: a round that
 * took longer is followed at once (each round's wait adds to the
 * backlog, and a backlog past the host image loses samples). */
#define DECODE_PERIOD_MS 4
/* The samples' file is capped: past it a device stops sampling (its
 * later launches say so). 2 GiB is 67 million samples. */
#define FILE_CAP_BYTES (2ull << 30)
/* How long the samples may take, past two intervals, to reach the time
 * occcalc asks them to cover before the devices are stopped and drained
 * instead (the decoder can lag that far behind at short intervals). */
#define CATCH_UP_MS 500
/* Samples written at once. */
#define WRITE_BATCH 512

#define CUPTI_FUNCS(X)                                                       \
  X(cuptiGetResultString)                                                    \
  X(cuptiGetVersion)                                                         \
  X(cuptiGetTimestamp)                                                       \
  X(cuptiProfilerInitialize)                                                 \
  X(cuptiProfilerDeviceSupported)                                            \
  X(cuptiDeviceGetChipName)                                                  \
  X(cuptiPmSamplingGetCounterAvailability)                                   \
  OCC_CUPTI_HOST_FUNCS(X)                                                    \
  X(cuptiPmSamplingEnable)                                                   \
  X(cuptiPmSamplingDisable)                                                  \
  X(cuptiPmSamplingSetConfig)                                                \
  X(cuptiPmSamplingStart)                                                    \
  X(cuptiPmSamplingStop)                                                     \
  X(cuptiPmSamplingDecodeData)                                               \
  X(cuptiPmSamplingGetCounterDataSize)                                       \
  X(cuptiPmSamplingCounterDataImageInitialize)                               \
  X(cuptiPmSamplingGetCounterDataInfo)                                       \
  X(cuptiPmSamplingCounterDataGetSampleInfo)

static struct {
#define FIELD(name) __typeof__(name) *name;
  CUPTI_FUNCS(FIELD)
#undef FIELD
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*cuDeviceGetUuid)(CUuuid *, CUdevice);
  CUresult (*cuDriverGetVersion)(int *);
} api;

static const char *metrics[2] = {OCC_SAMPLE_WARPS_METRIC,
                                 OCC_SAMPLE_CYCLES_METRIC};

/* The hardware buffer's size: HW_BUFFER_BYTES, or
 * OCCCALC_SAMPLE_BUFFER_MB (16 to 4096) to tune it. */
static size_t hw_buffer_bytes(void) {
  const char *mb = getenv("OCCCALC_SAMPLE_BUFFER_MB");
  long v = mb ? strtol(mb, NULL, 10) : 0;
  return v >= 16 && v <= 4096 ? (size_t)v << 20 : HW_BUFFER_BYTES;
}

/* One device's sampling, in the child. */
typedef struct device_run {
  occ_sampler_device *st;
  CUpti_Profiler_Host_Object *host;
  CUpti_PmSampling_Object *obj;
  uint8_t *config, *image, *blank;
  /* The image's layout, where its sizes give it: a head, then the
   * samples in order (0: unknown, the whole image is reset). */
  size_t head_bytes, sample_bytes;
  bool reset_checked; /* the first partial reset was compared whole */
  uint8_t *availability;    /* the host object reads it to its end */
  size_t config_size, image_size;
  CUdevice dev;
  int lock_fd;              /* the GPU's lock, held to the child's end */
  bool claimed, enabled, started, first_dropped;
  bool from_cache;          /* the availability came from pm_cache */
  uint64_t last_end;        /* the last sample's end, for gaps */
  occ_pm_sample batch[WRITE_BATCH];
  size_t batched;
} device_run;

static volatile sig_atomic_t stop_requested;
/* What the child is doing, for the status of a crash inside CUPTI. */
static const char *volatile step = "starting";
static occ_sampler_status *crash_status;
static int crash_fd = -1;
static int samples_out = -1;
static uint64_t written_bytes;
/* The gate's write end (sampler.h): closed once sampling runs, or by the
 * child's end, whichever comes first. */
static int gate_out = -1;

static void on_stop_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The state a CUPTI error puts a device in, and why, into st. */
static int fail(occ_sampler_device *st, CUptiResult r, const char *call) {
  const char *text = NULL;
  if (api.cuptiGetResultString) api.cuptiGetResultString(r, &text);
  st->state = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ? OCC_SAMPLER_PRIVILEGES
              : r == CUPTI_ERROR_HARDWARE_BUSY ? OCC_SAMPLER_BUSY
              : r == CUPTI_ERROR_NOT_SUPPORTED ? OCC_SAMPLER_UNSUPPORTED
                                                : OCC_SAMPLER_FAILED;
  if (st->state == OCC_SAMPLER_PRIVILEGES)
    snprintf(st->why, sizeof st->why, "%s: %s (profiling needs the counter "
             "permission: NVreg_RestrictProfilingToAdminUsers=0 or root)",
             call, text ? text : "insufficient privileges");
  else if (st->state == OCC_SAMPLER_BUSY)
    snprintf(st->why, sizeof st->why, "%s: %s (another profiler, or another "
             "occcalc run, holds the GPU's counters)", call,
             text ? text : "hardware busy");
  else
    snprintf(st->why, sizeof st->why, "%s: %s", call,
             text ? text : "CUPTI error");
  return -1;
}

#define CUPTI(st, call, params)                                              \
  do {                                                                       \
    step = #call;                                                            \
    CUptiResult r_ = api.call(params);                                       \
    if (r_ != CUPTI_SUCCESS) return fail(st, r_, #call);                     \
  } while (0)

static int load(char *why, size_t why_size) {
  void *cupti = occ_cupti_open(RTLD_NOW | RTLD_LOCAL, why, why_size);
  if (!cupti) return -1;
#define LOAD(name)                                                           \
  if (!(*(void **)&api.name = dlsym(cupti, #name))) {                        \
    snprintf(why, why_size, "CUPTI has no %s (CUDA 12.6 or newer needed)",   \
             #name);                                                         \
    return -1;                                                               \
  }
  CUPTI_FUNCS(LOAD)
#undef LOAD
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    snprintf(why, why_size, "no NVIDIA driver: %s", dlerror());
    return -1;
  }
  *(void **)&api.cuInit = dlsym(cuda, "cuInit");
  *(void **)&api.cuDeviceGetCount = dlsym(cuda, "cuDeviceGetCount");
  *(void **)&api.cuDeviceGet = dlsym(cuda, "cuDeviceGet");
  *(void **)&api.cuDeviceGetAttribute = dlsym(cuda, "cuDeviceGetAttribute");
  *(void **)&api.cuDriverGetVersion = dlsym(cuda, "cuDriverGetVersion");
  if (!(*(void **)&api.cuDeviceGetUuid = dlsym(cuda, "cuDeviceGetUuid_v2")))
    *(void **)&api.cuDeviceGetUuid = dlsym(cuda, "cuDeviceGetUuid");
  if (!api.cuInit || !api.cuDeviceGetCount || !api.cuDeviceGet ||
      !api.cuDeviceGetAttribute) {
    snprintf(why, why_size, "the NVIDIA driver lacks cuInit or cuDeviceGet");
    return -1;
  }
  return 0;
}

/* Whether CUPTI samples the device, its chip, and Enable (where another
 * profiler holding the counters shows). */
static int enable_device(device_run *d) {
  occ_sampler_device *st = d->st;
  CUpti_Profiler_DeviceSupported_Params sup = {
      .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  sup.cuDevice = d->dev;
  sup.api = CUPTI_PROFILER_PM_SAMPLING;
  CUPTI(st, cuptiProfilerDeviceSupported, &sup);
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    st->state = OCC_SAMPLER_UNSUPPORTED;
    snprintf(st->why, sizeof st->why, "the GPU has no PM sampling that "
             "CUPTI supports (architecture %s, vGPU %s)",
             sup.architecture == CUPTI_PROFILER_CONFIGURATION_SUPPORTED
                 ? "supported" : "not supported",
             sup.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED ? "profiling "
             "disabled" : "ok");
    return -1;
  }
  CUpti_Device_GetChipName_Params chip = {
      .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = (size_t)st->ordinal;
  CUPTI(st, cuptiDeviceGetChipName, &chip);
  snprintf(st->chip, sizeof st->chip, "%s", chip.pChipName);
  CUpti_PmSampling_Enable_Params en = {
      .structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  en.deviceIndex = (size_t)st->ordinal;
  CUPTI(st, cuptiPmSamplingEnable, &en);
  d->obj = en.pPmSamplingObject;
  d->enabled = true;
  return 0;
}

static void disable(device_run *d) {
  if (!d->enabled) return;
  CUpti_PmSampling_Disable_Params p = {
      .structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
  p.pPmSamplingObject = d->obj;
  api.cuptiPmSamplingDisable(&p);
  d->enabled = false;
}

/* Where the chip's availability image is kept (pm_cache.h): 0, or -1
 * with none (no cache directory, no versions). */
static int cache_path(const device_run *d, char *path, size_t size) {
  uint32_t cupti = 0;
  int driver = 0;
  char dir[PATH_MAX];
  if (api.cuptiGetVersion(&cupti) != CUPTI_SUCCESS || !api.cuDriverGetVersion ||
      api.cuDriverGetVersion(&driver) != CUDA_SUCCESS ||
      occ_pm_cache_dir(dir, sizeof dir) != 0)
    return -1;
  return occ_pm_cache_path(path, size, dir, d->st->chip, cupti, driver);
}

/* The counter availability image: kept from an earlier run where
 * use_cache allows, else read from the GPU and kept. */
static int availability(device_run *d, bool use_cache) {
  occ_sampler_device *st = d->st;
  char path[PATH_MAX];
  bool cacheable = cache_path(d, path, sizeof path) == 0;
  size_t size = 0;
  d->from_cache = false;
  if (cacheable && use_cache &&
      (d->availability = occ_pm_cache_read(path, &size))) {
    d->from_cache = true;
    return 0;
  }
  if (cacheable && !use_cache) unlink(path);
  CUpti_PmSampling_GetCounterAvailability_Params avail = {
      .structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.deviceIndex = (size_t)st->ordinal;
  CUPTI(st, cuptiPmSamplingGetCounterAvailability, &avail);
  d->availability = malloc(avail.counterAvailabilityImageSize + 1);
  if (!d->availability) return fail(st, CUPTI_ERROR_OUT_OF_MEMORY, "malloc");
  avail.pCounterAvailabilityImage = d->availability;
  CUPTI(st, cuptiPmSamplingGetCounterAvailability, &avail);
  if (cacheable)
    occ_pm_cache_write(path, d->availability,
                       avail.counterAvailabilityImageSize);
  return 0;
}

/* The host object's end. */
static void end_host(device_run *d) {
  if (!d->host) return;
  CUpti_Profiler_Host_Deinitialize_Params p = {
      .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = d->host;
  api.cuptiProfilerHostDeinitialize(&p);
  d->host = NULL;
}

/* What configure and start_device made, let go (a retry with a fresh
 * availability image follows). */
static void unconfigure(device_run *d) {
  end_host(d);
  free(d->availability);
  free(d->config);
  free(d->image);
  free(d->blank);
  d->availability = d->config = d->image = d->blank = NULL;
}

/* The counter availability and the host configuration of the metrics. */
static int configure(device_run *d, bool use_cache) {
  occ_sampler_device *st = d->st;
  if (availability(d, use_cache) != 0) return -1;
  uint8_t *image = d->availability;
  CUptiResult r;
  CUpti_Profiler_Host_Initialize_Params host = {
      .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  host.pChipName = st->chip;
  host.pCounterAvailabilityImage = image;
  r = api.cuptiProfilerHostInitialize(&host);
  if (r != CUPTI_SUCCESS) return fail(st, r, "cuptiProfilerHostInitialize");
  d->host = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
      .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = d->host;
  add.ppMetricNames = metrics;
  add.numMetrics = 2;
  CUPTI(st, cuptiProfilerHostConfigAddMetrics, &add);
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = d->host;
  CUPTI(st, cuptiProfilerHostGetConfigImageSize, &size);
  d->config_size = size.configImageSize;
  if (!(d->config = malloc(d->config_size + 1)))
    return fail(st, CUPTI_ERROR_OUT_OF_MEMORY, "malloc");
  CUpti_Profiler_Host_GetConfigImage_Params get = {
      .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = d->host;
  get.pConfigImage = d->config;
  get.configImageSize = d->config_size;
  CUPTI(st, cuptiProfilerHostGetConfigImage, &get);
  CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
      .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.pConfigImage = d->config;
  passes.configImageSize = d->config_size;
  CUPTI(st, cuptiProfilerHostGetNumOfPasses, &passes);
  if (passes.numOfPasses != 1) {
    st->state = OCC_SAMPLER_UNSUPPORTED;
    snprintf(st->why, sizeof st->why, "the metrics need %zu passes here, "
             "PM sampling takes one", passes.numOfPasses);
    return -1;
  }
  return 0;
}

/* The host image the records are decoded into, and its blank copy (the
 * image is reset by copying it back, faster than initialising it).
 * Made before Start, so that the first decode follows Start at once: a
 * backlog larger than the image is decoded in several calls, and each
 * call that fills the image was seen to lose the samples that followed
 * (about 1 to 30 ms of them, CUDA 13.0 on an H100). Made in a thread
 * beside SetConfig (image_thread), so it touches neither the device's
 * status nor `step`: CUPTI_SUCCESS, or the error and *call, the call
 * that failed. */
static CUptiResult prepare_image(device_run *d, const char **call_out) {
  CUptiResult r = CUPTI_SUCCESS;
  const char *call = "cuptiPmSamplingGetCounterDataSize";
  CUpti_PmSampling_GetCounterDataSize_Params size = {
      .structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pPmSamplingObject = d->obj;
  size.pMetricNames = metrics;
  size.numMetrics = 2;
  size.maxSamples = IMAGE_SAMPLES;
  if ((r = api.cuptiPmSamplingGetCounterDataSize(&size)) == CUPTI_SUCCESS) {
    d->image_size = size.counterDataSize;
    d->image = malloc(d->image_size);
    d->blank = malloc(d->image_size);
    call = "malloc";
    if (!d->image || !d->blank) r = CUPTI_ERROR_OUT_OF_MEMORY;
  }
  if (r == CUPTI_SUCCESS) {
    CUpti_PmSampling_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pPmSamplingObject = d->obj;
    init.counterDataSize = d->image_size;
    init.pCounterData = d->image;
    call = "cuptiPmSamplingCounterDataImageInitialize";
    r = api.cuptiPmSamplingCounterDataImageInitialize(&init);
  }
  *call_out = call;
  if (r != CUPTI_SUCCESS) return r;
  memcpy(d->blank, d->image, d->image_size);
  /* The size of half as many samples gives a sample's bytes and the
   * head's (on an H100: 9,305 and 2,396 of 19 MB). */
  size.maxSamples = IMAGE_SAMPLES / 2;
  if (api.cuptiPmSamplingGetCounterDataSize(&size) == CUPTI_SUCCESS &&
      size.counterDataSize < d->image_size) {
    size_t sample = (d->image_size - size.counterDataSize) / (IMAGE_SAMPLES / 2);
    if (sample > 0 && IMAGE_SAMPLES * sample < d->image_size) {
      d->sample_bytes = sample;
      d->head_bytes = d->image_size - IMAGE_SAMPLES * sample;
    }
  }
  return CUPTI_SUCCESS;
}

typedef struct image_job {
  device_run *d;
  CUptiResult result;
  const char *call;
} image_job;

static void *image_thread(void *arg) {
  image_job *job = arg;
  job->result = prepare_image(job->d, &job->call);
  return NULL;
}

/* The device side: the counter data image, configure and start. The
 * image is made in a thread while SetConfig runs, off the program's first
 * launch's path: on an H100 (graphs.cu, 10 runs each way, alternating)
 * the first launch waited 0.009 s at the gate, against 0.066 s with the
 * image made before SetConfig, and occcalc took 0.431 s against 0.444 s;
 * the blank image made beside SetConfig was byte for byte the one made
 * alone (8 of 8 runs). Where no thread can start, it is made first. */
static int start_device(device_run *d, uint64_t interval_ns) {
  occ_sampler_device *st = d->st;
  image_job job = {.d = d};
  pthread_t maker;
  bool beside = pthread_create(&maker, NULL, image_thread, &job) == 0;
  if (!beside) image_thread(&job);
  CUpti_PmSampling_SetConfig_Params cfg = {
      .structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
  cfg.pPmSamplingObject = d->obj;
  cfg.configSize = d->config_size;
  cfg.pConfig = d->config;
  cfg.hardwareBufferSize = hw_buffer_bytes();
  cfg.samplingInterval = interval_ns;
  cfg.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  cfg.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  step = "cuptiPmSamplingSetConfig";
  CUptiResult configured = api.cuptiPmSamplingSetConfig(&cfg);
  if (beside) pthread_join(maker, NULL);
  step = "the counter data image";
  if (job.result != CUPTI_SUCCESS) return fail(st, job.result, job.call);
  if (configured != CUPTI_SUCCESS)
    return fail(st, configured, "cuptiPmSamplingSetConfig");
  CUpti_PmSampling_Start_Params go = {
      .structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  go.pPmSamplingObject = d->obj;
  CUPTI(st, cuptiPmSamplingStart, &go);
  d->started = true;
  st->interval_ns = interval_ns;
  st->state = OCC_SAMPLER_ON;
  return 0;
}

static void flush_batch(device_run *d) {
  if (!d->batched) return;
  size_t bytes = d->batched * sizeof *d->batch;
  if (written_bytes + bytes <= FILE_CAP_BYTES) {
    const char *p = (const char *)d->batch;
    size_t left = bytes;
    while (left) {
      ssize_t n = write(samples_out, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      p += n;
      left -= (size_t)n;
    }
    written_bytes += bytes - left;
  }
  d->batched = 0;
}

static void put(device_run *d, const occ_pm_sample *s) {
  if (written_bytes + (d->batched + 1) * sizeof *s > FILE_CAP_BYTES) {
    if (!d->st->why[0])
      snprintf(d->st->why, sizeof d->st->why, "the samples' file reached "
               "its cap of %llu bytes: later samples were not kept",
               (unsigned long long)FILE_CAP_BYTES);
    d->st->lost_count++;
    return;
  }
  d->batch[d->batched++] = *s;
  if (d->batched == WRITE_BATCH) flush_batch(d);
}

/* One decoded sample: a gap before it is written as lost; an idle one
 * (no active cycle) is counted, not written. */
static void take_sample(device_run *d, uint64_t start, uint64_t end,
                        const double *v) {
  occ_sampler_device *st = d->st;
  st->sample_count++;
  /* The first sample after Start begins seconds in the past (seen on an
   * H100 with CUDA 13.0): dropped. */
  if (!d->first_dropped) {
    d->first_dropped = true;
    d->last_end = end;
    return;
  }
  if (end <= start || end - start > UINT32_MAX) return;
  if (d->last_end && start > d->last_end + st->interval_ns / 2 + 64) {
    uint64_t gap = start - d->last_end;
    st->lost_count += gap / st->interval_ns;
    occ_pm_sample lost = {.start_ns = d->last_end,
                          .duration_ns = gap > UINT32_MAX ? UINT32_MAX
                                                          : (uint32_t)gap,
                          .device = (uint16_t)st->ordinal,
                          .magic = OCC_SAMPLE_MAGIC,
                          .flags = OCC_SAMPLE_LOST};
    put(d, &lost);
  }
  d->last_end = end;
  if (!st->first_ns) st->first_ns = start;
  st->last_ns = end;
  if (v[0] <= 0 && v[1] <= 0) {
    st->idle_count++;
    return;
  }
  occ_pm_sample s = {.start_ns = start,
                     .duration_ns = (uint32_t)(end - start),
                     .device = (uint16_t)st->ordinal,
                     .magic = OCC_SAMPLE_MAGIC,
                     .warps_active = v[0],
                     .cycles_active = v[1]};
  put(d, &s);
}

/* The image blank again after a decode that completed `samples`: only
 * its head and the samples written (and two more), about a fifth of the
 * decoding's time saved (24.8 against 19.5 to 20.8 us a sample on an
 * H100). The first such reset is compared with the blank image whole;
 * where they differ, every later reset is whole. */
static void reset_image(device_run *d, size_t samples) {
  size_t used = d->image_size;
  if (d->sample_bytes && samples + 2 <= IMAGE_SAMPLES)
    used = d->head_bytes + (samples + 2) * d->sample_bytes;
  memcpy(d->image, d->blank, used);
  if (used < d->image_size && !d->reset_checked) {
    d->reset_checked = true;
    if (memcmp(d->image, d->blank, d->image_size) != 0) {
      d->sample_bytes = 0;
      memcpy(d->image, d->blank, d->image_size);
    }
  }
}

/* Decodes what the hardware buffer holds into the image and takes its
 * completed samples. Returns 1 when more may wait (the image filled),
 * 0 at the end of the records, -1 when the device failed. */
static int decode(device_run *d) {
  occ_sampler_device *st = d->st;
  double cpu = cpu_s();
  CUpti_PmSampling_DecodeData_Params dec = {
      .structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
  dec.pPmSamplingObject = d->obj;
  dec.pCounterDataImage = d->image;
  dec.counterDataImageSize = d->image_size;
  step = "cuptiPmSamplingDecodeData";
  CUptiResult r = api.cuptiPmSamplingDecodeData(&dec);
  if (dec.overflow) st->overflow++;
  if (r != CUPTI_SUCCESS) {
    fail(st, r, "cuptiPmSamplingDecodeData");
    if (r == CUPTI_ERROR_OUT_OF_MEMORY || dec.overflow)
      snprintf(st->why, sizeof st->why, "the hardware buffer of %zu MiB "
               "overflowed: sampling stopped there", hw_buffer_bytes() >> 20);
    st->state = OCC_SAMPLER_ON; /* what was sampled stays valid */
    return -1;
  }
  CUpti_PmSampling_GetCounterDataInfo_Params info = {
      .structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = d->image;
  info.counterDataImageSize = d->image_size;
  if (api.cuptiPmSamplingGetCounterDataInfo(&info) != CUPTI_SUCCESS)
    info.numCompletedSamples = 0;
  for (size_t i = 0; i < info.numCompletedSamples; i++) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
        .structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
    si.pPmSamplingObject = d->obj;
    si.pCounterDataImage = d->image;
    si.counterDataImageSize = d->image_size;
    si.sampleIndex = i;
    if (api.cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS)
      continue;
    double v[2] = {0, 0};
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = d->host;
    ev.pCounterDataImage = d->image;
    ev.counterDataImageSize = d->image_size;
    ev.rangeIndex = i;
    ev.ppMetricNames = metrics;
    ev.numMetrics = 2;
    ev.pMetricValues = v;
    if (api.cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS)
      continue;
    take_sample(d, si.startTimestamp, si.endTimestamp, v);
  }
  if (info.numCompletedSamples) reset_image(d, info.numCompletedSamples);
  flush_batch(d);
  st->decode_seconds += cpu_s() - cpu;
  if (dec.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) {
    st->image_full_count++;
    return 1;
  }
  return 0;
}

/* Stop, without reading what the buffer still holds. */
static void halt(device_run *d) {
  if (!d->started) return;
  CUpti_PmSampling_Stop_Params p = {
      .structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  p.pPmSamplingObject = d->obj;
  api.cuptiPmSamplingStop(&p);
  d->started = false;
}

/* Stop, and the rest of the buffer decoded: every sample is in the file. */
static void stop_sampling(device_run *d) {
  if (!d->started) return;
  halt(d);
  double t = now_s();
  /* The rest of the buffer, to its end (bounded: a device that keeps
   * answering "more" is left after 100,000 decodes). */
  for (int i = 0; i < 100000 && decode(d) == 1; i++) {
  }
  d->st->drain_seconds = now_s() - t;
}

/* Disable, and the host object's end. */
static void release(device_run *d) {
  disable(d);
  end_host(d);
}

static void stop_device(device_run *d) {
  stop_sampling(d);
  release(d);
}

static void write_status(int fd, const occ_sampler_status *status) {
  const char *p = (const char *)status;
  size_t left = sizeof *status;
  while (left) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= (size_t)n;
  }
}

/* How long a run waits for the GPU's lock: another run that has just
 * ended may still be disabling its sampling (it takes turns with it),
 * where one still sampling holds it for its program's life (refused). */
#define LOCK_WAIT_MS 2000

/* The GPU's lock: a file named by its UUID in TMPDIR (or /tmp), locked
 * by the child for its life. The kernel drops it when the child ends,
 * whatever ends it, so no lock outlives a run. A file that cannot be
 * opened leaves the device unlocked: CUPTI then says whether its counters
 * are free. Returns 0, or -1 when another run holds it. */
static int lock_gpu(device_run *d) {
  d->lock_fd = -1;
  CUuuid id;
  if (!api.cuDeviceGetUuid || api.cuDeviceGetUuid(&id, d->dev) != CUDA_SUCCESS)
    return 0;
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char path[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/occcalc-pm-", dir);
  for (int i = 0; i < 16 && n > 0 && (size_t)n + 3 < sizeof path; i++)
    n += snprintf(path + n, sizeof path - (size_t)n, "%02x",
                  (unsigned char)id.bytes[i]);
  if (n <= 0 || (size_t)n + 6 >= sizeof path) return 0;
  snprintf(path + n, sizeof path - (size_t)n, ".lock");
  /* Opened without O_CREAT first: in a sticky /tmp another user's file
   * refuses O_CREAT (fs.protected_regular) but opens for reading. */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0444);
  if (fd < 0) return 0;
  for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 20) {
    if (errno != EWOULDBLOCK || waited >= LOCK_WAIT_MS) {
      close(fd);
      return errno == EWOULDBLOCK ? -1 : 0;
    }
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
  }
  d->lock_fd = fd;
  return 0;
}

/* PM sampling with the GPU time trigger: from GA10x (8.6) on; Turing and
 * GA100 have only the clock-cycle trigger, older GPUs none (CUPTI's
 * CUpti_PmSampling_SetConfig_Params). */
static bool time_trigger(int major, int minor) {
  return major > 8 || (major == 8 && minor >= 6);
}

/* Which devices: every one the driver shows occcalc (the program sees
 * the same under the same CUDA_VISIBLE_DEVICES), or spec->device. */
static void set_up(const occ_sampler_spec *spec, occ_sampler_status *status,
                   device_run *runs) {
  char why[OCC_SAMPLER_WHY_MAX] = "";
  double t0 = now_s();
  int count = 0;
  step = "loading CUPTI and the driver";
  if (load(why, sizeof why) != 0 || (step = "cuInit", 0) ||
      api.cuInit(0) != CUDA_SUCCESS ||
      api.cuDeviceGetCount(&count) != CUDA_SUCCESS) {
    if (api.cuInit && !why[0]) snprintf(why, sizeof why, "cuInit failed");
    status->device_count = 1;
    status->devices[0] = (occ_sampler_device){
        .ordinal = spec->device < 0 ? 0 : spec->device,
        .state = OCC_SAMPLER_FAILED};
    snprintf(status->devices[0].why, sizeof status->devices[0].why, "%s",
             why[0] ? why : "the driver could not be opened");
    return;
  }
  if (count > OCC_SAMPLER_DEVICES_MAX) count = OCC_SAMPLER_DEVICES_MAX;
  double t1 = now_s();
  status->device_count = count;
  for (int i = 0; i < count; i++) {
    occ_sampler_device *st = &status->devices[i];
    device_run *d = &runs[i];
    d->st = st;
    d->lock_fd = -1;
    st->ordinal = i;
    st->init_seconds = t1 - t0;
    if (spec->device >= 0 && spec->device != i) continue;
    int threads = 0, warp = 0, major = 0, minor = 0;
    if (api.cuDeviceGet(&d->dev, i) != CUDA_SUCCESS) {
      st->state = OCC_SAMPLER_FAILED;
      snprintf(st->why, sizeof st->why, "cuDeviceGet failed");
      continue;
    }
    step = "cuDeviceGetAttribute";
    api.cuDeviceGetAttribute(&threads,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d->dev);
    api.cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d->dev);
    api.cuDeviceGetAttribute(&major,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
    api.cuDeviceGetAttribute(&minor,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
    st->max_warps_per_sm = warp > 0 ? threads / warp : 0;
    if (!time_trigger(major, minor)) {
      st->state = OCC_SAMPLER_UNSUPPORTED;
      snprintf(st->why, sizeof st->why, "compute capability %d.%d has no "
               "PM sampling on a GPU time interval (8.6 or newer)",
               major, minor);
      continue;
    }
    step = "locking the GPU";
    if (lock_gpu(d) != 0) {
      st->state = OCC_SAMPLER_BUSY;
      snprintf(st->why, sizeof st->why, "another occcalc run samples it");
      continue;
    }
    d->claimed = true;
  }
}

/* The claimed devices enabled, configured and started, beside the
 * program. A device that fails is let go at once. */
static void start_all(const occ_sampler_spec *spec, occ_sampler_status *status,
                      device_run *runs) {
  CUpti_Profiler_Initialize_Params init = {
      .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  step = "cuptiProfilerInitialize";
  double t0 = now_s();
  CUptiResult pr = api.cuptiProfilerInitialize(&init);
  double profiler_seconds = now_s() - t0;
  for (int i = 0; i < status->device_count; i++) {
    device_run *d = &runs[i];
    if (!d->claimed) continue;
    if (pr != CUPTI_SUCCESS) {
      fail(d->st, pr, "cuptiProfilerInitialize");
      continue;
    }
    double t = now_s();
    if (enable_device(d) != 0) continue;
    d->st->start_seconds = now_s() - t + profiler_seconds;
    t = now_s();
    int rc = configure(d, true);
    double c = now_s();
    if (rc == 0) rc = start_device(d, spec->interval_ns);
    /* An image kept from an earlier run that no longer fits: afresh. */
    if (rc != 0 && d->from_cache) {
      unconfigure(d);
      d->st->state = OCC_SAMPLER_OFF;
      d->st->why[0] = '\0';
      t = now_s();
      rc = configure(d, false);
      c = now_s();
      if (rc == 0) rc = start_device(d, spec->interval_ns);
    }
    d->st->config_seconds = c - t;
    d->st->start_seconds += now_s() - c;
    if (rc != 0) disable(d);
  }
}

/* The devices' decoding, in a thread of its own, so that the main
 * thread answers occcalc's stop at once: a decode call can take tens
 * of milliseconds. After each round it publishes the status as of the
 * samples written so far. */
typedef struct decoding {
  occ_sampler_status *status;   /* the thread's own, until it is joined */
  device_run *runs;
  atomic_bool quit;
  pthread_mutex_t lock;
  pthread_cond_t moved;
  occ_sampler_status published; /* as of published_bytes of the file */
  uint64_t published_bytes;
  /* Each device's samples reach this far (its last sample's end),
   * UINT64_MAX once it samples no more. */
  uint64_t covered[OCC_SAMPLER_DEVICES_MAX];
} decoding;

static void publish(decoding *w) {
  pthread_mutex_lock(&w->lock);
  w->published = *w->status;
  w->published_bytes = written_bytes;
  for (int i = 0; i < w->status->device_count; i++)
    w->covered[i] = w->runs[i].started ? w->runs[i].last_end : UINT64_MAX;
  pthread_cond_broadcast(&w->moved);
  pthread_mutex_unlock(&w->lock);
}

static void *decode_devices(void *arg) {
  decoding *w = arg;
  while (!atomic_load(&w->quit)) {
    double began = now_s();
    for (int i = 0; i < w->status->device_count; i++) {
      device_run *d = &w->runs[i];
      if (!d->started) continue;
      int more;
      int rounds = 0;
      while ((more = decode(d)) == 1 && ++rounds < 64 &&
             !atomic_load(&w->quit)) {
      }
      if (more < 0) {
        stop_device(d);
        d->st->state = OCC_SAMPLER_ON;
      }
    }
    publish(w);
    double left = DECODE_PERIOD_MS / 1e3 - (now_s() - began);
    if (left > 0)
      nanosleep(&(struct timespec){0, (long)(left * 1e9)}, NULL);
  }
  return NULL;
}

/* The thread started, with the signals left to the main thread. */
static int start_decoding(decoding *w, pthread_t *thread) {
  atomic_init(&w->quit, false);
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->moved, &attr);
  pthread_condattr_destroy(&attr);
  publish(w);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(thread, NULL, decode_devices, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc == 0 ? 0 : -1;
}

/* Waits for occcalc's stop: the time the samples must cover (0 for
 * "now": the pipe's end, occcalc gone, or SIGTERM or SIGHUP). */
static uint64_t wait_for_stop(int control) {
  struct pollfd p = {.fd = control, .events = POLLIN};
  while (!stop_requested) {
    /* Bounded: a signal that came just before poll is seen. */
    int n = poll(&p, 1, 100);
    if (n == 0 || (n < 0 && errno == EINTR)) continue;
    uint64_t until = 0;
    if (n > 0 && read(control, &until, sizeof until) != (ssize_t)sizeof until)
      until = 0;
    return until;
  }
  return 0;
}

/* Whether every device's samples reached `until` (CUPTI's clock, the
 * launch records' too) within CATCH_UP_MS and two intervals. Each
 * device's wait is in its drain_seconds. */
static bool wait_covered(decoding *w, uint64_t until) {
  uint64_t interval = 0;
  pthread_mutex_lock(&w->lock);
  for (int i = 0; i < w->published.device_count; i++)
    if (w->published.devices[i].interval_ns > interval)
      interval = w->published.devices[i].interval_ns;
  pthread_mutex_unlock(&w->lock);
  double t = now_s();
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  uint64_t wait_ns = 2 * interval + CATCH_UP_MS * 1000000ull;
  deadline.tv_sec += (time_t)(wait_ns / 1000000000u);
  deadline.tv_nsec += (long)(wait_ns % 1000000000u);
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&w->lock);
  bool covered = false;
  for (;;) {
    covered = true;
    for (int i = 0; i < w->published.device_count; i++)
      covered &= w->covered[i] >= until;
    if (covered ||
        pthread_cond_timedwait(&w->moved, &w->lock, &deadline) == ETIMEDOUT)
      break;
  }
  if (covered)
    for (int i = 0; i < w->published.device_count; i++)
      w->published.devices[i].drain_seconds = now_s() - t;
  pthread_mutex_unlock(&w->lock);
  return covered;
}

static void write_status(int fd, const occ_sampler_status *status);

/* A crash in the child: its status says where, then it ends. Not
 * async-signal-safe in snprintf, but the process is lost anyway. */
static void on_crash(int sig) {
  if (crash_status && crash_fd >= 0) {
    occ_sampler_device *d = &crash_status->devices[0];
    if (crash_status->device_count < 1) crash_status->device_count = 1;
    d->state = OCC_SAMPLER_FAILED;
    snprintf(d->why, sizeof d->why, "the sampler crashed (signal %d) in %s",
             sig, step);
    write_status(crash_fd, crash_status);
  }
  _exit(128 + sig);
}

static void child(const occ_sampler_spec *spec, int control, int status_fd,
                  int samples, int gate, pid_t parent) {
  /* Dies with occcalc: a SIGKILL of occcalc still stops the sampling. */
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(0);
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  struct sigaction stop = {.sa_handler = on_stop_signal};
  sigemptyset(&stop.sa_mask);
  sigaction(SIGTERM, &stop, NULL);
  sigaction(SIGHUP, &stop, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  samples_out = samples;
  gate_out = gate;
  static occ_sampler_status status;
  static device_run runs[OCC_SAMPLER_DEVICES_MAX];
  status.magic = OCC_SAMPLER_STATUS_MAGIC;
  crash_status = &status;
  crash_fd = status_fd;
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGFPE, on_crash);
  set_up(spec, &status, runs);
  status.phase = OCC_SAMPLER_CLAIMED;
  write_status(status_fd, &status);
  start_all(spec, &status, runs);
  if (gate_out >= 0) close(gate_out);
  gate_out = -1;
  status.phase = OCC_SAMPLER_STARTED;
  write_status(status_fd, &status);
  bool any = false;
  for (int i = 0; i < status.device_count; i++) any |= runs[i].started;
  /* Devices that failed to start were let go (start_all); the status
   * says why. */
  decoding w = {.status = &status, .runs = runs};
  pthread_t worker;
  if (any && start_decoding(&w, &worker) != 0) {
    for (int i = 0; i < status.device_count; i++)
      if (runs[i].started) {
        stop_device(&runs[i]);
        snprintf(status.devices[i].why, sizeof status.devices[i].why,
                 "no thread to decode the samples");
      }
    any = false;
  }
  /* With no device sampling, the final status at once: the GPUs' locks
   * are let go for a run that follows. */
  uint64_t until = any ? wait_for_stop(control) : 0;
  if (any && !until && api.cuptiGetTimestamp(&until) != CUPTI_SUCCESS)
    until = 0;
  /* The final status once every sample to `until` is in the file:
   * occcalc reads them while the decoding ends and Stop and Disable
   * run, and does not wait for them (occ_sampler_close). */
  bool covered = !any || (until && wait_covered(&w, until));
  if (covered && any) {
    pthread_mutex_lock(&w.lock);
    occ_sampler_status final = w.published;
    final.samples_bytes = w.published_bytes;
    pthread_mutex_unlock(&w.lock);
    final.phase = OCC_SAMPLER_FINAL;
    write_status(status_fd, &final);
  }
  if (any) {
    atomic_store(&w.quit, true);
    pthread_join(worker, NULL);
  }
  if (!covered || !any) {
    for (int i = 0; i < status.device_count; i++) stop_sampling(&runs[i]);
    status.phase = OCC_SAMPLER_FINAL;
    status.samples_bytes = written_bytes;
    write_status(status_fd, &status);
  }
  for (int i = 0; i < status.device_count; i++) {
    halt(&runs[i]);
    release(&runs[i]);
  }
  _exit(0);
}

static int make_file(char *why, size_t why_size) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/occcalc-samples-XXXXXX", dir) >=
      (int)sizeof path) {
    snprintf(why, why_size, "TMPDIR: '%s': %s", dir, strerror(ENAMETOOLONG));
    return -1;
  }
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, why_size, "%s: cannot create the samples' file: %s", path,
             strerror(errno));
    return -1;
  }
  unlink(path);
  return fd;
}

static int read_status(occ_sampler *s) {
  occ_sampler_status st;
  char *p = (char *)&st;
  size_t got = 0;
  while (got < sizeof st) {
    ssize_t n = read(s->status_fd, p + got, sizeof st - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  if (st.magic != OCC_SAMPLER_STATUS_MAGIC || st.device_count < 0 ||
      st.device_count > OCC_SAMPLER_DEVICES_MAX)
    return -1;
  for (int i = 0; i < st.device_count; i++) {
    st.devices[i].why[OCC_SAMPLER_WHY_MAX - 1] = '\0';
    st.devices[i].chip[sizeof st.devices[i].chip - 1] = '\0';
  }
  s->status = st;
  return 0;
}

/* The gate: a pipe whose read end the program inherits (named by
 * OCC_ENV_GATE with its device and inode, so that a descriptor the program
 * reused is never mistaken for it) and whose only write end the child
 * holds. */
static int make_gate(occ_sampler *s, int gate[2], char *why,
                     size_t why_size) {
  if (pipe2(gate, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(gate[0], &st) != 0 || fcntl(gate[0], F_SETFD, 0) != 0) {
    snprintf(why, why_size, "the gate's pipe: %s", strerror(errno));
    close(gate[0]);
    close(gate[1]);
    return -1;
  }
  s->gate_fd = gate[0];
  snprintf(s->gate_env, sizeof s->gate_env, "%d:%llu:%llu", gate[0],
           (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  return 0;
}

int occ_sampler_start(const occ_sampler_spec *spec, occ_sampler *s,
                      char *why, size_t why_size) {
  memset(s, 0, sizeof *s);
  s->control_fd = s->status_fd = s->gate_fd = -1;
  s->samples_fd = make_file(why, why_size);
  if (s->samples_fd < 0) return -1;
  int gate[2] = {-1, -1};
  if (spec->gate && make_gate(s, gate, why, why_size) != 0) {
    close(s->samples_fd);
    s->samples_fd = -1;
    return -1;
  }
  int control[2], status[2];
  if (pipe2(control, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    close(s->samples_fd);
    return -1;
  }
  if (pipe2(status, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    close(control[0]);
    close(control[1]);
    close(s->samples_fd);
    return -1;
  }
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    close(control[1]);
    close(status[0]);
    if (gate[0] >= 0) close(gate[0]);
    child(spec, control[0], status[1], s->samples_fd, gate[1], parent);
  }
  close(control[0]);
  close(status[1]);
  if (gate[1] >= 0) close(gate[1]);
  s->control_fd = control[1];
  s->status_fd = status[0];
  if (pid < 0) {
    snprintf(why, why_size, "fork: %s", strerror(errno));
    occ_sampler_close(s);
    return -1;
  }
  s->pid = pid;
  if (read_status(s) != 0 ||
      (spec->wait_started && read_status(s) != 0)) {
    int wstatus = 0;
    waitpid(s->pid, &wstatus, 0);
    s->pid = 0;
    snprintf(why, why_size, "the sampler ended before it started (%s %d)",
             WIFSIGNALED(wstatus) ? "signal" : "exit status",
             WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
    occ_sampler_close(s);
    return -1;
  }
  return 0;
}

static void reap(occ_sampler *s) {
  while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {
  }
  s->pid = 0;
}

/* The time the samples must cover, to a child that may have ended
 * already (no devices sampled): unwritten then, without the SIGPIPE
 * that would end occcalc; the child takes its clock's now where it is
 * there and the write failed. */
static void write_until(int fd, uint64_t until) {
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  if (write(fd, &until, sizeof until) < 0 && errno == EPIPE &&
      !sigismember(&old, SIGPIPE))
    sigtimedwait(&pipe_signal, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int occ_sampler_stop(occ_sampler *s, uint64_t covered_to, char *why,
                     size_t why_size) {
  if (!s->pid || s->control_fd < 0) return 0;
  /* The final status must not be cut short by a signal now. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGQUIT);
  sigprocmask(SIG_BLOCK, &block, &old);
  if (covered_to) write_until(s->control_fd, covered_to);
  close(s->control_fd);
  s->control_fd = -1;
  int rc = 0;
  while (rc == 0 && s->status.phase != OCC_SAMPLER_FINAL) rc = read_status(s);
  if (rc != 0) {
    snprintf(why, why_size, "the sampler ended before its final status");
    reap(s);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  s->samples_bytes = s->status.phase == OCC_SAMPLER_FINAL
                         ? s->status.samples_bytes : UINT64_MAX;
  lseek(s->samples_fd, 0, SEEK_SET);
  return rc;
}

void occ_sampler_close(occ_sampler *s) {
  char why[64];
  /* After its final status the child disables sampling and ends on its
   * own (about 0.09 s on an H200), holding the GPU's lock until then: a
   * run that follows at once waits for it (LOCK_WAIT_MS), and occcalc
   * need not. Its end is reaped by init once occcalc has gone. */
  if (s->pid) occ_sampler_stop(s, 0, why, sizeof why);
  if (s->control_fd >= 0) close(s->control_fd);
  if (s->status_fd >= 0) close(s->status_fd);
  if (s->gate_fd >= 0) close(s->gate_fd);
  if (s->samples_fd >= 0) close(s->samples_fd);
  s->control_fd = s->status_fd = s->samples_fd = s->gate_fd = -1;
}
