/* fake_cupti.c - a stand-in for a CUPTI library, for libocc_preload.so's
 * tests (cpu_test.sh): cuptiSubscribe and cuptiSubscribe_v2 answer
 * VERDICT (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED for the
 * program's CUPTI, CUPTI_SUCCESS for another in the global scope, as the
 * injection library's is); FAKE_CUPTI_ACCEPT=1 makes every one answer
 * CUPTI_SUCCESS. A refusal through cuptiSubscribe_v2 names the holder,
 * as CUPTI does. */
#include <cupti_callbacks.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef VERDICT
#error "VERDICT: the CUptiResult to answer"
#endif

static CUptiResult verdict(void) {
  const char *accept = getenv("FAKE_CUPTI_ACCEPT");
  return accept && *accept == '1' ? CUPTI_SUCCESS : (CUptiResult)VERDICT;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber,
                           CUpti_CallbackFunc callback, void *userdata) {
  (void)subscriber, (void)callback, (void)userdata;
  return verdict();
}

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
                              CUpti_CallbackFunc callback, void *userdata,
                              CUpti_SubscriberParams *params) {
  (void)subscriber, (void)callback, (void)userdata;
  CUptiResult r = verdict();
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED && params &&
      params->oldSubscriberName)
    snprintf(params->oldSubscriberName, params->oldSubscriberSize,
             "CUPTI for a fake profiler");
  return r;
}
