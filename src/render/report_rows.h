/* report_rows.h - the report's flat occupancy figures described once, as
 * rows of JSON key, text label, value and unit, in the manner of curl's
 * variables[] (and of ncu_rows.h): the text report's "Occupancy" lines and
 * the JSON report's keys both walk these rows, so they cannot disagree on
 * a name or a value. */
#ifndef OCC_REPORT_ROWS_H
#define OCC_REPORT_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/report.h"

typedef struct occ_report_value {
  const char *key;    /* the JSON report's key, at its root */
  const char *label;  /* the text's label; NULL: JSON only (the text says
                         it in another row's unit) */
  bool fraction;      /* an occupancy: a fraction in JSON, a percentage in
                         the text */
  double value;
  char unit[128];     /* what the text writes after the value */
} occ_report_value;

enum { OCC_OCCUPANCY_ROW_COUNT = 5 };

/* Fills values[0..OCC_OCCUPANCY_ROW_COUNT-1] from rep, in the JSON
 * report's order: the launch's figures, which for a cluster launch of a
 * known layout are the cluster launch's (its blocks at once over the SMs,
 * an average where domains leave SMs without a cluster). */
void occ_occupancy_rows(const occ_report *rep,
                        occ_report_value values[OCC_OCCUPANCY_ROW_COUNT]);

/* The cluster launch whose figures the top-level rows show: rep's, when
 * its board's layout is known; NULL for a launch without clusters, or one
 * whose cluster figures are not known (the cluster-less ones stand: an
 * upper bound). */
const occ_cluster_result *occ_report_cluster_launch(const occ_report *rep);

/* What the SM holds when the kernel is launched, under the driver's
 * configuration (occ.h's launch rule), beside the figures it can differ
 * from. */
typedef struct occ_at_launch {
  double active_blocks_per_sm; /* an average for a cluster launch, as the
                                  top-level rows' */
  double active_warps_per_sm;
  double occupancy;            /* a fraction */
  int64_t max_active_clusters; /* a cluster launch's clusters at once on the
                                  GPU at launch, the same quantity as the
                                  cluster object's max_active_clusters */
  bool clusters_known;         /* false: not a cluster launch, or one whose
                                  cluster figures are not known */
  bool differs_from_api;       /* not what the occupancy API's count gives
                                  for the same launch (with or without
                                  clusters, as asked) */
} occ_at_launch;

/* The launch's at-launch figures: with clusters true, for a cluster
 * launch (occ_report_cluster_launch) the cluster rule's over the blocks
 * the SM holds at launch, compared with the top-level rows; otherwise,
 * and for every other launch, the kernel's without clusters, compared with
 * the occupancy API's count. */
occ_at_launch occ_report_at_launch(const occ_report *rep, bool clusters);

#endif
