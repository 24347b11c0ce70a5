/* timeline.c - residency from the probe's timeline (see timeline.h). */
#include "live/timeline.h"

#include <stdlib.h>

typedef struct event {
  unsigned int smid;
  int delta; /* +1 start, -1 end */
  unsigned long long t;
} event;

/* Ends sort before starts at the same time: intervals are [start, end). */
static int event_cmp(const void *a, const void *b) {
  const event *x = a, *y = b;
  if (x->smid != y->smid) return x->smid < y->smid ? -1 : 1;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->delta - y->delta;
}

static void peaks(const event *ev, int64_t count, int sm_count,
                  occ_residency *out) {
  int min = -1, max = 0, seen = 0, cur = 0, peak = 0;
  for (int64_t i = 0; i < count; i++) {
    cur += ev[i].delta;
    if (cur > peak) peak = cur;
    if (i + 1 == count || ev[i + 1].smid != ev[i].smid) {
      seen++;
      if (min < 0 || peak < min) min = peak;
      if (peak > max) max = peak;
      cur = peak = 0;
    }
  }
  out->sms_seen = seen;
  out->min_blocks = seen < sm_count ? 0 : min;
  out->max_blocks = max;
}

occ_timeline_status occ_timeline_residency(const occ_probe_record *rec,
                                           int64_t n, int sm_count,
                                           int warps_per_block,
                                           int max_warps_per_sm,
                                           occ_residency *out, int64_t *bad) {
  event *ev = malloc((size_t)n * 2 * sizeof *ev);
  if (!ev) return OCC_TIMELINE_NOMEM;
  unsigned long long t0 = rec[0].start_ns, t1 = rec[0].end_ns;
  double warp_ns = 0;
  for (int64_t i = 0; i < n; i++) {
    if (rec[i].end_ns == 0 || rec[i].end_ns < rec[i].start_ns) {
      free(ev);
      *bad = i;
      return OCC_TIMELINE_NO_RECORD;
    }
    ev[2 * i] = (event){rec[i].smid, +1, rec[i].start_ns};
    ev[2 * i + 1] = (event){rec[i].smid, -1, rec[i].end_ns};
    if (rec[i].start_ns < t0) t0 = rec[i].start_ns;
    if (rec[i].end_ns > t1) t1 = rec[i].end_ns;
    warp_ns += (double)warps_per_block * (double)(rec[i].end_ns - rec[i].start_ns);
  }
  qsort(ev, (size_t)n * 2, sizeof *ev, event_cmp);
  peaks(ev, 2 * n, sm_count, out);
  free(ev);
  double span = (double)(t1 - t0);
  out->achieved =
      span > 0 ? warp_ns / ((double)sm_count * max_warps_per_sm * span) : 0;
  return OCC_TIMELINE_OK;
}
