/* run_samples.c - run's samples joined to its launches (see
 * run_samples.h). */
#include "model/run_samples.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether two launches are of one kernel and configuration on one
 * device: the launches whose samples pool into one rate (attribute.h). */
static int by_kernel(const occ_launch_record *x, const occ_launch_record *y) {
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  int c = strncmp(x->name, y->name, sizeof x->name);
  if (c) return c;
  c = memcmp(x->grid, y->grid, sizeof x->grid);
  if (c) return c;
  c = memcmp(x->block, y->block, sizeof x->block);
  if (c) return c;
  c = memcmp(x->cluster, y->cluster, sizeof x->cluster);
  if (c) return c;
  if (x->smem_dynamic_bytes != y->smem_dynamic_bytes)
    return x->smem_dynamic_bytes < y->smem_dynamic_bytes ? -1 : 1;
  return 0;
}

static const occ_launch_record *const *sort_launches;

static int by_kernel_index(const void *x, const void *y) {
  size_t i = *(const size_t *)x, j = *(const size_t *)y;
  int c = by_kernel(sort_launches[i], sort_launches[j]);
  return c ? c : (i < j ? -1 : 1);
}

/* Numbers each launch's kernel and configuration 1..count (the same for
 * the same). Returns 0, or -1 out of memory. */
static int number_kernels(occ_sampled_launch *sampled,
                          const occ_launch_record *const *launches,
                          size_t count) {
  size_t *order = malloc((count + 1) * sizeof *order);
  if (!order) return -1;
  for (size_t i = 0; i < count; i++) order[i] = i;
  sort_launches = launches;
  qsort(order, count, sizeof *order, by_kernel_index);
  size_t kernel = 0;
  for (size_t i = 0; i < count; i++) {
    if (i == 0 || by_kernel(launches[order[i - 1]], launches[order[i]]))
      kernel++;
    sampled[order[i]].kernel = kernel;
  }
  free(order);
  return 0;
}

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
  if (number_kernels(a->launches, launches, count) != 0) return -1;
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
