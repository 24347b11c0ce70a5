/* preload.c - libocc_preload.so, which `occcalc run` preloads into the
 * program (LD_PRELOAD) beside the injection library. CUPTI takes one
 * subscriber per process, and the injection library's comes first, so a
 * profiler inside the program (torch.profiler and Kineto, Nsight's
 * injections) is refused with CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
 * and loses its GPU activity, saying so at most on the program's stderr.
 * This library stands before CUPTI's cuptiSubscribe and cuptiSubscribe_v2
 * in the program's symbol lookup, passes each call on unchanged, and when
 * one is refused appends a record saying so to the records' file
 * (model/launch_record.h), so that the report can say it too.
 *
 * It exports those two functions and nothing else, links nothing but the
 * C library, and does nothing until the program calls them. The
 * injection library calls CUPTI through its own handle (live/dl.c), not
 * through this. */
#define _GNU_SOURCE
#include <cupti_callbacks.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/launch_record.h"

#define EXPORT __attribute__((visibility("default")))

typedef CUptiResult subscribe_fn(CUpti_SubscriberHandle *, CUpti_CallbackFunc,
                                 void *);
typedef CUptiResult subscribe_v2_fn(CUpti_SubscriberHandle *,
                                    CUpti_CallbackFunc, void *,
                                    CUpti_SubscriberParams *);

/* The function the caller would have reached without this library, as
 * the dynamic linker looks it up: the global scope after this library
 * (RTLD_NEXT), then the caller's own object and its dependencies (a
 * library loaded with RTLD_LOCAL, as Python loads extension modules,
 * keeps its CUPTI out of the global scope). */
static void *next_of(const char *name, const void *self, const void *caller) {
  void *f = dlsym(RTLD_NEXT, name);
  if (f && f != self) return f;
  Dl_info info;
  if (!caller || !dladdr(caller, &info) || !info.dli_fname) return NULL;
  void *object = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!object) return NULL;
  f = dlsym(object, name);
  dlclose(object);
  return f != self ? f : NULL;
}

/* One record a process (a profiler that retries is refused each time):
 * the process that told, so that a child forked after it tells too. */
static atomic_int told;

static void tell(const char *call, const char *holder) {
  int self = (int)getpid();
  if (atomic_exchange(&told, self) == self) return;
  const char *path = getenv(OCC_ENV_OUT);
  if (!path || !*path) return;
  char block[OCC_RECORD_BYTES] = {0};
  occ_launch_record *r = (occ_launch_record *)block;
  occ_record_start(r, OCC_RECORD_CLIENT_REFUSED, (int32_t)self);
  snprintf(r->name, sizeof r->name, "%s", call);
  bool named = holder && *holder;
  snprintf(r->why, sizeof r->why,
           "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED%s%s",
           named ? "; held by " : "", named ? holder : "");
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  /* One write under PIPE_BUF with O_APPEND, as the injection's records. */
  ssize_t n = write(fd, block, sizeof block);
  (void)n;
  close(fd);
}

/* The first version's call for caller, told as `call` where refused. */
static CUptiResult subscribe_first(const char *call, const void *caller,
                                   CUpti_SubscriberHandle *subscriber,
                                   CUpti_CallbackFunc callback,
                                   void *userdata) {
  subscribe_fn *next = (subscribe_fn *)next_of(
      "cuptiSubscribe", (const void *)cuptiSubscribe, caller);
  if (!next) return CUPTI_ERROR_NOT_INITIALIZED;
  CUptiResult r = next(subscriber, callback, userdata);
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) tell(call, NULL);
  return r;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
                                  CUpti_CallbackFunc callback,
                                  void *userdata) {
  return subscribe_first("cuptiSubscribe", __builtin_return_address(0),
                         subscriber, callback, userdata);
}

/* Where the program's CUPTI has no cuptiSubscribe_v2 (a caller found this
 * one by name), the call is the first version's. */
EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
                                     CUpti_CallbackFunc callback,
                                     void *userdata,
                                     CUpti_SubscriberParams *params) {
  const void *caller = __builtin_return_address(0);
  subscribe_v2_fn *next = (subscribe_v2_fn *)next_of(
      "cuptiSubscribe_v2", (const void *)cuptiSubscribe_v2, caller);
  if (!next)
    return subscribe_first("cuptiSubscribe_v2", caller, subscriber, callback,
                           userdata);
  CUptiResult r = next(subscriber, callback, userdata, params);
  if (r != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) return r;
  char holder[OCC_RECORD_WHY_MAX / 2] = "";
  if (params &&
      params->structSize >= CUpti_SubscriberParams_STRUCT_SIZE &&
      params->oldSubscriberName && params->oldSubscriberSize > 0) {
    size_t n = strnlen(params->oldSubscriberName, params->oldSubscriberSize);
    if (n >= sizeof holder) n = sizeof holder - 1;
    memcpy(holder, params->oldSubscriberName, n);
    holder[n] = '\0';
  }
  tell("cuptiSubscribe_v2", holder);
  return r;
}
