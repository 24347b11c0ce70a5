/* run_launches.c - a run's launches by start, with their lanes (see
 * run_launches.h). */
#include "render/run_launches.h"

#include <stdlib.h>

static int by_start(const void *a, const void *b) {
  const occ_run_launch *x = a, *y = b;
  uint64_t p = x->rec->start_ns, q = y->rec->start_ns;
  return p < q ? -1 : p > q;
}

static int by_lane(const void *a, const void *b) {
  const occ_run_lane *x = a, *y = b;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

bool occ_run_launch_achieved(const occ_run_launch *l, double *v) {
  const occ_run_row *row = l->row;
  if (row->sampled && row->sampled[l->i] && row->sampled[l->i]->known) {
    *v = row->sampled[l->i]->achieved;
    return true;
  }
  const occ_launch_record *c = row->counters ? row->counters[l->i] : NULL;
  if (c && c->value_count > 0) {
    *v = c->values[0] / 100;
    return true;
  }
  return false;
}

/* Every launch's (process, stream), sorted, then each pair once. */
static void find_lanes(occ_run_launches *ls) {
  for (size_t i = 0; i < ls->count; i++) {
    const occ_launch_record *l = ls->launches[i].rec;
    ls->lanes[i] = (occ_run_lane){l->pid, l->stream};
  }
  qsort(ls->lanes, ls->count, sizeof *ls->lanes, by_lane);
  for (size_t i = 0; i < ls->count; i++)
    if (ls->lane_count == 0 ||
        by_lane(&ls->lanes[ls->lane_count - 1], &ls->lanes[i]))
      ls->lanes[ls->lane_count++] = ls->lanes[i];
  for (size_t i = 0; i < ls->count; i++) {
    const occ_launch_record *l = ls->launches[i].rec;
    occ_run_lane key = {l->pid, l->stream};
    const occ_run_lane *lane =
        bsearch(&key, ls->lanes, ls->lane_count, sizeof key, by_lane);
    ls->launches[i].lane = lane ? (size_t)(lane - ls->lanes) : 0;
  }
}

int occ_run_launches_collect(occ_run_launches *ls, const occ_run_report *rep) {
  size_t n = 0;
  for (size_t r = 0; r < rep->row_count; r++)
    n += rep->rows[r].measure.launch_count;
  ls->launches = malloc((n + 1) * sizeof *ls->launches);
  ls->lanes = malloc((n + 1) * sizeof *ls->lanes);
  if (!ls->launches || !ls->lanes) return -1;
  for (size_t r = 0; r < rep->row_count; r++)
    for (size_t i = 0; i < rep->rows[r].measure.launch_count; i++) {
      const occ_launch_record *l = rep->rows[r].launches[i];
      if (l->end_ns <= l->start_ns || !l->start_ns) continue;
      ls->launches[ls->count++] = (occ_run_launch){&rep->rows[r], i, l, 0};
    }
  qsort(ls->launches, ls->count, sizeof *ls->launches, by_start);
  for (size_t i = 0; i < ls->count; i++) {
    if (ls->launches[i].rec->end_ns > ls->last_end_ns)
      ls->last_end_ns = ls->launches[i].rec->end_ns;
  }
  ls->origin_ns = ls->count ? ls->launches[0].rec->start_ns : 0;
  find_lanes(ls);
  return 0;
}

void occ_run_launches_free(occ_run_launches *ls) {
  free(ls->launches);
  free(ls->lanes);
  ls->launches = NULL;
  ls->lanes = NULL;
  ls->count = ls->lane_count = 0;
}

const char *occ_run_launches_device_name(const occ_run_launches *ls,
                                         int32_t device) {
  for (size_t i = 0; i < ls->count; i++)
    if (ls->launches[i].rec->device == device &&
        ls->launches[i].row->item.device)
      return ls->launches[i].row->item.device->name;
  return NULL;
}
