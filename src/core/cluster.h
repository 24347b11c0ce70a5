/* cluster.h - occupancy under a thread block cluster launch (CC 9.0+).
 *
 * Pure computation, no I/O. The rule, measured with make cluster-survey on
 * the H100 and the H200 (tests/survey/h{100,200}-cluster-*.csv, reproduced
 * row for row by tests/cluster/cluster_rule.c):
 *   - an SM holds at most device->cluster_max_blocks_per_sm blocks of a
 *     cluster launch (8 on both boards), so B = min(the kernel's blocks per
 *     SM by the occupancy API's rule, that cap);
 *   - a cluster's C blocks run inside one scheduling domain, on C distinct
 *     SMs; a domain of n SMs holds floor(n x B / C) clusters when C <= n,
 *     none otherwise;
 *   - the clusters active at once on the GPU (what
 *     cudaOccupancyMaxActiveClusters answers) are the sum over domains.
 * The domains are uneven (18 18 16 16 16 16 16 8 2 2 2 2 SMs on the
 * H100 SXM and the H200), so the answer is not SMs x B / C.
 */
#ifndef OCC_CLUSTER_H
#define OCC_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/occ.h"

/* Sizes (x * y * z) up to 8 are portable; 9..16 need the kernel attribute
 * cudaFuncAttributeNonPortableClusterSizeAllowed, asked for explicitly. */
#define OCC_CLUSTER_PORTABLE_MAX 8
#define OCC_CLUSTER_NON_PORTABLE_MAX 16

typedef struct occ_cluster {
  int dim[3];        /* blocks per cluster in x, y, z (each >= 1) */
  bool non_portable; /* sizes above OCC_CLUSTER_PORTABLE_MAX allowed */
} occ_cluster;

typedef enum occ_cluster_status {
  OCC_CLUSTER_OK = 0,
  OCC_CLUSTER_ERR_DIM,          /* a dimension below 1 */
  OCC_CLUSTER_ERR_NON_PORTABLE, /* 9..16 blocks without non_portable */
  OCC_CLUSTER_ERR_TOO_LARGE,    /* more than 16 blocks */
  OCC_CLUSTER_ERR_ARCH,         /* compute capability below 9.0 */
  OCC_CLUSTER_ERR_LAYOUT,       /* the device's domains do not add up to
                                   its SMs, or a field is out of range */
  OCC_CLUSTER_ERR_GRID          /* a grid dimension not a multiple of the
                                   cluster's, or a grid below 1 */
} occ_cluster_status;

/* A static one-line description of a status (names the accepted range). */
const char *occ_cluster_strerror(occ_cluster_status status);

/* Blocks per cluster (x * y * z), in 64 bits. */
static inline int64_t occ_cluster_size(const occ_cluster *cluster) {
  return (int64_t)cluster->dim[0] * cluster->dim[1] * cluster->dim[2];
}

/* Checks a cluster shape against the device's architecture. (This check
 * and the grid's below are inline predicates over plain data: the option
 * parser asks them without a call into the calculator.) */
static inline occ_cluster_status occ_cluster_check(const occ_device *device,
                                                   const occ_cluster *cluster) {
  for (int i = 0; i < 3; i++)
    if (cluster->dim[i] < 1) return OCC_CLUSTER_ERR_DIM;
  int64_t size = occ_cluster_size(cluster);
  if (size > OCC_CLUSTER_NON_PORTABLE_MAX) return OCC_CLUSTER_ERR_TOO_LARGE;
  if (size > OCC_CLUSTER_PORTABLE_MAX && !cluster->non_portable)
    return OCC_CLUSTER_ERR_NON_PORTABLE;
  if (device->cc_major < 9) return OCC_CLUSTER_ERR_ARCH;
  return OCC_CLUSTER_OK;
}

