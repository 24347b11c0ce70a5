/* cluster_verify_out.c - a cluster launch verified on the GPU, and the
 * sweep's cluster cases (cluster_verify_out.h). */
#include "render/cluster_verify_out.h"

#include <inttypes.h>

#include "render/verify_out.h"

static const char *yes_no(bool checked, bool agrees) {
  return !checked ? "not checked" : agrees ? "agree" : "DISAGREE";
}

/* The label column of the section: "predicted at launch" and a space. */
#define LABEL "  %-19s "

static void print_placement(FILE *out, const occ_cluster_probe_run *r) {
  fprintf(out, LABEL "%s", "placement",
          r->clusters_sharing_sm == 0
              ? "no two blocks of a cluster shared an SM"
              : "blocks of one cluster shared an SM");
  if (r->clusters_sharing_sm > 0)
    fprintf(out, " (%" PRId64 " clusters)", r->clusters_sharing_sm);
  fputc('\n', out);
  if (r->sm_groups > 0) {
    fprintf(out, LABEL "%d (SMs each:", "domains used", r->sm_groups);
    for (int i = 0; i < r->sm_groups && i < OCC_CLUSTER_DOMAINS_MAX; i++)
      fprintf(out, " %d", r->sm_group_sms[i]);
    fputs(")\n", out);
  } else {
    fprintf(out, LABEL "not counted (clusters of one block)\n",
            "domains used");
  }
}

/* The occupancy API's rule, and beside it what the SM holds at launch
 * where that differs (the figure the measurement is judged against). */
static void print_predictions(FILE *out, const occ_cluster_verify *v) {
  const occ_cluster_result *p = &v->cluster_prediction;
  if (!p->layout_known) {
    fprintf(out, LABEL "unknown (%s)\n", "predicted", p->unknown_reason);
    return;
  }
  fprintf(out, LABEL "%6" PRId64 " clusters at once\n", "predicted",
          p->max_active_clusters);
  if (!occ_verify_cluster_launch_differs(v))
    return;
  char why[80];
  occ_verify_launch_reason(&v->prediction, why, sizeof why);
  fprintf(out, LABEL "%6" PRId64 " clusters: %s\n", "predicted at launch",
          v->launch_cluster_prediction.max_active_clusters, why);
}

void occ_print_cluster_verify(FILE *out, const occ_cluster_verify *v) {
  const occ_cluster_probe_run *r = &v->run;
  fprintf(out, "Cluster launch on the GPU (%dx%dx%d, %d blocks)\n",
          v->cluster.dim[0], v->cluster.dim[1], v->cluster.dim[2],
          v->cluster_prediction.cluster_size);
  print_predictions(out, v);
  fprintf(out, LABEL "%6d (cudaOccupancyMaxActiveClusters), driver %d\n",
          "cudart", r->api_max_active_clusters,
          r->driver_api_max_active_clusters);
  if (r->launched)
    fprintf(out, LABEL "%6d..%d clusters co-resident over %d launches\n",
            "measured", r->measured_min, r->measured_max, r->launches);
  else
    fprintf(out, LABEL "not launched: %s\n", "measured", r->launch_error);
  print_placement(out, r);
  fprintf(out, LABEL "%s (prediction %s, measured %s)\n", "verdict",
          v->agree ? "agree" : "DISAGREE",
          yes_no(v->api_checked, v->api_agrees),
          yes_no(v->measured_checked, v->measured_agrees));
}

