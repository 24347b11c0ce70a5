/* run_cluster.h - what `occcalc run` says of a cluster launch's row: the
 * model's cluster section (model/cluster.h), in the row's text and JSON. */
#ifndef OCC_RUN_CLUSTER_H
#define OCC_RUN_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "render/json_write.h"

/* The row's cluster line ("cluster 2: 528 clusters at once ...") into
 * buf; false (nothing written) for a launch without clusters. */
bool occ_run_cluster_line(const occ_item *item, char *buf, size_t size);

/* The row's "cluster_launch" object: the report's cluster object
 * (occ_json_cluster) and launch__cluster_max_active, Nsight Compute's
 * name for max_active_clusters; null for a launch without clusters. The
 * caller owns it. */
cJSON *occ_run_cluster_json(const occ_item *item);

/* The limiter words of the row's theoretical occupancy: "cluster" when
 * clusters lower it, else the API's limiters. */
const char *occ_run_limiters_words(const occ_item *item, char *buf,
                                   size_t size);

#endif
