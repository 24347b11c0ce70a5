/* cluster.c - the model's cluster section (see cluster.h). */
#include "model/cluster.h"

occ_cluster_status occ_model_cluster_at(const occ_device *d,
                                        const occ_result *r, int blocks_per_sm,
                                        const occ_cluster *cluster,
                                        occ_cluster_result *out) {
  occ_result at = *r;
  at.active_blocks_per_sm = blocks_per_sm;
  return occ_cluster_compute(d, &at, cluster, out);
}

occ_status occ_model_cluster(occ_item *item, const occ_cluster *cluster,
                             int64_t grid_blocks) {
  item->has_cluster = false;
  item->has_cluster_waves = false;
  /* A layout that does not add up to the device's SMs (--sms overrode
   * the board's count) is no layout of this device: unknown, with why. */
  occ_device alone = *item->device;
  bool mismatched =
      alone.cluster_domain_count > 0 && !occ_cluster_layout_valid(&alone);
  if (mismatched)
    alone.cluster_domain_count = 0;
  if (occ_cluster_compute(&alone, &item->result, cluster,
                          &item->cluster_result) != OCC_CLUSTER_OK ||
      occ_model_cluster_at(&alone, &item->result,
                 item->result.launch_active_blocks_per_sm, cluster,
                 &item->launch_cluster_result) != OCC_CLUSTER_OK)
    return OCC_ERR_INVALID_DEVICE;
  if (mismatched)
    item->cluster_result.unknown_reason =
        item->launch_cluster_result.unknown_reason =
            "the board's cluster domains do not add up to the SM count "
            "given (--sms)";
  item->has_cluster = true;
  item->cluster = *cluster;
  /* The launch's waves: a wave is the clusters at once, in blocks. */
  int64_t per_wave = item->cluster_result.active_blocks;
  if (item->has_waves && item->cluster_result.layout_known && per_wave > 0) {
    occ_waves *w = &item->waves;
    w->blocks_per_wave = per_wave;
    w->full_waves = w->grid_blocks / per_wave;
    w->tail_blocks = w->grid_blocks % per_wave;
    w->waves = (double)w->grid_blocks / (double)per_wave;
  }
  int64_t size = item->cluster_result.cluster_size;
  /* --grid counts blocks: a whole number of clusters, checked before. */
  if (grid_blocks > 0 && grid_blocks % size == 0 &&
      item->cluster_result.layout_known) {
    item->has_cluster_waves = true;
    occ_cluster_waves_compute(&item->cluster_result, grid_blocks / size,
                              &item->cluster_waves);
  }
  return OCC_OK;
}

void occ_model_cluster_ncu(occ_item *item) {
  item->ncu.has_cluster_max_active =
      item->has_cluster && item->cluster_result.layout_known;
  item->ncu.cluster_max_active = item->ncu.has_cluster_max_active
                                     ? item->cluster_result.max_active_clusters
                                     : 0;
  item->ncu.occupancy_cluster_pct = 0;
  item->ncu.occupancy_cluster_gpu_pct = 0;
  const occ_device *d = item->device;
  if (item->ncu.has_cluster_max_active && d->sm_count > 0 &&
      d->max_blocks_per_sm > 0) {
    double slots = (double)d->sm_count * d->max_blocks_per_sm;
    item->ncu.occupancy_cluster_pct =
        100.0 * (double)item->cluster_result.max_active_clusters *
        (double)item->cluster_result.cluster_size / slots;
    item->ncu.occupancy_cluster_gpu_pct =
        item->ncu.occupancy_cluster_pct *
        item->ncu.maximum_warps_per_active_cycle_pct / 100.0;
  }
}

double occ_model_occupancy_at(const occ_item *item, int blocks_per_sm) {
  const occ_result *r = &item->result;
  occ_cluster_result c;
  if (!item->has_cluster || !item->cluster_result.layout_known ||
      occ_model_cluster_at(item->device, r, blocks_per_sm, &item->cluster,
                           &c) != OCC_CLUSTER_OK)
    return (double)blocks_per_sm * r->warps_per_block / r->max_warps_per_sm;
  return c.occupancy;
}

bool occ_model_cluster_of_dims(const int dims[3], occ_cluster *cluster) {
  int64_t size = 1;
  for (int i = 0; i < 3; i++) {
    if (dims[i] < 1)
      return false;
    size *= dims[i];
  }
  if (size <= 1)
    return false;
  *cluster = (occ_cluster){{dims[0], dims[1], dims[2]},
                           size > OCC_CLUSTER_PORTABLE_MAX};
  return true;
}
