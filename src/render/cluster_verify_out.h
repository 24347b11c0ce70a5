/* cluster_verify_out.h - a cluster launch verified on the GPU
 * (occ_verify_cluster): the prediction, cudart's
 * cudaOccupancyMaxActiveClusters, the clusters measured co-resident and how
 * their blocks were placed; and verify --sweep's cluster cases. Text and
 * JSON; nothing computed. */
#ifndef OCC_CLUSTER_VERIFY_OUT_H
#define OCC_CLUSTER_VERIFY_OUT_H

#include <stdio.h>

#include "model/verify.h"
#include "render/json_write.h"

/* The "Cluster launch on the GPU" section of --device N --cluster C. */
void occ_print_cluster_verify(FILE *out, const occ_cluster_verify *v);

/* The "cluster_verify" object; the caller owns it (NULL: out of memory). */
cJSON *occ_json_cluster_verify(const occ_cluster_verify *v);

/* One line for a cluster case of a sweep that disagrees. */
void occ_print_cluster_sweep_case(FILE *out, int index,
                                  const occ_cluster_verify *v);

/* The sweep summary's cluster lines (nothing when no cluster case ran). */
void occ_print_cluster_sweep_summary(FILE *out,
                                     const occ_cluster_sweep_summary *s);

/* The sweep document's cluster.summary object; the caller owns it. */
cJSON *occ_json_cluster_sweep_summary(const occ_cluster_sweep_summary *s);

#endif
