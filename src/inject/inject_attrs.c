/* inject_attrs.c - each launch's attributes at launch time, read in the
 * driver call's callback and joined to the launch's activity record by
 * correlation id when CUPTI hands that record over (later, from its own
 * thread).
 *
 * Why the callback: CUPTI's activity record carries the carveout the
 * launch requested and the configuration the driver chose, but under the
 * Range Profiler it carries neither (measured on an H100: five carveouts
 * of one kernel merged into one row), and it never carries the maximum
 * dynamic shared memory or the cluster attributes. The function's
 * attributes at the moment of the call are what the driver launches with;
 * cuLaunchKernelEx's own launch attributes override them for that launch.
 *
 * The table is keyed by both correlation ids of a launch (the driver
 * call's and the runtime call's around it: the activity record carries
 * one of them), in SLOTS slots by id: a launch whose record comes more
 * than about SLOTS / 2 launches later finds its slot taken and is left
 * with its attributes unknown (at_launch_known 0), never another's. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "inject/inject_lib.h"

enum { SLOTS = 1 << 17 };

typedef struct launch_attrs {
  uint32_t correlation; /* 0: empty */
  int32_t known;        /* OCC_AT_LAUNCH_* bits */
  int32_t carveout_pct, max_dynamic_smem_bytes, non_portable, policy;
} launch_attrs;

static launch_attrs table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

typedef CUresult (*func_attribute_fn)(int *, CUfunction_attribute, CUfunction);
typedef CUresult (*kernel_attribute_fn)(int *, CUfunction_attribute, CUkernel,
                                        CUdevice);
typedef CUresult (*ctx_device_fn)(CUdevice *);

static func_attribute_fn func_attribute;
static kernel_attribute_fn kernel_attribute;
static ctx_device_fn ctx_device;

static void look_up(void) {
  *(void **)&func_attribute = occ_inject_driver_symbol("cuFuncGetAttribute");
  *(void **)&kernel_attribute =
      occ_inject_driver_symbol("cuKernelGetAttribute");
  *(void **)&ctx_device = occ_inject_driver_symbol("cuCtxGetDevice");
}

/* Where a launch's function's attributes are read: the CUfunction the
 * call passed, or (the runtime of CUDA 12 and later launches its
 * context-independent CUkernel, cast to a CUfunction, which
 * cuFuncGetAttribute may refuse) that CUkernel's attributes on the
 * calling context's device, which cudaFuncSetAttribute sets. */
typedef struct function_handle {
  CUfunction f;
  bool as_kernel;
  CUdevice device;
} function_handle;

static CUresult get_attribute(const function_handle *h, CUfunction_attribute a,
                              int *v) {
  if (!h->as_kernel)
    return func_attribute(v, a, h->f);
  return kernel_attribute(v, a, (CUkernel)(void *)h->f, h->device);
}

/* The function a launch call launches: the first member of the
 * parameters of cuLaunchKernel, its cooperative and _ptsz forms, cuLaunch
 * and cuLaunchGrid; cuLaunchKernelEx's follows its configuration. */
typedef struct {
  CUfunction f;
} leading_function;
_Static_assert(offsetof(cuLaunchKernel_params, f) == 0 &&
                   offsetof(cuLaunchKernel_ptsz_params, f) == 0 &&
                   offsetof(cuLaunchCooperativeKernel_params, f) == 0 &&
                   offsetof(cuLaunchCooperativeKernel_ptsz_params, f) == 0 &&
                   offsetof(cuLaunch_params, f) == 0 &&
                   offsetof(cuLaunchGrid_params, f) == 0 &&
                   offsetof(cuLaunchGridAsync_params, f) == 0,
               "the launch calls' parameters begin with the function");

static bool is_launch_ex(CUpti_CallbackId id) {
  return id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
         id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
}

