/* cluster_arg.h - --cluster X[xYxZ] and --non-portable: the cluster shape
 * a command line asks for, checked before any device is known (the
 * device's own rule, compute capability 9.0, and the grid's are checked
 * by occ_cluster_arg_check once it is). */
#ifndef OCC_CLUSTER_ARG_H
#define OCC_CLUSTER_ARG_H

#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"

/* Parses text ("2", "2x1", "4x2x1") into *cluster with non_portable as
 * given. Returns 0, or -1 with the reason (naming the accepted sizes) in
 * why: a dimension below 1, more than 16 blocks, or 9 to 16 blocks
 * without non_portable. */
int occ_cluster_arg_parse(const char *text, bool non_portable,
                          occ_cluster *cluster, char *why, size_t why_size);

/* Checks cluster against device (compute capability 9.0 or newer) and a
 * grid of grid_blocks blocks (0: none given), which must hold a whole
 * number of clusters. Returns 0, or -1 with the reason in why. */
int occ_cluster_arg_check(const occ_cluster *cluster, const occ_device *device,
                          int64_t grid_blocks, char *why, size_t why_size);

#endif
