/* cluster_json.c - a report's "cluster" object (schema 3, man/occcalc.1):
 * the model's cluster section as it is, null where the board's domains are
 * not known, with the reason. */
#include "render/json_write.h"
#include "render/report.h"
#include "render/vocab.h"

static void waves(occ_jw *w, const occ_cluster_waves *v) {
  if (!v) {
    occ_jw_null(w, "waves");
    return;
  }
  occ_jw_object(w, "waves");
  occ_jw_int(w, "grid_clusters", v->grid_clusters);
  occ_jw_int(w, "clusters_per_wave", v->clusters_per_wave);
  occ_jw_int(w, "full_waves", v->full_waves);
  occ_jw_int(w, "tail_clusters", v->tail_clusters);
  occ_jw_number(w, "waves", v->waves);
  occ_jw_close(w);
}

/* "cluster" when clusters lower the launch, else the kernel's limiters. */
static void limited_by(occ_jw *w, const occ_report *rep) {
  if (!rep->cluster_result->limited_by_cluster) {
    occ_jw_limited_by(w, "limited_by", rep->result);
    return;
  }
  occ_jw_array(w, "limited_by");
  occ_jw_string(w, NULL, "cluster");
  occ_jw_close(w);
}

static void layout(occ_jw *w, const occ_report *rep) {
  const occ_cluster_result *c = rep->cluster_result;
  bool known = c->layout_known;
  occ_jw_int_or_null(w, "max_active_clusters", c->max_active_clusters, known);
  occ_jw_int_or_null(w, "blocks_per_sm", c->cluster_blocks_per_sm, known);
  if (known)
    occ_jw_ints(w, "domains_sms", c->domain_sms, c->domain_count);
  else
    occ_jw_null(w, "domains_sms");
  occ_jw_int_or_null(w, "domains_fitting", c->domains_fitting, known);
  if (known) {
    occ_jw_bool(w, "limited_by_cluster", c->limited_by_cluster);
    limited_by(w, rep);
    occ_jw_number(w, "occupancy", c->occupancy);
    waves(w, rep->cluster_waves);
    occ_jw_null(w, "unknown_reason");
  } else {
    occ_jw_null(w, "limited_by_cluster");
    occ_jw_null(w, "limited_by");
    occ_jw_null(w, "occupancy");
    occ_jw_null(w, "waves");
    occ_jw_string(w, "unknown_reason", c->unknown_reason);
  }
}

void occ_jw_cluster(occ_jw *w, const char *key, const occ_report *rep) {
  if (!rep->cluster || !rep->cluster_result) {
    occ_jw_null(w, key);
    return;
  }
  occ_jw_object(w, key);
  occ_jw_ints(w, "dims", rep->cluster->dim, 3);
  occ_jw_int(w, "size", rep->cluster_result->cluster_size);
  occ_jw_bool(w, "non_portable", rep->cluster->non_portable);
  layout(w, rep);
  occ_jw_close(w);
}

cJSON *occ_json_cluster(const occ_report *rep) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_cluster(&w, NULL, rep);
  return occ_jw_end_tree(&w);
}
