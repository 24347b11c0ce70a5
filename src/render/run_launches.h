/* run_launches.h - a run's launches as the trace (run_trace.c) and the
 * SVG timeline (run_timeline.c) draw them: those with times, by start,
 * each on the lane of its process and stream. */
#ifndef OCC_RUN_LAUNCHES_H
#define OCC_RUN_LAUNCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/run_out.h"

/* One launch: rec is row->launches[i], on lanes[lane]. */
typedef struct occ_run_launch {
  const occ_run_row *row;
  size_t i;
  const occ_launch_record *rec;
  size_t lane;
} occ_run_launch;

/* A process and stream. */
typedef struct occ_run_lane {
  int32_t pid;
  uint32_t stream;
} occ_run_lane;

typedef struct occ_run_launches {
  occ_run_launch *launches; /* the launches with a start and a later end,
                               by start */
  size_t count;
  occ_run_lane *lanes; /* by process, then stream */
  size_t lane_count;
  uint64_t origin_ns;   /* the first start; 0 without launches */
  uint64_t last_end_ns; /* the latest end; 0 without launches */
} occ_run_launches;

/* Fills ls (zeroed by the caller) from rep's rows. Returns 0, or -1 out
 * of memory; either way occ_run_launches_free frees what it holds. */
int occ_run_launches_collect(occ_run_launches *ls, const occ_run_report *rep);
void occ_run_launches_free(occ_run_launches *ls);

/* The launch's achieved occupancy (0..1) into *v: its PM samples' value,
 * else its counters'; false when it has neither. */
bool occ_run_launch_achieved(const occ_run_launch *l, double *v);

/* The name of GPU device (the driver's board name where the records have
 * it) from the first launch on it whose row has a device; NULL where none
 * has. Lives as long as the report. */
const char *occ_run_launches_device_name(const occ_run_launches *ls,
                                         int32_t device);

#endif
