/* report_rows.c - the rows of the report's occupancy figures (see
 * report_rows.h). */
#include "render/report_rows.h"

#include <stdint.h>
#include <stdio.h>

#include "render/vocab.h"

/* A row's value, and the text after it in *unit. */
typedef double getter(const occ_report *rep, char *unit, size_t size);

const occ_cluster_result *occ_report_cluster_launch(const occ_report *rep) {
  const occ_cluster_result *c = rep->cluster_result;
  return c && c->layout_known && rep->device->sm_count > 0 ? c : NULL;
}

/* The launch's blocks per SM: a cluster launch's blocks at once over the
 * SMs (an average where domains leave SMs without a cluster). */
static double blocks_per_sm(const occ_report *rep, bool clusters) {
  const occ_cluster_result *c = clusters ? occ_report_cluster_launch(rep) : NULL;
  return c ? (double)c->active_blocks / rep->device->sm_count
           : rep->result->active_blocks_per_sm;
}

static double active_blocks(const occ_report *rep, char *unit, size_t size) {
  double v = blocks_per_sm(rep, true);
  snprintf(unit, size, "per SM%s", v != (double)(int64_t)v ? " (on average)" : "");
  return v;
}

static double active_warps(const occ_report *rep, char *unit, size_t size) {
  snprintf(unit, size, "of %d", rep->result->max_warps_per_sm);
  return blocks_per_sm(rep, true) * rep->result->warps_per_block;
}

static double active_threads(const occ_report *rep, char *unit, size_t size) {
  snprintf(unit, size, "of %d", rep->device->max_threads_per_sm);
  return blocks_per_sm(rep, true) * rep->result->threads_per_block;
}

static double max_warps(const occ_report *rep, char *unit, size_t size) {
  (void)unit;
  (void)size;
  return rep->result->max_warps_per_sm;
}

static double occupancy(const occ_report *rep, char *unit, size_t size) {
  char limiters[96];
  const occ_cluster_result *c = occ_report_cluster_launch(rep);
  if (c && c->limited_by_cluster)
    snprintf(unit, size, "%% (limited by cluster)");
  else
    snprintf(unit, size, "%% (limited by %s)",
             occ_limiters_words(rep->result->limited_by, limiters,
                                sizeof limiters));
  return c ? c->occupancy : rep->result->occupancy;
}

static const struct {
  const char *key, *label;
  bool fraction;
  getter *get;
} rows[OCC_OCCUPANCY_ROW_COUNT] = {
    {"active_blocks_per_sm", "active blocks", false, active_blocks},
    {"active_warps_per_sm", "active warps", false, active_warps},
    {"active_threads_per_sm", "active threads", false, active_threads},
    {"max_warps_per_sm", NULL, false, max_warps},
    {"occupancy", "occupancy", true, occupancy},
};

void occ_occupancy_rows(const occ_report *rep,
                        occ_report_value values[OCC_OCCUPANCY_ROW_COUNT]) {
  for (int i = 0; i < OCC_OCCUPANCY_ROW_COUNT; i++) {
    occ_report_value *v = &values[i];
    *v = (occ_report_value){.key = rows[i].key, .label = rows[i].label,
                            .fraction = rows[i].fraction};
    v->value = rows[i].get(rep, v->unit, sizeof v->unit);
  }
}

occ_at_launch occ_report_at_launch(const occ_report *rep, bool clusters) {
  const occ_result *r = rep->result;
  const occ_cluster_result *c = clusters ? occ_report_cluster_launch(rep) : NULL;
  occ_at_launch a = {0};
  if (c) {
    const occ_cluster_result *l =
        rep->launch_cluster_result ? rep->launch_cluster_result : c;
    a.active_blocks_per_sm = (double)l->active_blocks / rep->device->sm_count;
    a.occupancy = l->occupancy;
    a.max_active_clusters = l->max_active_clusters;
    a.clusters_known = true;
    a.differs_from_api = l->active_blocks != c->active_blocks;
  } else {
    a.active_blocks_per_sm = r->launch_active_blocks_per_sm;
    a.occupancy = occ_launch_occupancy(r);
    a.differs_from_api = r->launch_active_blocks_per_sm != r->active_blocks_per_sm;
  }
  a.active_warps_per_sm = a.active_blocks_per_sm * r->warps_per_block;
  return a;
}
