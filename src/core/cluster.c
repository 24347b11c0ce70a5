/* cluster.c - occupancy under a thread block cluster launch (cluster.h). */
#include "core/cluster.h"

#include <string.h>

const char *occ_cluster_strerror(occ_cluster_status status) {
  switch (status) {
  case OCC_CLUSTER_OK: return "no error";
  case OCC_CLUSTER_ERR_DIM: return "each cluster dimension must be at least 1";
  case OCC_CLUSTER_ERR_NON_PORTABLE:
    return "clusters of 9 to 16 blocks are non-portable and must be asked for "
           "as such (portable: 1 to 8 blocks)";
  case OCC_CLUSTER_ERR_TOO_LARGE:
    return "a cluster holds at most 16 blocks (1 to 8 portable, 9 to 16 "
           "non-portable)";
  case OCC_CLUSTER_ERR_ARCH:
    return "thread block clusters need compute capability 9.0 or newer";
  case OCC_CLUSTER_ERR_LAYOUT:
    return "the device's cluster domains do not add up to its SMs";
  case OCC_CLUSTER_ERR_GRID:
    return "each grid dimension must be a positive multiple of the cluster's";
  }
  return "unknown cluster error";
}

int64_t occ_cluster_max_active(const int *domain_sms, int domain_count,
                               int blocks_per_sm, int cluster_size,
                               int64_t *domain_clusters) {
  int64_t total = 0;
  for (int i = 0; i < domain_count; i++) {
    /* Distinct SMs per cluster: a domain smaller than the cluster holds
     * none; one at least as large packs its n x B block slots. */
    int64_t share = domain_sms[i] >= cluster_size
                        ? (int64_t)domain_sms[i] * blocks_per_sm / cluster_size
                        : 0;
    if (domain_clusters) domain_clusters[i] = share;
    total += share;
  }
  return total;
}

bool occ_cluster_layout_valid(const occ_device *d) {
  if (d->cluster_domain_count < 1 ||
      d->cluster_domain_count > OCC_CLUSTER_DOMAINS_MAX ||
      d->cluster_max_blocks_per_sm < 1 ||
      d->cluster_max_blocks_per_sm > OCC_DEV_BLOCKS_PER_SM_MAX)
    return false;
  int64_t sms = 0;
  for (int i = 0; i < d->cluster_domain_count; i++) {
    if (d->cluster_domain_sms[i] < 1) return false;
    sms += d->cluster_domain_sms[i];
  }
  return sms == d->sm_count;
}

occ_cluster_status occ_cluster_compute(const occ_device *device,
                                       const occ_result *r,
                                       const occ_cluster *cluster,
                                       occ_cluster_result *out) {
  occ_cluster_status status = occ_cluster_check(device, cluster);
  if (status != OCC_CLUSTER_OK) return status;
  memset(out, 0, sizeof *out);
  out->cluster_size = (int)occ_cluster_size(cluster);
  out->blocks_per_sm = r->active_blocks_per_sm;
  if (device->cluster_domain_count == 0) {
    out->unknown_reason =
        device->sm_count == 0
            ? "a bare architecture has no board, so no cluster domains"
            : "this board's cluster domains were never measured (make "
              "cluster-survey)";
    return OCC_CLUSTER_OK;
  }
  if (!occ_cluster_layout_valid(device)) return OCC_CLUSTER_ERR_LAYOUT;
  out->layout_known = true;
  out->cluster_blocks_per_sm = r->active_blocks_per_sm;
  if (out->cluster_blocks_per_sm > device->cluster_max_blocks_per_sm)
    out->cluster_blocks_per_sm = device->cluster_max_blocks_per_sm;
  out->domain_count = device->cluster_domain_count;
  memcpy(out->domain_sms, device->cluster_domain_sms,
         sizeof out->domain_sms);
  out->max_active_clusters = occ_cluster_max_active(
      out->domain_sms, out->domain_count, out->cluster_blocks_per_sm,
      out->cluster_size, out->domain_clusters);
  for (int i = 0; i < out->domain_count; i++)
    out->domains_fitting += out->domain_sms[i] >= out->cluster_size;
  out->active_blocks = out->max_active_clusters * out->cluster_size;
  out->blocks_without_clusters =
      (int64_t)r->active_blocks_per_sm * device->sm_count;
  out->limited_by_cluster = out->active_blocks < out->blocks_without_clusters;
  out->occupancy = (double)out->active_blocks * r->warps_per_block /
                   ((double)device->sm_count * r->max_warps_per_sm);
  return OCC_CLUSTER_OK;
}

void occ_cluster_waves_compute(const occ_cluster_result *r,
                               int64_t grid_clusters, occ_cluster_waves *waves) {
  memset(waves, 0, sizeof *waves);
  waves->grid_clusters = grid_clusters;
  if (!r->layout_known || r->max_active_clusters <= 0) return;
  waves->clusters_per_wave = r->max_active_clusters;
  waves->full_waves = grid_clusters / r->max_active_clusters;
  waves->tail_clusters = grid_clusters % r->max_active_clusters;
  waves->waves = (double)grid_clusters / (double)r->max_active_clusters;
}
