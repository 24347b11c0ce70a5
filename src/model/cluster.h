/* cluster.h - the model's cluster section: an item launched in thread
 * block clusters (--cluster, or a run's cluster launch), computed once
 * from its result by the core's rule (core/cluster.h). */
#ifndef OCC_MODEL_CLUSTER_H
#define OCC_MODEL_CLUSTER_H

#include <stdint.h>

#include "model/model.h"

/* Fills item->cluster, cluster_result and, with grid_blocks > 0 (a whole
 * number of clusters) and a known layout, cluster_waves; item->result is
 * computed. Returns OCC_OK, or OCC_ERR_INVALID_DEVICE when the core
 * refuses the cluster on item's device (the caller checks first with
 * occ_cluster_check to say why). */
occ_status occ_model_cluster(occ_item *item, const occ_cluster *cluster,
                             int64_t grid_blocks);

/* Sets ncu's launch__cluster_max_active from the cluster section: known
 * where the item is a cluster launch with a known layout. */
void occ_model_cluster_ncu(occ_item *item);

#endif
