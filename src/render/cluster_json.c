/* cluster_json.c - a report's "cluster" object (schema 3, man/occcalc.1):
 * the model's cluster section as it is, null where the board's domains are
 * not known, with the reason. */
#include "render/json_write.h"
#include "render/report.h"
#include "render/vocab.h"

static cJSON *waves_json(const occ_cluster_waves *w) {
  if (!w)
    return cJSON_CreateNull();
  cJSON *obj = cJSON_CreateObject();
  occ_json_add_int(obj, "grid_clusters", w->grid_clusters);
  occ_json_add_int(obj, "clusters_per_wave", w->clusters_per_wave);
  occ_json_add_int(obj, "full_waves", w->full_waves);
  occ_json_add_int(obj, "tail_clusters", w->tail_clusters);
  cJSON_AddNumberToObject(obj, "waves", w->waves);
  return obj;
}

/* "cluster" when clusters lower the launch, else the kernel's limiters. */
static cJSON *limited_by_json(const occ_report *rep) {
  if (!rep->cluster_result->limited_by_cluster)
    return occ_json_limited_by(rep->result);
  cJSON *array = cJSON_CreateArray();
  cJSON_AddItemToArray(array, cJSON_CreateString("cluster"));
  return array;
}

static void add_layout(cJSON *obj, const occ_report *rep) {
  const occ_cluster_result *c = rep->cluster_result;
  bool known = c->layout_known;
  occ_json_add_int_or_null(obj, "max_active_clusters", c->max_active_clusters,
                           known);
  occ_json_add_int_or_null(obj, "blocks_per_sm", c->cluster_blocks_per_sm,
                           known);
  if (known) {
    cJSON *sms = cJSON_AddArrayToObject(obj, "domains_sms");
    for (int i = 0; sms && i < c->domain_count; i++)
      cJSON_AddItemToArray(sms, cJSON_CreateNumber(c->domain_sms[i]));
  } else {
    cJSON_AddNullToObject(obj, "domains_sms");
  }
  occ_json_add_int_or_null(obj, "domains_fitting", c->domains_fitting, known);
  if (known) {
    cJSON_AddBoolToObject(obj, "limited_by_cluster", c->limited_by_cluster);
    cJSON_AddItemToObject(obj, "limited_by", limited_by_json(rep));
    cJSON_AddNumberToObject(obj, "occupancy", c->occupancy);
    cJSON_AddItemToObject(obj, "waves", waves_json(rep->cluster_waves));
    cJSON_AddNullToObject(obj, "unknown_reason");
  } else {
    cJSON_AddNullToObject(obj, "limited_by_cluster");
    cJSON_AddNullToObject(obj, "limited_by");
    cJSON_AddNullToObject(obj, "occupancy");
    cJSON_AddNullToObject(obj, "waves");
    cJSON_AddStringToObject(obj, "unknown_reason", c->unknown_reason);
  }
}

cJSON *occ_json_cluster(const occ_report *rep) {
  if (!rep->cluster || !rep->cluster_result)
    return cJSON_CreateNull();
  cJSON *obj = cJSON_CreateObject();
  if (!obj)
    return NULL;
  cJSON_AddItemToObject(obj, "dims",
                        cJSON_CreateIntArray(rep->cluster->dim, 3));
  occ_json_add_int(obj, "size", rep->cluster_result->cluster_size);
  cJSON_AddBoolToObject(obj, "non_portable", rep->cluster->non_portable);
  add_layout(obj, rep);
  /* The last key is missing only when an allocation failed. */
  if (!cJSON_GetObjectItemCaseSensitive(obj, "unknown_reason")) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}
