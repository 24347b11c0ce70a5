/* counter.c - hardware counters through CUPTI's Range Profiler: a session
 * of any metrics (occ_prof, also used by `occcalc run`'s injection
 * library) and the probe's achieved occupancy over it (see counter.h). */
#include "live/counter.h"

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/dl.h"

/* Achieved occupancy as Nsight Compute reports it. */
static const char *const metric = "sm__warps_active.avg.pct_of_peak_sustained_active";

/* The CUPTI functions used, resolved with dlsym. */
#define CUPTI_FUNCS(X)                                                       \
  X(cuptiGetResultString)                                                    \
  X(cuptiProfilerInitialize)                                                 \
  X(cuptiDeviceGetChipName)                                                  \
  OCC_CUPTI_HOST_FUNCS(X)                                                    \
  X(cuptiRangeProfilerEnable)                                                \
  X(cuptiRangeProfilerDisable)                                               \
  X(cuptiRangeProfilerGetCounterDataSize)                                    \
  X(cuptiRangeProfilerCounterDataImageInitialize)                            \
  X(cuptiRangeProfilerSetConfig)                                             \
  X(cuptiRangeProfilerStart)                                                 \
  X(cuptiRangeProfilerStop)                                                  \
  X(cuptiRangeProfilerPushRange)                                             \
  X(cuptiRangeProfilerPopRange)                                              \
  X(cuptiRangeProfilerDecodeData)                                            \
  X(cuptiRangeProfilerGetCounterDataInfo)                                    \
  X(cuptiRangeProfilerCounterDataGetRangeInfo)

typedef struct cupti_api {
#define FIELD(name) __typeof__(name) *name;
  CUPTI_FUNCS(FIELD)
#undef FIELD
} cupti_api;

struct occ_prof {
  void *lib;
  cupti_api api;
  const char *const *metrics;
  int metric_count;
  bool auto_ranges;
  size_t max_ranges;
  CUpti_Profiler_Host_Object *host;
  CUpti_RangeProfiler_Object *profiler;
  uint8_t *config;
  size_t config_size;
  uint8_t *data;
  size_t data_size;
};

struct occ_counter {
  occ_prof *prof;
};

/* Where the toolkit and the CUDA wheels put libcupti: a wheel's on the
 * loader's path, else the toolkit's. */
static const char *const lib_names[] = {"libcupti.so.13", "libcupti.so",
                                        NULL};
static const char *const lib_dirs[] = {
    "/usr/local/cuda/lib64", "/usr/local/cuda/extras/CUPTI/lib64", NULL};

static int fail(const occ_prof *c, CUptiResult r, const char *call,
                char *why, size_t why_size) {
  const char *text = NULL;
  if (c->api.cuptiGetResultString) c->api.cuptiGetResultString(r, &text);
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    snprintf(why, why_size, "%s: %s (profiling needs the counter permission: "
             "NVreg_RestrictProfilingToAdminUsers=0 or root)", call,
             text ? text : "insufficient privileges");
  else
    snprintf(why, why_size, "%s: %s", call, text ? text : "CUPTI error");
  return -1;
}

