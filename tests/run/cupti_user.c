/* cupti_user.c - libcupti_user.so, linked against the program's fake
 * CUPTI (fake_cupti.c) as a profiler library is against its CUPTI:
 * its calls go through its own PLT, where LD_PRELOAD can stand before
 * them. */
#include <cupti_callbacks.h>
#include <string.h>

static void on_callback(void *userdata, CUpti_CallbackDomain domain,
                        CUpti_CallbackId id, const void *data) {
  (void)userdata, (void)domain, (void)id, (void)data;
}

/* Subscribes with the first version, or with v2 (asking the holder's
 * name); returns the CUptiResult. */
int user_subscribe(int v2) {
  CUpti_SubscriberHandle sub;
  if (!v2) return (int)cuptiSubscribe(&sub, on_callback, NULL);
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN];
  CUpti_SubscriberParams params;
  memset(&params, 0, sizeof params);
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "a fake profiler";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder;
  return (int)cuptiSubscribe_v2(&sub, on_callback, NULL, &params);
}
