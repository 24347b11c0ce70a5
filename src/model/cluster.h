/* cluster.h - the model's cluster section: an item launched in thread
 * block clusters (--cluster, or a run's cluster launch), computed once
 * from its result by the core's rule (core/cluster.h). */
#ifndef OCC_MODEL_CLUSTER_H
#define OCC_MODEL_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* Fills item->cluster, cluster_result and, with grid_blocks > 0 (a whole
 * number of clusters) and a known layout, cluster_waves; item->result is
 * computed. Returns OCC_OK, or OCC_ERR_INVALID_DEVICE when the core
 * refuses the cluster on item's device (the caller checks first with
 * occ_cluster_check to say why). */
occ_status occ_model_cluster(occ_item *item, const occ_cluster *cluster,
                             int64_t grid_blocks);

/* The cluster rule (occ_cluster_compute) over r with blocks_per_sm in
 * place of the occupancy API's blocks per SM: the count the rule caps and
 * the domains share. With r->launch_active_blocks_per_sm, the clusters at
 * once under the driver's configuration (item->launch_cluster_result, and
 * the live verifier's prediction at launch). */
occ_cluster_status occ_model_cluster_at(const occ_device *device,
                                        const occ_result *r, int blocks_per_sm,
                                        const occ_cluster *cluster,
                                        occ_cluster_result *out);

/* Sets ncu's launch__cluster_max_active from the cluster section: known
 * where the item is a cluster launch with a known layout. */
void occ_model_cluster_ncu(occ_item *item);

/* The occupancy a launch of item reaches: under a cluster launch with a
 * known layout the cluster rule's (cluster_result.occupancy), else the
 * occupancy API's (result.occupancy). The one decision `run`'s rows and
 * likely causes read. */
static inline double occ_model_occupancy(const occ_item *item) {
  if (item->amd) return item->amd->result.hip_occupancy;
  return item->has_cluster && item->cluster_result.layout_known
             ? item->cluster_result.occupancy
             : item->result.occupancy;
}

/* The launch's blocks per SM: a cluster launch's (of a known layout) are
 * its blocks at once over the SMs, an average where the domains leave
 * SMs without a cluster; else the occupancy API's rule. */
static inline double occ_model_active_blocks_per_sm(const occ_item *item) {
  if (item->has_cluster && item->cluster_result.layout_known &&
      item->device->sm_count > 0)
    return (double)item->cluster_result.active_blocks / item->device->sm_count;
  return item->result.active_blocks_per_sm;
}

/* The occupancy of item's launch where the SM holds blocks_per_sm of
 * its blocks (as the driver configured it, say): for a cluster launch of
 * a known layout, the cluster rule's at that count (capped, shared over
 * the domains), else that count's warps over the SM's. */
double occ_model_occupancy_at(const occ_item *item, int blocks_per_sm);

/* True when item is a cluster launch whose clusters lower the GPU's
 * resident blocks (the limiter "cluster"). */
static inline bool occ_model_limited_by_cluster(const occ_item *item) {
  return item->has_cluster && item->cluster_result.layout_known &&
         item->cluster_result.limited_by_cluster;
}

/* The cluster of a recorded launch's dims (run's records carry no
 * attribute: a launch that ran above 8 blocks was allowed them): false
 * for a launch without clusters (dims 0, or one block). */
bool occ_model_cluster_of_dims(const int dims[3], occ_cluster *cluster);

#endif
