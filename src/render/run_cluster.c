/* run_cluster.c - a cluster launch's row in `occcalc run` (run_cluster.h). */
#include "render/run_cluster.h"

#include <inttypes.h>
#include <stdio.h>

#include "model/cluster.h"
#include "render/report.h"
#include "render/vocab.h"

bool occ_run_cluster_line(const occ_item *item, char *buf, size_t size) {
  if (!item->has_cluster)
    return false;
  const occ_cluster_result *c = &item->cluster_result;
  int n = snprintf(buf, size, "cluster of %d: ", c->cluster_size);
  if (n < 0 || (size_t)n >= size)
    return true;
  if (!c->layout_known) {
    snprintf(buf + n, size - n, "clusters at once unknown (%s)",
             c->unknown_reason);
    return true;
  }
  int m = snprintf(buf + n, size - n,
                   "%" PRId64 " cluster%s at once "
                   "(launch__cluster_max_active), %d block%s per SM",
                   c->max_active_clusters, c->max_active_clusters == 1 ? "" : "s",
                   c->cluster_blocks_per_sm,
                   c->cluster_blocks_per_sm == 1 ? "" : "s");
  if (m >= 0 && (size_t)(n + m) < size && item->has_cluster_waves &&
      item->cluster_waves.clusters_per_wave > 0)
    snprintf(buf + n + m, size - n - m, ", %.2f waves of clusters",
             item->cluster_waves.waves);
  return true;
}

cJSON *occ_run_cluster_json(const occ_item *item) {
  if (!item->has_cluster)
    return cJSON_CreateNull();
  occ_report rep = {.device = item->device,
                    .kernel = &item->kernel,
                    .result = &item->result,
                    .cluster = &item->cluster,
                    .cluster_result = &item->cluster_result,
                    .launch_cluster_result = &item->launch_cluster_result,
                    .cluster_waves =
                        item->has_cluster_waves ? &item->cluster_waves : NULL};
  cJSON *obj = occ_json_cluster(&rep);
  if (!obj)
    return NULL;
  if (item->cluster_result.layout_known)
    occ_json_add_int(obj, "launch__cluster_max_active",
                     item->cluster_result.max_active_clusters);
  else
    cJSON_AddNullToObject(obj, "launch__cluster_max_active");
  if (!cJSON_GetObjectItemCaseSensitive(obj, "launch__cluster_max_active")) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

const char *occ_run_limiters_words(const occ_item *item, char *buf,
                                   size_t size) {
  if (occ_model_limited_by_cluster(item)) {
    snprintf(buf, size, "cluster");
    return buf;
  }
  return occ_limiters_words(item->result.limited_by, buf, size);
}