#define CUPTI(c, call, params)                                               \
  do {                                                                       \
    CUptiResult r_ = (c)->api.call(params);                                  \
    if (r_ != CUPTI_SUCCESS) return fail(c, r_, #call, why, why_size);       \
  } while (0)

void *occ_cupti_open(int flags, char *why, size_t why_size) {
  const occ_dl_library cupti = {
      .what = "CUPTI", .names = lib_names, .dirs = lib_dirs, .flags = flags};
  return occ_dl_open(&cupti, NULL, 0, why, why_size);
}

static int load(occ_prof *c, char *why, size_t why_size) {
  if (!(c->lib = occ_cupti_open(RTLD_NOW | RTLD_LOCAL, why, why_size)))
    return -1;
#define LOAD(name)                                                           \
  if (!(*(void **)&c->api.name = dlsym(c->lib, #name))) {                    \
    snprintf(why, why_size, "CUPTI has no %s (CUDA 12.8 or newer needed)",   \
             #name);                                                         \
    return -1;                                                               \
  }
  CUPTI_FUNCS(LOAD)
#undef LOAD
  return 0;
}

static int host_config(occ_prof *c, int ordinal, char *why,
                       size_t why_size) {
  CUpti_Profiler_Initialize_Params init = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUPTI(c, cuptiProfilerInitialize, &init);
  CUpti_Device_GetChipName_Params chip = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = (size_t)ordinal;
  CUPTI(c, cuptiDeviceGetChipName, &chip);
  CUpti_Profiler_Host_Initialize_Params host = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  CUPTI(c, cuptiProfilerHostInitialize, &host);
  c->host = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = c->host;
  add.ppMetricNames = (const char **)c->metrics;
  add.numMetrics = (size_t)c->metric_count;
  CUPTI(c, cuptiProfilerHostConfigAddMetrics, &add);
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = c->host;
  CUPTI(c, cuptiProfilerHostGetConfigImageSize, &size);
  c->config_size = size.configImageSize;
  if (!(c->config = malloc(c->config_size))) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  CUpti_Profiler_Host_GetConfigImage_Params image = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.pHostObject = c->host;
  image.pConfigImage = c->config;
  image.configImageSize = c->config_size;
  CUPTI(c, cuptiProfilerHostGetConfigImage, &image);
  CUpti_Profiler_Host_GetNumOfPasses_Params passes = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.pConfigImage = c->config;
  passes.configImageSize = c->config_size;
  CUPTI(c, cuptiProfilerHostGetNumOfPasses, &passes);
  /* A user range is measured once: metrics needing replay are refused.
   * Kernel replay runs each kernel as many times as it takes. */
  if (!c->auto_ranges && passes.numOfPasses != 1) {
    snprintf(why, why_size, "%s needs %zu passes, not 1", c->metrics[0],
             passes.numOfPasses);
    return -1;
  }
  return 0;
}

static int enable(occ_prof *c, void *context, char *why, size_t why_size) {
  CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = (CUcontext)context;
  CUPTI(c, cuptiRangeProfilerEnable, &en);
  c->profiler = en.pRangeProfilerObject;
  CUpti_RangeProfiler_GetCounterDataSize_Params size = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = c->profiler;
  size.pMetricNames = (const char **)c->metrics;
  size.numMetrics = (size_t)c->metric_count;
  size.maxNumOfRanges = c->max_ranges;
  size.maxNumRangeTreeNodes = (uint32_t)c->max_ranges;
  CUPTI(c, cuptiRangeProfilerGetCounterDataSize, &size);
  c->data_size = size.counterDataSize;
  if (!(c->data = malloc(c->data_size))) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  return 0;
}

occ_prof *occ_prof_prepare(int ordinal, const char *const *metrics,
                           int metric_count, bool auto_ranges,
                           size_t max_ranges, char *why, size_t why_size) {
  occ_prof *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  c->metrics = metrics;
  c->metric_count = metric_count;
  c->auto_ranges = auto_ranges;
  c->max_ranges = max_ranges;
  if (load(c, why, why_size) || host_config(c, ordinal, why, why_size)) {
    occ_prof_close(c);
    return NULL;
  }
  return c;
}

int occ_prof_enable(occ_prof *c, void *cu_context, char *why,
                    size_t why_size) {
  return enable(c, cu_context, why, why_size);
}

occ_prof *occ_prof_open(void *cu_context, int ordinal,
                        const char *const *metrics, int metric_count,
                        bool auto_ranges, size_t max_ranges, char *why,
                        size_t why_size) {
  occ_prof *c = occ_prof_prepare(ordinal, metrics, metric_count, auto_ranges,
                                 max_ranges, why, why_size);
  if (c && occ_prof_enable(c, cu_context, why, why_size) != 0) {
    occ_prof_close(c);
    return NULL;
  }
  return c;
}

int occ_prof_reset(occ_prof *c, char *why, size_t why_size) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = c->profiler;
  init.counterDataSize = c->data_size;
  init.pCounterData = c->data;
  CUPTI(c, cuptiRangeProfilerCounterDataImageInitialize, &init);
  return 0;
}

int occ_prof_start(occ_prof *c, char *why, size_t why_size) {
  if (occ_prof_reset(c, why, why_size) != 0) return -1;
  CUpti_RangeProfiler_SetConfig_Params set = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = c->profiler;
  set.pConfig = c->config;
  set.configSize = c->config_size;
  set.pCounterDataImage = c->data;
  set.counterDataImageSize = c->data_size;
  set.range = c->auto_ranges ? CUPTI_AutoRange : CUPTI_UserRange;
  set.replayMode = c->auto_ranges ? CUPTI_KernelReplay : CUPTI_UserReplay;
  set.maxRangesPerPass = c->max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  CUPTI(c, cuptiRangeProfilerSetConfig, &set);
  CUpti_RangeProfiler_Start_Params start = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerStart, &start);
  return 0;
}

int occ_prof_push(occ_prof *c, const char *name, char *why, size_t why_size) {
  CUpti_RangeProfiler_PushRange_Params push = {.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  push.pRangeProfilerObject = c->profiler;
  push.pRangeName = name;
  CUPTI(c, cuptiRangeProfilerPushRange, &push);
  return 0;
}

int occ_prof_pop(occ_prof *c, char *why, size_t why_size) {
  CUpti_RangeProfiler_PopRange_Params pop = {.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerPopRange, &pop);
  return 0;
}

int occ_prof_stop(occ_prof *c, char *why, size_t why_size) {
  CUpti_RangeProfiler_Stop_Params stop = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerStop, &stop);
  return 0;
}

int occ_prof_decode(occ_prof *c, size_t *ranges, char *why, size_t why_size) {
  CUpti_RangeProfiler_DecodeData_Params decode = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerDecodeData, &decode);
  if (!ranges) return 0;
  CUpti_RangeProfiler_GetCounterDataInfo_Params info = {.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = c->data;
  info.counterDataImageSize = c->data_size;
  CUPTI(c, cuptiRangeProfilerGetCounterDataInfo, &info);
  *ranges = info.numTotalRanges;
  return 0;
}

int occ_prof_values(occ_prof *c, size_t index, double *values,
                    const char **range_name, char *why, size_t why_size) {
  CUpti_Profiler_Host_EvaluateToGpuValues_Params eval = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  eval.pHostObject = c->host;
  eval.pCounterDataImage = c->data;
  eval.counterDataImageSize = c->data_size;
  eval.rangeIndex = index;
  eval.ppMetricNames = (const char **)c->metrics;
  eval.numMetrics = (size_t)c->metric_count;
  eval.pMetricValues = values;
  CUPTI(c, cuptiProfilerHostEvaluateToGpuValues, &eval);
  if (!range_name) return 0;
  CUpti_RangeProfiler_CounterData_GetRangeInfo_Params info = {.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = c->data;
  info.counterDataImageSize = c->data_size;
  info.rangeIndex = index;
  info.rangeDelimiter = "/";
  CUPTI(c, cuptiRangeProfilerCounterDataGetRangeInfo, &info);
  *range_name = info.rangeName;
  return 0;
}

void occ_prof_close(occ_prof *c) {
  if (!c) return;
  if (c->profiler) {
    CUpti_RangeProfiler_Disable_Params off = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    off.pRangeProfilerObject = c->profiler;
    c->api.cuptiRangeProfilerDisable(&off);
  }
  if (c->host) {
    CUpti_Profiler_Host_Deinitialize_Params deinit = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    deinit.pHostObject = c->host;
    c->api.cuptiProfilerHostDeinitialize(&deinit);
  }
  free(c->config);
  free(c->data);
  /* libcupti stays loaded: CUPTI does not support being unloaded while
   * the process keeps its CUDA context. */
  free(c);
}

static const char *const probe_metrics[] = {metric};

occ_counter *occ_counter_open(void *cu_context, int ordinal, char *why,
                              size_t why_size) {
  occ_counter *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  c->prof = occ_prof_open(cu_context, ordinal, probe_metrics, 1, false, 1,
                          why, why_size);
  if (!c->prof) {
    free(c);
    return NULL;
  }
  return c;
}

int occ_counter_begin(occ_counter *c, char *why, size_t why_size) {
  return occ_prof_start(c->prof, why, why_size) ||
                 occ_prof_push(c->prof, "occcalc_probe", why, why_size)
             ? -1 : 0;
}

int occ_counter_end(occ_counter *c, double *pct, char *why, size_t why_size) {
  return occ_prof_pop(c->prof, why, why_size) ||
                 occ_prof_stop(c->prof, why, why_size) ||
                 occ_prof_decode(c->prof, NULL, why, why_size) ||
                 occ_prof_values(c->prof, 0, pct, NULL, why, why_size)
             ? -1 : 0;
}

void occ_counter_close(occ_counter *c) {
  if (!c) return;
  occ_prof_close(c->prof);
  free(c);
}
