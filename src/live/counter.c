/* counter.c - the hardware counter through CUPTI's Range Profiler (see
 * counter.h for the contract). */
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

/* Achieved occupancy as Nsight Compute reports it. */
static const char *const metric = "sm__warps_active.avg.pct_of_peak_sustained_active";

/* The CUPTI functions used, resolved with dlsym. */
#define CUPTI_FUNCS(X)                                                       \
  X(cuptiGetResultString)                                                    \
  X(cuptiProfilerInitialize)                                                 \
  X(cuptiDeviceGetChipName)                                                  \
  X(cuptiProfilerHostInitialize)                                             \
  X(cuptiProfilerHostDeinitialize)                                           \
  X(cuptiProfilerHostConfigAddMetrics)                                       \
  X(cuptiProfilerHostGetConfigImageSize)                                     \
  X(cuptiProfilerHostGetConfigImage)                                         \
  X(cuptiProfilerHostGetNumOfPasses)                                         \
  X(cuptiProfilerHostEvaluateToGpuValues)                                    \
  X(cuptiRangeProfilerEnable)                                                \
  X(cuptiRangeProfilerDisable)                                               \
  X(cuptiRangeProfilerGetCounterDataSize)                                    \
  X(cuptiRangeProfilerCounterDataImageInitialize)                            \
  X(cuptiRangeProfilerSetConfig)                                             \
  X(cuptiRangeProfilerStart)                                                 \
  X(cuptiRangeProfilerStop)                                                  \
  X(cuptiRangeProfilerPushRange)                                             \
  X(cuptiRangeProfilerPopRange)                                              \
  X(cuptiRangeProfilerDecodeData)

typedef struct cupti_api {
#define FIELD(name) __typeof__(name) *name;
  CUPTI_FUNCS(FIELD)
#undef FIELD
} cupti_api;

struct occ_counter {
  void *lib;
  cupti_api api;
  CUpti_Profiler_Host_Object *host;
  CUpti_RangeProfiler_Object *profiler;
  uint8_t *config;
  size_t config_size;
  uint8_t *data;
  size_t data_size;
};

/* Where the toolkit and the CUDA wheels put libcupti. */
static const char *const lib_names[] = {
    "libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};

static int fail(const occ_counter *c, CUptiResult r, const char *call,
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

static int load(occ_counter *c, char *why, size_t why_size) {
  for (size_t i = 0; !c->lib && i < sizeof lib_names / sizeof *lib_names; i++)
    c->lib = dlopen(lib_names[i], RTLD_NOW | RTLD_LOCAL);
  if (!c->lib) {
    snprintf(why, why_size, "CUPTI not found: %s", dlerror());
    return -1;
  }
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

static int host_config(occ_counter *c, int ordinal, char *why,
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
  const char *names[] = {metric};
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = c->host;
  add.ppMetricNames = names;
  add.numMetrics = 1;
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
  /* One launch is measured once: a metric needing replay is refused. */
  if (passes.numOfPasses != 1) {
    snprintf(why, why_size, "%s needs %zu passes, not 1", metric,
             passes.numOfPasses);
    return -1;
  }
  return 0;
}

static int enable(occ_counter *c, void *context, char *why, size_t why_size) {
  CUpti_RangeProfiler_Enable_Params en = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = (CUcontext)context;
  CUPTI(c, cuptiRangeProfilerEnable, &en);
  c->profiler = en.pRangeProfilerObject;
  const char *names[] = {metric};
  CUpti_RangeProfiler_GetCounterDataSize_Params size = {.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = c->profiler;
  size.pMetricNames = names;
  size.numMetrics = 1;
  size.maxNumOfRanges = 1;
  size.maxNumRangeTreeNodes = 1;
  CUPTI(c, cuptiRangeProfilerGetCounterDataSize, &size);
  c->data_size = size.counterDataSize;
  if (!(c->data = malloc(c->data_size))) {
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  return 0;
}

occ_counter *occ_counter_open(void *cu_context, int ordinal, char *why,
                              size_t why_size) {
  occ_counter *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  if (load(c, why, why_size) || host_config(c, ordinal, why, why_size) ||
      enable(c, cu_context, why, why_size)) {
    occ_counter_close(c);
    return NULL;
  }
  return c;
}

int occ_counter_begin(occ_counter *c, char *why, size_t why_size) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = c->profiler;
  init.counterDataSize = c->data_size;
  init.pCounterData = c->data;
  CUPTI(c, cuptiRangeProfilerCounterDataImageInitialize, &init);
  CUpti_RangeProfiler_SetConfig_Params set = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = c->profiler;
  set.pConfig = c->config;
  set.configSize = c->config_size;
  set.pCounterDataImage = c->data;
  set.counterDataImageSize = c->data_size;
  set.range = CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = 1;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  CUPTI(c, cuptiRangeProfilerSetConfig, &set);
  CUpti_RangeProfiler_Start_Params start = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerStart, &start);
  CUpti_RangeProfiler_PushRange_Params push = {.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  push.pRangeProfilerObject = c->profiler;
  push.pRangeName = "occcalc_probe";
  CUPTI(c, cuptiRangeProfilerPushRange, &push);
  return 0;
}

int occ_counter_end(occ_counter *c, double *pct, char *why, size_t why_size) {
  CUpti_RangeProfiler_PopRange_Params pop = {.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerPopRange, &pop);
  CUpti_RangeProfiler_Stop_Params stop = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerStop, &stop);
  CUpti_RangeProfiler_DecodeData_Params decode = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = c->profiler;
  CUPTI(c, cuptiRangeProfilerDecodeData, &decode);
  const char *names[] = {metric};
  double value = 0;
  CUpti_Profiler_Host_EvaluateToGpuValues_Params eval = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  eval.pHostObject = c->host;
  eval.pCounterDataImage = c->data;
  eval.counterDataImageSize = c->data_size;
  eval.rangeIndex = 0;
  eval.ppMetricNames = names;
  eval.numMetrics = 1;
  eval.pMetricValues = &value;
  CUPTI(c, cuptiProfilerHostEvaluateToGpuValues, &eval);
  *pct = value;
  return 0;
}

void occ_counter_close(occ_counter *c) {
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
