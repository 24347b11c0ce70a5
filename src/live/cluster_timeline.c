/* cluster_timeline.c - clusters from the probe's timeline (see
 * cluster_timeline.h). */
#include "live/cluster_timeline.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct cluster_event {
  unsigned long long t;
  int delta; /* +1: the cluster is whole; -1: its first block ends */
} cluster_event;

/* Ends before starts at one time: intervals are [start, end). */
static int event_cmp(const void *a, const void *b) {
  const cluster_event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->delta - y->delta;
}

static int int_desc(const void *a, const void *b) {
  return *(const int *)b - *(const int *)a;
}

static int find(int *parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/* The peak of whole clusters at once; events holds 2 per cluster. */
static int peak(const occ_probe_record *r, int64_t n, int size,
                cluster_event *events) {
  int64_t count = 0;
  for (int64_t c = 0; c < n / size; c++) {
    unsigned long long whole = 0, first_end = ~0ull;
    for (int b = 0; b < size; b++) {
      const occ_probe_record *x = &r[c * size + b];
      if (x->start_ns > whole) whole = x->start_ns;
      if (x->end_ns < first_end) first_end = x->end_ns;
    }
    if (whole >= first_end) continue; /* never whole at one time */
    events[count++] = (cluster_event){whole, 1};
    events[count++] = (cluster_event){first_end, -1};
  }
  qsort(events, (size_t)count, sizeof *events, event_cmp);
  int cur = 0, best = 0;
  for (int64_t i = 0; i < count; i++) {
    cur += events[i].delta;
    if (cur > best) best = cur;
  }
  return best;
}

/* Clusters with two blocks on one SM, and the groups of SMs they join. */
static void placement(const occ_probe_record *r, int64_t n, int size,
                      unsigned max_smid, int *parent, int *group_size,
                      bool *seen, occ_cluster_residency *out) {
  for (unsigned i = 0; i <= max_smid; i++) parent[i] = (int)i;
  for (int64_t c = 0; c < n / size; c++) {
    const occ_probe_record *x = &r[c * size];
    bool shared = false;
    for (int b = 0; b < size; b++) {
      for (int a = 0; a < b; a++) shared |= x[a].smid == x[b].smid;
      parent[find(parent, (int)x[b].smid)] = find(parent, (int)x[0].smid);
      seen[x[b].smid] = true;
    }
    out->clusters_sharing_sm += shared;
  }
  if (size < 2) {
    out->groups = -1;
    return;
  }
  memset(group_size, 0, ((size_t)max_smid + 1) * sizeof *group_size);
  for (unsigned i = 0; i <= max_smid; i++)
    if (seen[i]) group_size[find(parent, (int)i)]++;
  int listed = 0;
  out->groups = 0;
  for (unsigned i = 0; i <= max_smid; i++) {
    if (!group_size[i]) continue;
    out->groups++;
    if (listed < OCC_CLUSTER_DOMAINS_MAX) out->group_sms[listed++] = group_size[i];
  }
  qsort(out->group_sms, (size_t)listed, sizeof out->group_sms[0], int_desc);
}

occ_timeline_status occ_cluster_residency_compute(const occ_probe_record *records,
                                                  int64_t n, int cluster_size,
                                                  occ_cluster_residency *out,
                                                  int64_t *bad) {
  memset(out, 0, sizeof *out);
  unsigned max_smid = 0;
  for (int64_t i = 0; i < n; i++) {
    if (records[i].end_ns == 0 || records[i].end_ns < records[i].start_ns) {
      *bad = i;
      return OCC_TIMELINE_NO_RECORD;
    }
    if (records[i].smid > max_smid) max_smid = records[i].smid;
  }
  cluster_event *events = malloc((size_t)(n / cluster_size + 1) * 2 * sizeof *events);
  int *parent = malloc(((size_t)max_smid + 1) * sizeof *parent);
  int *group_size = malloc(((size_t)max_smid + 1) * sizeof *group_size);
  bool *seen = calloc((size_t)max_smid + 1, sizeof *seen);
  occ_timeline_status s = OCC_TIMELINE_NOMEM;
  if (events && parent && group_size && seen) {
    out->peak_clusters = peak(records, n, cluster_size, events);
    placement(records, n, cluster_size, max_smid, parent, group_size, seen, out);
    s = OCC_TIMELINE_OK;
  }
  free(seen);
  free(events);
  free(parent);
  free(group_size);
  return s;
}
