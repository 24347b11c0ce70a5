/* chart_json.c - the charts as JSON: an array of chart objects
 *   {"chart": "block"|"regs"|"smem", "x": "threads_per_block"|...,
 *    "max_warps_per_sm": N, "marked": index, "marked_launchable": bool,
 *    "points": [[x, active_blocks_per_sm, active_warps_per_sm,
 *                occupancy], ...]}
 * with occupancy a fraction from 0 to 1, as everywhere in the JSON.
 * Points are arrays, not objects, because a chart has up to ~2000 of them
 * and the keys would be most of the output. */
#include "out/chart_out.h"
#include "out/vocab.h"

static occ_jnode *point_json(const occ_chart_point *p) {
  double values[4] = {(double)p->x, p->active_blocks_per_sm,
                      p->active_warps_per_sm, p->occupancy};
  return occ_jdouble_array(values, 4);
}

static occ_jnode *chart_json(const occ_chart *c) {
  occ_jnode *o = occ_jobject();
  occ_jnode *points = NULL;
  if (!o || !occ_jadd_string(o, "chart", occ_chart_kind_name(c->kind)) ||
      !occ_jadd_string(o, "x", occ_chart_x_key(c->kind)) ||
      !occ_jadd_number(o, "max_warps_per_sm", c->max_warps_per_sm) ||
      !occ_jadd_number(o, "marked", (double)c->marked) ||
      !occ_jadd_bool(o, "marked_launchable", c->marked_launchable) ||
      !(points = occ_jadd_array(o, "points"))) {
    occ_jfree(o);
    return NULL;
  }
  for (size_t i = 0; i < c->count; i++) {
    occ_jnode *p = point_json(&c->points[i]);
    if (!p || !occ_jappend(points, p)) {
      occ_jfree(p);
      occ_jfree(o);
      return NULL;
    }
  }
  return o;
}

occ_jnode *occ_chart_json(const occ_chart *const *charts, size_t count) {
  occ_jnode *array = occ_jarray();
  for (size_t i = 0; array && i < count; i++) {
    occ_jnode *c = chart_json(charts[i]);
    if (!c || !occ_jappend(array, c)) {
      occ_jfree(c);
      occ_jfree(array);
      return NULL;
    }
  }
  return array;
}
