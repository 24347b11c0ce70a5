/* report_rows.h - the report's flat occupancy figures described once, as
 * rows of JSON key, text label, value and unit, in the manner of curl's
 * variables[] (and of ncu_rows.h): the text report's "Occupancy" lines and
 * the JSON report's keys both walk these rows, so they cannot disagree on
 * a name or a value. */
#ifndef OCC_REPORT_ROWS_H
#define OCC_REPORT_ROWS_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
