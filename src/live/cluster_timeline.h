/* cluster_timeline.h - co-resident thread block clusters and their
 * placement from the probe's timeline (timeline.h's records) of a cluster
 * launch. Pure computation. */
#ifndef OCC_CLUSTER_TIMELINE_H
#define OCC_CLUSTER_TIMELINE_H

#include <stdint.h>

#include "core/occ.h"
#include "live/timeline.h"

typedef struct occ_cluster_residency {
  /* The most clusters with every block resident at one time: a cluster
   * counts from its last block's start to its first block's end. (From
   * first start to last end would over-count: a block of the next cluster
   * may start on an SM that one block of this one has left while its
   * others still run; seen on the H100.) */
  int peak_clusters;
  int64_t clusters_sharing_sm; /* clusters with two blocks on one SM */
  /* Groups of SMs joined by clusters (two SMs that held blocks of one
   * cluster are in one group, transitively): the scheduling domains used,
   * as far as the launch shows them. -1 for clusters of one block, which
   * join nothing. Their SM counts, largest first, in group_sms (the first
   * OCC_CLUSTER_DOMAINS_MAX). */
  int groups;
  int group_sms[OCC_CLUSTER_DOMAINS_MAX];
} occ_cluster_residency;

/* Records n (a whole number of clusters) of a one-dimensional grid
 * launched with clusters of cluster_size blocks along x: block b is in
 * cluster b / cluster_size. Returns OCC_TIMELINE_NO_RECORD with the block
 * in *bad when one has no end (or ends before it starts). */
occ_timeline_status occ_cluster_residency_compute(const occ_probe_record *records,
                                                  int64_t n, int cluster_size,
                                                  occ_cluster_residency *out,
                                                  int64_t *bad);

#endif
