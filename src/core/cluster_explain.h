/* cluster_explain.h - the derivation of an occ_cluster_result as explain
 * steps (core/explain.h), in the section "Thread block clusters": the
 * cluster's size, the blocks an SM holds under the launch, each domain's
 * clusters, their sum (cudaOccupancyMaxActiveClusters), the occupancy and
 * the waves counted in clusters. Restates the result; recomputes nothing. */
#ifndef OCC_CLUSTER_EXPLAIN_H
#define OCC_CLUSTER_EXPLAIN_H

#include <stddef.h>

#include "core/cluster.h"
#include "core/explain.h"

/* The section number of the cluster steps (occ_explain_section_title). */
#define OCC_EXPLAIN_SECTION_CLUSTER 10

/* Appends the steps of r (occ_cluster_compute's for cluster on device,
 * from result) to steps[0..max-1], then, where launch (the same rule over
 * result's launch_active_blocks_per_sm; NULL: none) holds another count
 * per SM, its steps; waves NULL without a grid. Returns the number of
 * steps the derivation has (more than max: cut). */
size_t occ_explain_cluster(const occ_device *device, const occ_result *result,
                           const occ_cluster *cluster,
                           const occ_cluster_result *r,
                           const occ_cluster_result *launch,
                           const occ_cluster_waves *waves, occ_step *steps,
                           size_t max);

/* Renames, in steps[0..count-1] (occ_explain's), the figures of the
 * launch without clusters ("occupancy", "at_launch.occupancy",
 * "waves.waves") to the report's names for them in a cluster launch
 * ("without_clusters.occupancy", ...), where the plain names hold the
 * cluster launch's figures. The cluster steps name them so themselves. */
void occ_explain_name_without_clusters(occ_step *steps, size_t count);

#endif
