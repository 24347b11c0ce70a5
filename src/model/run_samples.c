/* run_samples.c - run's samples joined to its launches (see
 * run_samples.h). */
#include "model/run_samples.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/run_rows.h"

int occ_run_attribution_start(occ_run_attribution *a,
                              const occ_launch_record *const *launches,
                              size_t count) {
  a->launches = calloc(count + 1, sizeof *a->launches);
  if (!a->launches) return -1;
  for (size_t i = 0; i < count; i++) {
    const occ_launch_record *l = launches[i];
    a->launches[i] = (occ_sampled_launch){.device = l->device,
                                          .pid = l->pid,
                                          .stream = l->stream,
                                          .start_ns = l->start_ns,
                                          .end_ns = l->end_ns};
  }
  if (occ_run_number_kernels(launches, count, a->launches) != 0) return -1;
  return occ_attr_init(&a->attribution, a->launches, count);
}

void occ_run_attribution_add(const occ_pm_sample *sample, void *context) {
  occ_run_attribution *a = context;
  occ_attr_add(&a->attribution, sample);
}

/* The devices as sampled, by ordinal; an ordinal outside the table is
 * left out (never sampled). */
static void devices_of(const occ_sampler_status *st,
                       occ_sampled_device devices[OCC_SAMPLER_DEVICES_MAX]) {
  for (int i = 0; i < st->device_count; i++) {
    const occ_sampler_device *d = &st->devices[i];
    if (d->ordinal < 0 || d->ordinal >= OCC_SAMPLER_DEVICES_MAX) continue;
    devices[d->ordinal] =
        (occ_sampled_device){.sampled = d->state == OCC_SAMPLER_ON,
                             .max_warps_per_sm = d->max_warps_per_sm,
                             .interval_ns = d->interval_ns,
                             .first_ns = d->first_ns,
                             .last_ns = d->last_ns};
  }
}

int occ_run_attribution_finish(occ_run_attribution *a,
                               const occ_sampler_status *status) {
  occ_sampled_device devices[OCC_SAMPLER_DEVICES_MAX] = {{0}};
  devices_of(status, devices);
  int rc = occ_attr_finish(&a->attribution, devices, OCC_SAMPLER_DEVICES_MAX);
  occ_attr_free(&a->attribution);
  return rc;
}

bool occ_run_unsampled_why(const occ_sampler_status *status, char *why,
                           size_t why_size) {
  for (int i = 0; i < status->device_count; i++) {
    const occ_sampler_device *d = &status->devices[i];
    if (d->state == OCC_SAMPLER_ON || d->state == OCC_SAMPLER_OFF) continue;
    snprintf(why, why_size, "GPU %d not sampled: %s", d->ordinal, d->why);
    return true;
  }
  return false;
}
