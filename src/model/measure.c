/* measure.c - what the model derives from a run's measurements (see
 * measure.h). */
#include "model/measure.h"

#include "model/cluster.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Achieved occupancy this far below theoretical gets a likely cause. */
#define CAUSE_GAP 0.10
/* A kernel shorter than this spends a large part of its time with SMs
 * still receiving their first blocks or already draining. */
#define RAMP_UP_US 10.0

/* Occupancy with the SM's shared memory as the driver configured it for
 * the launch (sharedMemoryExecuted): the device with that one
 * configuration. A kernel without shared memory of its own is not limited
 * by it, nor is a record without the value. A cluster launch's is the
 * cluster rule's over what the SM then holds (model/cluster.h). */
static double launch_occupancy(const occ_item *item, int64_t executed) {
  const occ_kernel *k = &item->kernel;
  int blocks = item->result.launch_active_blocks_per_sm;
  occ_device configured = *item->device;
  configured.smem_config_count = 1;
  configured.smem_configs_bytes[0] = executed;
  configured.smem_per_sm_bytes = executed;
  occ_kernel fixed = *k;
  fixed.carveout_pct = OCC_CARVEOUT_DEFAULT;
  occ_result r;
  if (executed > 0 && k->smem_static_bytes + k->smem_dynamic_bytes > 0 &&
      occ_compute(&configured, &fixed, &r) == OCC_OK)
    blocks = r.active_blocks_per_sm;
  return occ_model_occupancy_at(item, blocks);
}

static void add_cause(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_cause(char *buf, size_t size, const char *fmt, ...) {
  size_t n = strlen(buf);
  if (n && n + 2 < size) n += (size_t)snprintf(buf + n, size - n, "; ");
  va_list ap;
  va_start(ap, fmt);
  if (n < size) vsnprintf(buf + n, size - n, fmt, ap);
  va_end(ap);
}

/* Why achieved falls short of theoretical, from the item's own numbers. */
/* A cluster launch's waves, counted in clusters: true when it said why. */
static bool cluster_wave_cause(const occ_item *item, occ_measure *m) {
  const occ_cluster_waves *w = &item->cluster_waves;
  if (!item->has_cluster_waves || w->clusters_per_wave <= 0) return false;
  if (w->waves < 1)
    add_cause(m->cause, sizeof m->cause, "the grid fills %.0f%% of one wave "
              "of %lld clusters", 100 * w->waves,
              (long long)w->clusters_per_wave);
  else if (w->tail_clusters && w->full_waves < 4)
    add_cause(m->cause, sizeof m->cause, "a partial last wave (%.2f waves "
              "of clusters, the last %.0f%% full)", w->waves,
              100.0 * (double)w->tail_clusters / (double)w->clusters_per_wave);
  return true;
}

static void likely_cause(const occ_item *item, occ_measure *m) {
  /* Against what the launch can reach: the cluster rule's occupancy for
   * a cluster launch (model/cluster.h). */
  if (!m->achieved_known || occ_model_occupancy(item) - m->achieved <= CAUSE_GAP)
    return;
  const occ_waves *w = &item->waves;
  int sms = item->device->sm_count;
  char *c = m->cause;
  size_t size = sizeof m->cause;
  if (cluster_wave_cause(item, m))
    ; /* the waves of a cluster launch are counted in clusters */
  else if (w->grid_blocks < sms)
    add_cause(c, size, "fewer blocks (%lld) than SMs (%d)",
              (long long)w->grid_blocks, sms);
  else if (w->waves < 1)
    add_cause(c, size, "the grid fills %.0f%% of one wave",
              100 * w->waves);
  else if (w->tail_blocks && w->full_waves < 4)
    add_cause(c, size, "a partial last wave (%.2f waves, the last %.0f%% "
              "full)", w->waves,
              100.0 * (double)w->tail_blocks / (double)w->blocks_per_wave);
  if (m->mean_us < RAMP_UP_US)
    add_cause(c, size, "the kernel (%.1f us) is shorter than the ramp-up",
              m->mean_us);
  if (!c[0])
    add_cause(c, size, "imbalance: SMs or warps finish at different times");
}

/* Not recorded (CUPTI's record of a profiled launch lacks it): the
 * driver's rule, which at-launch occupancy already follows. */
static void predict_config(const occ_item *item, occ_measure *m) {
  const occ_result *r = &item->result;
  if (m->smem_executed_bytes != 0 || r->launch_smem_config_bytes <= 0 ||
      !occ_launch_config_known(r))
    return;
  m->smem_executed_bytes = (int32_t)r->launch_smem_config_bytes;
  m->smem_config_predicted = true;
}

void occ_measure_derive(const occ_item *item, occ_measure *m) {
  m->cause[0] = '\0';
  m->smem_config_predicted = false;
  if (!item->device) return;
  m->launch_occupancy = launch_occupancy(item, m->smem_executed_bytes);
  predict_config(item, m);
  likely_cause(item, m);
}

void occ_measure_from_samples(occ_measure *m,
                              const occ_sampled_launch *const *launches,
                              size_t count) {
  size_t bases[OCC_BASIS_CLEAN + 1] = {0}, misses[OCC_MISS_KINDS] = {0};
  double weighted = 0, time = 0;
  m->counter_launch_count = m->clean_launch_count = 0;
  for (size_t i = 0; i < count; i++) {
    const occ_sampled_launch *l = launches[i];
    if (!l) continue;
    if (!l->known) {
      misses[l->miss]++;
      continue;
    }
    double ns = (double)(l->end_ns - l->start_ns);
    m->counter_launch_count++;
    bases[l->basis]++;
    weighted += ns * l->achieved;
    time += ns;
  }
  m->clean_launch_count = bases[OCC_BASIS_CLEAN];
  m->achieved_known = m->counter_launch_count > 0 && time > 0;
  m->achieved = m->achieved_known ? weighted / time : 0;
  int worst = 0;
  for (int b = 1; b < OCC_BASIS_CLEAN; b++)
    if (bases[b] > bases[worst]) worst = b;
  m->basis_why = bases[worst] ? occ_basis_words((occ_basis)worst) : NULL;
  int miss = 0;
  for (int k = 1; k < OCC_MISS_KINDS; k++)
    if (misses[k] > misses[miss]) miss = k;
  m->achieved_why = m->achieved_known || !misses[miss]
                        ? NULL : occ_sample_miss_words((occ_sample_miss)miss);
}
