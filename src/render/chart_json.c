/* chart_json.c - the charts as JSON: an array of chart objects
 *   {"chart": "block"|"regs"|"smem", "x": "threads_per_block"|...,
 *    "max_warps_per_sm": N, "marked": index, "marked_launchable": bool,
 *    "points": [[x, active_blocks_per_sm, active_warps_per_sm,
 *                occupancy], ...]}
 * with occupancy a fraction from 0 to 1, as everywhere in the JSON.
 * Points are arrays, not objects, because a chart has up to ~2000 of them
 * and the keys would be most of the output. */
#include "render/chart_out.h"
#include "render/vocab.h"

static cJSON *point_json(const occ_chart_point *p) {
  double values[4] = {(double)p->x, p->active_blocks_per_sm,
                      p->active_warps_per_sm, p->occupancy};
  return cJSON_CreateDoubleArray(values, 4);
}

static cJSON *chart_json(const occ_chart *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON *points = NULL;
  if (!o || !cJSON_AddStringToObject(o, "chart", occ_chart_kind_name(c->kind)) ||
      !cJSON_AddStringToObject(o, "x", occ_chart_x_key(c->kind)) ||
      !cJSON_AddNumberToObject(o, "max_warps_per_sm", c->max_warps_per_sm) ||
      !cJSON_AddNumberToObject(o, "marked", (double)c->marked) ||
      !cJSON_AddBoolToObject(o, "marked_launchable", c->marked_launchable) ||
      !(points = cJSON_AddArrayToObject(o, "points"))) {
    cJSON_Delete(o);
    return NULL;
  }
  for (size_t i = 0; i < c->count; i++) {
    cJSON *p = point_json(&c->points[i]);
    if (!p || !cJSON_AddItemToArray(points, p)) {
      cJSON_Delete(p);
      cJSON_Delete(o);
      return NULL;
    }
  }
  return o;
}

cJSON *occ_chart_json(const occ_chart *const *charts, size_t count) {
  cJSON *array = cJSON_CreateArray();
  for (size_t i = 0; array && i < count; i++) {
    cJSON *c = chart_json(charts[i]);
    if (!c || !cJSON_AddItemToArray(array, c)) {
      cJSON_Delete(c);
      cJSON_Delete(array);
      return NULL;
    }
  }
  return array;
}