typedef struct occ_cluster_result {
  int cluster_size;          /* blocks per cluster */
  int blocks_per_sm;         /* the kernel's without clusters (the API's
                                rule: occ_result.active_blocks_per_sm) */
  /* False when the device has no measured layout (a board never
   * surveyed, or a bare architecture): every field below is unknown and
   * unknown_reason says why. */
  bool layout_known;
  const char *unknown_reason;
  int cluster_blocks_per_sm; /* at most this many per SM under the launch */
  int domain_count;
  int domain_sms[OCC_CLUSTER_DOMAINS_MAX];      /* the device's layout */
  int64_t domain_clusters[OCC_CLUSTER_DOMAINS_MAX]; /* each domain's share */
  int domains_fitting;       /* domains of at least cluster_size SMs */
  int64_t max_active_clusters; /* cudaOccupancyMaxActiveClusters */
  int64_t active_blocks;     /* max_active_clusters x cluster_size */
  int64_t blocks_without_clusters; /* blocks_per_sm x SMs */
  /* Clusters lower the GPU's resident blocks below blocks_without_clusters
   * (the per-SM cap, or SMs a domain cannot fill): limiter "cluster". */
  bool limited_by_cluster;
  double occupancy;          /* active_blocks x warps per block over
                                SMs x max warps per SM, 0..1 */
} occ_cluster_result;

/* True when the device's layout is consistent: 1..OCC_CLUSTER_DOMAINS_MAX
 * domains of at least one SM each, adding up to its SMs, and a per-SM cap
 * of 1..OCC_DEV_BLOCKS_PER_SM_MAX. (No layout at all is valid too, as
 * unknown; this checks one that is given.) */
bool occ_cluster_layout_valid(const occ_device *device);

/* The clusters of cluster_size blocks that a layout of domain_count
 * domains of domain_sms[i] SMs holds at blocks_per_sm blocks per SM (the
 * cap already applied); each domain's share in domain_clusters when not
 * NULL. Any size, so that the survey's sizes above 16 (which the API
 * answers too) are reproduced. */
int64_t occ_cluster_max_active(const int *domain_sms, int domain_count,
                               int blocks_per_sm, int cluster_size,
                               int64_t *domain_clusters);

/* Occupancy under a cluster launch of kernel's result r (from occ_compute
 * on device). Returns OCC_CLUSTER_OK and fills *out (layout_known false
 * with a reason when the device has no layout), or an error. */
occ_cluster_status occ_cluster_compute(const occ_device *device,
                                       const occ_result *r,
                                       const occ_cluster *cluster,
                                       occ_cluster_result *out);

/* Grid waves counted in clusters. */
typedef struct occ_cluster_waves {
  int64_t grid_clusters;
  int64_t clusters_per_wave; /* max_active_clusters */
  int64_t full_waves;
  int64_t tail_clusters;     /* clusters of the last, partial wave */
  double waves;              /* grid_clusters / clusters_per_wave */
} occ_cluster_waves;

/* Clusters in a grid of grid[3] blocks: OCC_CLUSTER_ERR_GRID unless each
 * grid dimension is at least 1 and a multiple of the cluster's. */
static inline occ_cluster_status occ_cluster_grid_clusters(
    const int64_t grid[3], const occ_cluster *cluster, int64_t *clusters) {
  int64_t n = 1;
  for (int i = 0; i < 3; i++) {
    if (cluster->dim[i] < 1 || grid[i] < 1 || grid[i] % cluster->dim[i] != 0)
      return OCC_CLUSTER_ERR_GRID;
    n *= grid[i] / cluster->dim[i];
  }
  *clusters = n;
  return OCC_CLUSTER_OK;
}

/* Fills *waves for grid_clusters clusters; clusters_per_wave and waves are
 * 0 when the layout is unknown or no cluster fits (check layout_known and
 * max_active_clusters before reporting them). */
void occ_cluster_waves_compute(const occ_cluster_result *r,
                               int64_t grid_clusters, occ_cluster_waves *waves);

#endif
