/* model.c - compute an item and its sections once (see model.h). */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "core/amd_explain.h"
#include "core/cluster_explain.h"
#include "core/sweep.h"
#include "model/cluster.h"

static occ_status compute(occ_item *item, const occ_model_request *req) {
  occ_status status = OCC_OK;
  if (req->choose_block && item->choose_block) {
    status = occ_model_choose_block(req->choose_block, item->device, &item->kernel,
                                    &item->chosen, item->block_best);
    item->choice = status == OCC_OK ? &item->chosen : NULL;
    if (status != OCC_OK) return status;
  }
  status = occ_compute(item->device, &item->kernel, &item->result);
  item->has_waves = status == OCC_OK && req->grid_blocks > 0;
  if (item->has_waves)
    occ_waves_compute(item->device, &item->result, req->grid_blocks,
                      &item->waves);
  item->waves_without_clusters = item->waves;
  if (status == OCC_OK && req->cluster)
    status = occ_model_cluster(item, req->cluster, req->grid_blocks);
  return status;
}

/* Builds the charts req asks for into set, their points each allocated by
 * the core (freed by free_charts), and counts the points into *points. */
static occ_status build_charts(const occ_item *item, const occ_model_request *req,
                               occ_sweep_cache *sweeps, occ_charts *set,
                               size_t *points) {
  const occ_kernel *k = &item->kernel;
  const occ_sweep *sweep = NULL;
  occ_status status = occ_sweep_cache_get(sweeps, item->device, k->carveout_pct,
                                          k->barriers, &sweep);
  for (int kind = 0; status == OCC_OK && kind < OCC_CHART_KIND_COUNT; kind++) {
    if (!(req->charts & (1u << kind))) continue;
    status = occ_chart_build(sweep, k, (occ_chart_kind)kind, req->chart_step,
                             &set->charts[set->count]);
    if (status == OCC_OK) *points += set->charts[set->count++].count;
  }
  return status;
}

static void free_charts(occ_charts *set) {
  for (size_t i = 0; i < set->count; i++) occ_chart_free(&set->charts[i]);
}

/* The charts, moved into the sections' block: their points after it. */
static void move_charts(occ_charts *from, occ_sections *into) {
  occ_charts *set = &into->charts;
  occ_chart_point *next = into->points;
  *set = (occ_charts){.count = from->count};
  for (size_t i = 0; i < from->count; i++) {
    set->charts[i] = from->charts[i];
    set->charts[i].points = next;
    if (from->charts[i].count)
      memcpy(next, from->charts[i].points,
             from->charts[i].count * sizeof *next);
    next += from->charts[i].count;
    set->list[i] = &set->charts[i];
  }
}

static void build_explanation(occ_item *item, occ_explanation *e) {
  size_t n = occ_explain(item->device, &item->kernel, &item->result,
                         item->has_waves ? &item->waves_without_clusters : NULL,
                         e->steps,
                         OCC_EXPLAIN_MAX_STEPS);
  e->count = n > OCC_EXPLAIN_MAX_STEPS ? OCC_EXPLAIN_MAX_STEPS : n;
  if (item->has_cluster) {
    occ_explain_name_without_clusters(e->steps, e->count);
    n = occ_explain_cluster(item->device, &item->result, &item->cluster,
                            &item->cluster_result,
                            &item->launch_cluster_result,
                            item->has_cluster_waves ? &item->cluster_waves
                                                    : NULL,
                            e->steps + e->count,
                            OCC_EXPLAIN_MAX_STEPS - e->count);
    e->count += n > OCC_EXPLAIN_MAX_STEPS - e->count
                    ? OCC_EXPLAIN_MAX_STEPS - e->count : n;
  }
}

/* The sections req asks for, in one block (the charts are built first,
 * since their points decide its size). */
