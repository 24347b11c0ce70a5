/* cluster_arg.c - --cluster's value (see cluster_arg.h). */
#include "cli/cluster_arg.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"

int occ_cluster_arg_parse(const char *text, bool non_portable,
                          occ_cluster *cluster, char *why, size_t why_size) {
  if (occ_parse_block(text, NULL, cluster->dim, why, why_size) != 0)
    return -1;
  cluster->non_portable = non_portable;
  /* Each dimension alone first, so that the product cannot overflow. */
  bool too_large = false;
  for (int i = 0; i < 3; i++)
    too_large |= cluster->dim[i] > OCC_CLUSTER_NON_PORTABLE_MAX;
  occ_cluster_status status =
      too_large ? OCC_CLUSTER_ERR_TOO_LARGE
                : occ_cluster_check(&(occ_device){.cc_major = 9}, cluster);
  if (status == OCC_CLUSTER_OK)
    return 0;
  if (status == OCC_CLUSTER_ERR_NON_PORTABLE)
    snprintf(why, why_size,
             "'%s' is %" PRId64 " blocks, a non-portable size: "
             "add --non-portable (accepted: 1 to 8 blocks, 9 to 16 with "
             "--non-portable)",
             text, occ_cluster_size(cluster));
  else
    snprintf(why, why_size, "'%s': %s", text, occ_cluster_strerror(status));
  return -1;
}

int occ_cluster_arg_check(const occ_cluster *cluster, const occ_device *device,
                          int64_t grid_blocks, char *why, size_t why_size) {
  occ_cluster_status status = occ_cluster_check(device, cluster);
  if (status != OCC_CLUSTER_OK) {
    snprintf(why, why_size, "%s on %s (cc %d.%d)", occ_cluster_strerror(status),
             device->name, device->cc_major, device->cc_minor);
    return -1;
  }
  int64_t size = occ_cluster_size(cluster), clusters;
  /* --grid counts blocks: a whole number of clusters of size blocks. */
  const occ_cluster line = {{(int)size, 1, 1}, cluster->non_portable};
  if (grid_blocks > 0 &&
      occ_cluster_grid_clusters((const int64_t[3]){grid_blocks, 1, 1}, &line,
                                &clusters) != OCC_CLUSTER_OK) {
    snprintf(why, why_size,
             "--grid %" PRId64 " is not a whole number of "
             "clusters of %" PRId64 " blocks (accepted: a grid that is a "
             "multiple of the cluster's size)",
             grid_blocks, size);
    return -1;
  }
  return 0;
}