static void read_function(CUfunction f, launch_attrs *a) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, look_up);
  /* Whether the last function this thread launched was a CUkernel:
   * programs launch the same few again and again, and the probe is a
   * driver call that fails. */
  static _Thread_local CUfunction last_f;
  static _Thread_local bool last_as_kernel;
  function_handle h = {f, false, 0};
  int v = 0;
  if (!f || !func_attribute)
    return;
  if (f == last_f)
    h.as_kernel = last_as_kernel;
  else
    h.as_kernel = func_attribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                 f) != CUDA_SUCCESS;
  last_f = f;
  last_as_kernel = h.as_kernel;
  if (h.as_kernel && (!kernel_attribute || !ctx_device ||
                      ctx_device(&h.device) != CUDA_SUCCESS))
    return;
  const struct {
    CUfunction_attribute attribute;
    int bit, lo, hi;
    int32_t *to;
  } reads[] = {{CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                OCC_AT_LAUNCH_CARVEOUT, -1, 100, &a->carveout_pct},
               {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                OCC_AT_LAUNCH_MAX_DYNAMIC_SMEM, 0, OCC_RECORD_SIZE_MAX,
                &a->max_dynamic_smem_bytes},
               {CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                OCC_AT_LAUNCH_NON_PORTABLE, 0, 1, &a->non_portable},
               {CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                OCC_AT_LAUNCH_POLICY, 0, OCC_CLUSTER_POLICY_LOAD_BALANCING,
                &a->policy}};
  /* A value out of the attribute's range stays unknown: the reader
   * (records.c) would refuse the whole record for it. */
  for (size_t i = 0; i < sizeof reads / sizeof *reads; i++)
    if (get_attribute(&h, reads[i].attribute, &v) == CUDA_SUCCESS &&
        v >= reads[i].lo && v <= reads[i].hi) {
      *reads[i].to = v;
      a->known |= reads[i].bit;
    }
}

/* cuLaunchKernelEx's launch attributes, which win over the function's. */
static void read_launch_config(const CUlaunchConfig *lc, launch_attrs *a) {
  for (unsigned i = 0; lc && lc->attrs && i < lc->numAttrs; i++) {
    const CUlaunchAttribute *at = &lc->attrs[i];
    if (at->id == CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT &&
        at->value.sharedMemCarveout <= 100) {
      a->carveout_pct = (int32_t)at->value.sharedMemCarveout;
      a->known |= OCC_AT_LAUNCH_CARVEOUT;
    } else if (at->id ==
                   CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE &&
               (unsigned)at->value.clusterSchedulingPolicyPreference <=
                   OCC_CLUSTER_POLICY_LOAD_BALANCING) {
      a->policy = (int32_t)at->value.clusterSchedulingPolicyPreference;
      a->known |= OCC_AT_LAUNCH_POLICY;
    }
  }
}

static void put(uint32_t correlation, const launch_attrs *a) {
  if (!correlation)
    return;
  launch_attrs *slot = &table[correlation % SLOTS];
  *slot = *a;
  slot->correlation = correlation;
}

void occ_inject_attrs_note(CUpti_CallbackId id, const void *params,
                           uint32_t driver_correlation,
                           uint32_t runtime_correlation) {
  if (!params || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
      id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz)
    return;
  launch_attrs a = {0};
  const cuLaunchKernelEx_params *ex = params;
  read_function(
      is_launch_ex(id) ? ex->f : ((const leading_function *)params)->f, &a);
  if (is_launch_ex(id))
    read_launch_config(ex->config, &a);
  if (!a.known)
    return;
  pthread_mutex_lock(&table_lock);
  put(driver_correlation, &a);
  put(runtime_correlation, &a);
  pthread_mutex_unlock(&table_lock);
}

void occ_inject_attrs_fill(occ_launch_record *r) {
  uint32_t id = r->correlation;
  if (!id)
    return;
  pthread_mutex_lock(&table_lock);
  launch_attrs a = table[id % SLOTS];
  pthread_mutex_unlock(&table_lock);
  if (a.correlation != id)
    return;
  r->at_launch_known = a.known;
  r->carveout_preferred_pct =
      a.known & OCC_AT_LAUNCH_CARVEOUT ? a.carveout_pct : 0;
  r->max_dynamic_smem_bytes = a.max_dynamic_smem_bytes;
  r->cluster_non_portable = a.non_portable;
  r->cluster_policy = a.policy;
  if (a.known & OCC_AT_LAUNCH_CARVEOUT)
    r->carveout_requested_pct = a.carveout_pct;
}
