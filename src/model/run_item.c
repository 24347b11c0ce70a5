/* run_item.c - a run's row computed on its device (see run_item.h). */
#include "model/run_item.h"

#include "model/cluster.h"

/* The kernel a launch record describes, at its launch's configuration. */
static void kernel_of(const occ_launch_record *l, occ_kernel *k) {
  occ_kernel_init(k);
  for (int i = 0; i < 3; i++) k->block[i] = l->block[i];
  k->regs_per_thread = l->regs_per_thread;
  k->smem_static_bytes = l->smem_static_bytes;
  k->smem_dynamic_bytes = l->smem_dynamic_bytes;
  k->carveout_pct = l->carveout_requested_pct;
}

/* The item on its device. A cluster launch: the cluster rule beside the
 * API's, and a device that refuses the shape keeps the API's alone; a
 * configuration the core refuses leaves the item without a device. */
static void build(occ_item *item, const occ_launch_record *l) {
  /* At most 2^31 x 2^16 x 2^16 (records.c): no overflow. */
  int64_t grid_blocks = (int64_t)l->grid[0] * l->grid[1] * l->grid[2];
  occ_model_request request = {.grid_blocks = grid_blocks};
  occ_cluster cluster;
  bool clustered = occ_model_cluster_of_dims(l->cluster, &cluster);
  request.cluster = clustered ? &cluster : NULL;
  occ_model_section failed;
  if (occ_model_build(item, &request, &failed) == OCC_OK) return;
  request.cluster = NULL;
  if (!clustered || occ_model_build(item, &request, &failed) != OCC_OK)
    item->device = NULL;
}

void occ_run_row_compute(occ_run_row *row, const occ_device *device,
                         char *readable, const char *layout_why) {
  const occ_launch_record *l = row->first;
  occ_item *item = &row->item;
  kernel_of(l, &item->kernel);
  item->name = item->label = l->name;
  item->readable = readable;
  item->device = device;
  if (item->device) build(item, l);
  if (item->device && item->has_cluster && !item->cluster_result.layout_known &&
      layout_why)
    item->cluster_result.unknown_reason = layout_why;
  occ_measure_derive(item, &row->measure);
}