static occ_status build_sections(occ_item *item, const occ_model_request *req,
                                 occ_model_section *failed) {
  if (!req->explain && !req->charts && !req->suggest) return OCC_OK;
  occ_charts charts = {.count = 0};
  size_t points = 0;
  occ_status status = OCC_OK;
  occ_sweep_cache own = {.count = 0};
  occ_sweep_cache *sweeps = req->sweeps ? req->sweeps : &own;
  if (req->charts &&
      (status = build_charts(item, req, sweeps, &charts, &points)) != OCC_OK)
    *failed = OCC_SECTION_CHARTS;
  occ_sections *s = NULL;
  if (status == OCC_OK &&
      !(s = malloc(sizeof *s + points * sizeof *s->points))) {
    *failed = req->charts ? OCC_SECTION_CHARTS
              : req->explain ? OCC_SECTION_EXPLAIN : OCC_SECTION_SUGGEST;
    status = OCC_ERR_NOMEM;
  }
  if (status == OCC_OK && req->charts) {
    move_charts(&charts, s);
    item->charts = &s->charts;
  }
  free_charts(&charts);
  if (status == OCC_OK && req->explain) {
    build_explanation(item, &s->explanation);
    item->explanation = &s->explanation;
  }
  if (status == OCC_OK && req->suggest) {
    const occ_sweep *sweep = NULL;
    status = occ_sweep_cache_get(sweeps, item->device,
                                 item->kernel.carveout_pct,
                                 item->kernel.barriers, &sweep);
    /* A sweep the device refuses: the suggestion's own answer (the
     * kernel's error first). */
    status = status == OCC_OK
                 ? occ_suggest_on(sweep, item->device, &item->kernel,
                                  &s->suggestion)
                 : occ_suggest(item->device, &item->kernel, &s->suggestion);
    item->suggestion = &s->suggestion;
    if (status != OCC_OK) *failed = OCC_SECTION_SUGGEST;
  }
  if (status != OCC_OK) {
    free(s);
    item->explanation = NULL;
    item->charts = NULL;
    item->suggestion = NULL;
    s = NULL;
  }
  occ_sweep_cache_free(&own);
  item->sections = s;
  return status;
}

/* An AMD item: both rules' result, and the explanation when asked. */
static occ_status build_amd(occ_item *item, const occ_model_request *req,
                            occ_model_section *failed) {
  occ_amd_item *it = item->amd;
  if (occ_amd_item_compute(it) != OCC_AMD_OK) return OCC_ERR_INVALID_KERNEL;
  if (!req->explain) return OCC_OK;
  occ_sections *s = malloc(sizeof *s);
  if (!s) {
    *failed = OCC_SECTION_EXPLAIN;
    return OCC_ERR_NOMEM;
  }
  occ_explanation *e = &s->explanation;
  size_t n = occ_amd_explain(&it->arch, &it->kernel, &it->result, e->steps,
                             OCC_EXPLAIN_MAX_STEPS);
  e->count = n > OCC_EXPLAIN_MAX_STEPS ? OCC_EXPLAIN_MAX_STEPS : n;
  item->explanation = e;
  item->sections = s;
  return OCC_OK;
}

occ_status occ_model_build(occ_item *item, const occ_model_request *req,
                           occ_model_section *failed) {
  *failed = OCC_SECTION_NONE;
  item->explanation = NULL;
  item->charts = NULL;
  item->suggestion = NULL;
  item->sections = NULL;
  if (item->amd) return build_amd(item, req, failed);
  occ_status status = compute(item, req);
  if (status != OCC_OK) return status;
  item->has_ncu = occ_ncu_values(item->device, &item->kernel, &item->result,
                                 item->has_waves ? &item->waves_without_clusters
                                                 : NULL,
                                 &item->ncu) == OCC_OK;
  if (item->has_ncu) occ_model_cluster_ncu(item);
  return build_sections(item, req, failed);
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
  return (item->device || item->amd) &&
         occ_model_occupancy(item) * 100.0 < min_pct - 1e-9;
}