cJSON *occ_json_cluster_verify(const occ_cluster_verify *v) {
  const occ_cluster_probe_run *r = &v->run;
  const occ_cluster_result *p = &v->cluster_prediction;
  cJSON *obj = cJSON_CreateObject();
  if (!obj)
    return NULL;
  cJSON_AddItemToObject(obj, "dims", cJSON_CreateIntArray(v->cluster.dim, 3));
  occ_json_add_int(obj, "size", p->cluster_size);
  occ_json_add_int_or_null(obj, "predicted_max_active_clusters",
                           p->max_active_clusters, p->layout_known);
  const occ_cluster_result *at = &v->launch_cluster_prediction;
  occ_json_add_int_or_null(obj, "predicted_launch_max_active_clusters",
                           at->max_active_clusters, at->layout_known);
  occ_json_add_int(obj, "api_max_active_clusters", r->api_max_active_clusters);
  cJSON_AddStringToObject(obj, "api_function",
                          "cudaOccupancyMaxActiveClusters");
  occ_json_add_int(obj, "driver_api_max_active_clusters",
                   r->driver_api_max_active_clusters);
  occ_json_add_int(obj, "max_potential_cluster_size",
                   r->max_potential_cluster_size);
  cJSON_AddBoolToObject(obj, "launched", r->launched);
  occ_json_add_int_or_null(obj, "measured_min", r->measured_min, r->launched);
  occ_json_add_int_or_null(obj, "measured_max", r->measured_max, r->launched);
  occ_json_add_int_or_null(obj, "clusters_sharing_sm", r->clusters_sharing_sm,
                           r->launched);
  cJSON *groups = r->sm_groups > 0 ? cJSON_CreateArray() : cJSON_CreateNull();
  for (int i = 0; groups && i < r->sm_groups && i < OCC_CLUSTER_DOMAINS_MAX;
       i++)
    cJSON_AddItemToArray(groups, cJSON_CreateNumber(r->sm_group_sms[i]));
  cJSON_AddItemToObject(obj, "domains_used_sms", groups);
  cJSON_AddBoolToObject(obj, "agree", v->agree);
  if (!cJSON_GetObjectItemCaseSensitive(obj, "agree")) {
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

void occ_print_cluster_sweep_case(FILE *out, int index,
                                  const occ_cluster_verify *v) {
  const occ_kernel *k = &v->requested;
  fprintf(out,
          "cluster case %d: %d regs, %d threads, %" PRId64 " B smem, "
          "carveout %d, cluster %d: predicted %" PRId64 " (at launch %" PRId64
          "), cudart %d, measured %d..%d%s\n",
          index, k->regs_per_thread, k->block[0] * k->block[1] * k->block[2],
          k->smem_static_bytes + k->smem_dynamic_bytes, k->carveout_pct,
          v->cluster_prediction.cluster_size,
          v->cluster_prediction.max_active_clusters,
          v->launch_cluster_prediction.max_active_clusters,
          v->run.api_max_active_clusters, v->run.measured_min,
          v->run.measured_max,
          v->placement_agrees ? "" : ", two blocks of a cluster on one SM");
}

void occ_print_cluster_sweep_summary(FILE *out,
                                     const occ_cluster_sweep_summary *s) {
  if (s->cases == 0)
    return;
  fprintf(out,
          "cluster cases   %d/%d agree (prediction == cudart %d/%d, "
          "measured == at launch %d/%d, placement %d/%d)\n",
          s->agree, s->cases, s->api_agree, s->api_checked, s->measured_agree,
          s->measured_checked, s->placement_agree, s->cases);
  if (s->launch_differs > 0)
    fprintf(out,
            "                %d of them predicted to hold more at launch "
            "than the API says\n",
            s->launch_differs);
}

cJSON *occ_json_cluster_sweep_summary(const occ_cluster_sweep_summary *s) {
  cJSON *obj = cJSON_CreateObject();
  occ_json_add_int(obj, "cases", s->cases);
  occ_json_add_int(obj, "agree", s->agree);
  occ_json_add_int(obj, "api_checked", s->api_checked);
  occ_json_add_int(obj, "api_agree", s->api_agree);
  occ_json_add_int(obj, "measured_checked", s->measured_checked);
  occ_json_add_int(obj, "measured_agree", s->measured_agree);
  occ_json_add_int(obj, "placement_agree", s->placement_agree);
  occ_json_add_int(obj, "driver_agree", s->driver_agree);
  occ_json_add_int(obj, "launch_differs_from_api", s->launch_differs);
  return obj;
}
