/* model.c - compute an item and its sections once (see model.h). */
#include "model/model.h"

#include <stdlib.h>

#include "core/cluster_explain.h"
#include "core/sweep.h"
#include "model/cluster.h"

occ_status occ_model_compute(occ_item *item, const occ_model_request *req) {
  occ_status status = occ_compute(item->device, &item->kernel, &item->result);
  item->has_waves = status == OCC_OK && req->grid_blocks > 0;
  if (item->has_waves)
    occ_waves_compute(item->device, &item->result, req->grid_blocks,
                      &item->waves);
  if (status == OCC_OK && req->cluster)
    status = occ_model_cluster(item, req->cluster, req->grid_blocks);
  return status;
}

static occ_status build_charts(occ_item *item, const occ_model_request *req) {
  occ_charts *set = calloc(1, sizeof *set);
  if (!set) return OCC_ERR_NOMEM;
  const occ_kernel *k = &item->kernel;
  occ_sweep *sweep = NULL;
  occ_status status = occ_sweep_new(item->device, k->carveout_pct,
                                    k->barriers, &sweep);
  for (int kind = 0; status == OCC_OK && kind < OCC_CHART_KIND_COUNT; kind++) {
    if (!(req->charts & (1u << kind))) continue;
    status = occ_chart_build(sweep, k, (occ_chart_kind)kind, req->chart_step,
                             &set->charts[set->count]);
    if (status == OCC_OK) {
      set->list[set->count] = &set->charts[set->count];
      set->count++;
    }
  }
  occ_sweep_free(sweep);
  item->charts = set;
  return status;
}

static occ_status build_suggestion(occ_item *item) {
  item->suggestion = malloc(sizeof *item->suggestion);
  if (!item->suggestion) return OCC_ERR_NOMEM;
  return occ_suggest(item->device, &item->kernel, item->suggestion);
}

static occ_status build_explanation(occ_item *item) {
  occ_explanation *e = malloc(sizeof *e);
  if (!e) return OCC_ERR_NOMEM;
  size_t n = occ_explain(item->device, &item->kernel, &item->result,
                         item->has_waves ? &item->waves : NULL, e->steps,
                         OCC_EXPLAIN_MAX_STEPS);
  e->count = n > OCC_EXPLAIN_MAX_STEPS ? OCC_EXPLAIN_MAX_STEPS : n;
  if (item->has_cluster) {
    n = occ_explain_cluster(item->device, &item->result, &item->cluster,
                            &item->cluster_result,
                            item->has_cluster_waves ? &item->cluster_waves
                                                    : NULL,
                            e->steps + e->count,
                            OCC_EXPLAIN_MAX_STEPS - e->count);
    e->count += n > OCC_EXPLAIN_MAX_STEPS - e->count
                    ? OCC_EXPLAIN_MAX_STEPS - e->count : n;
  }
  item->explanation = e;
  return OCC_OK;
}

occ_status occ_model_sections(occ_item *item, const occ_model_request *req,
                              occ_model_section *failed) {
  *failed = OCC_SECTION_NONE;
  item->explanation = NULL;
  item->charts = NULL;
  item->suggestion = NULL;
  item->has_ncu = occ_ncu_values(item->device, &item->kernel, &item->result,
                                 item->has_waves ? &item->waves : NULL,
                                 &item->ncu) == OCC_OK;
  if (item->has_ncu) occ_model_cluster_ncu(item);
  occ_status status = OCC_OK;
  if (req->explain && (status = build_explanation(item)) != OCC_OK)
    *failed = OCC_SECTION_EXPLAIN;
  else if (req->charts && (status = build_charts(item, req)) != OCC_OK)
    *failed = OCC_SECTION_CHARTS;
  else if (req->suggest && (status = build_suggestion(item)) != OCC_OK)
    *failed = OCC_SECTION_SUGGEST;
  if (status != OCC_OK) occ_model_release(item);
  return status;
}

void occ_model_release(occ_item *item) {
  if (item->charts)
    for (size_t i = 0; i < item->charts->count; i++)
      occ_chart_free(&item->charts->charts[i]);
  free(item->charts);
  free(item->explanation);
  free(item->suggestion);
  item->charts = NULL;
  item->explanation = NULL;
  item->suggestion = NULL;
}

const char *occ_model_section_name(occ_model_section section) {
  switch (section) {
  case OCC_SECTION_CHARTS: return "charts";
  case OCC_SECTION_SUGGEST: return "suggest";
  case OCC_SECTION_EXPLAIN: return "explain";
  case OCC_SECTION_NONE: break;
  }
  return "model";
}

bool occ_model_below(const occ_item *item, double min_pct) {
  /* A tolerance for the percentage's rounding: 50 passes at 0.5. */
  /* A cluster launch is gated on what it reaches (model/cluster.h). */
  return item->device && occ_model_occupancy(item) * 100.0 < min_pct - 1e-9;
}
