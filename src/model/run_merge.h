/* run_merge.h - `occcalc report FILE...`: the `occcalc run --json`
 * reports of several processes (the ranks of an srun, mpirun or torchrun
 * job, on one host or many) merged into one report whose rows are summed
 * across them, with each row's per-rank breakdown.
 *
 * The merge streams: each report is read a row at a time
 * (db/rank_report.h: each row parsed and checked), each row folded into
 * the merged table as it is read, and the report freed before the next,
 * so that a job's memory is the merged table and one report's text. A row is found by a hash of its configuration and a metric
 * by a hash of its name: a job of R ranks of K configurations, each of M
 * metrics, costs time in R x K x M, not R x K x K. */
#ifndef OCC_RUN_MERGE_H
#define OCC_RUN_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/rank_report.h"

/* One report merged: its file and its own figures. */
typedef struct occ_merge_report {
  char *label;   /* the file's name as given */
  char *program; /* NULL where the report does not say */
  double exit_status;
  bool exit_status_known;
  double launch_count;
  double profiled_launch_count;
  bool profiled_known;
  double overhead_s;
  bool overhead_known;
} occ_merge_report;

/* A row's figures in one report: 40 bytes, R x K of them in a job (512
 * ranks of 5,000 configurations: 100 MB). */
typedef struct occ_merge_rank {
  uint32_t report; /* index in occ_run_merge.reports */
  int32_t device_ordinal;
  double launch_count, counter_launch_count, total_time_us;
  double achieved_occupancy; /* NaN: not measured (null) */
} occ_merge_rank;

/* A metric of a row: the mean weighted by each report's measured
 * launches, known once a report measured it. */
typedef struct occ_merge_metric {
  uint32_t row;  /* index in occ_run_merge.rows */
  uint32_t name; /* index in occ_run_merge.metric_names */
  uint32_t next; /* the row's next metric, or OCC_MERGE_NONE */
  double mean, weight;
} occ_merge_metric;

#define OCC_MERGE_NONE UINT32_MAX

/* One configuration, summed over the reports that ran it. */
typedef struct occ_merge_row {
  unsigned char *key; /* the configuration's canonical bytes */
  size_t key_size;
  uint64_t hash;
  char *json; /* the first report's row without each rank's own fields:
                 compact JSON, for the JSON writer */
  char *name, *mangled_name;
  int64_t grid[3], block[3];
  double theoretical_occupancy;
  bool theoretical_known;
  double launch_count, counter_launch_count, total_time_us;
  double achieved_occupancy, achieved_weight; /* known: weight > 0 */
  uint32_t first_metric, last_metric;         /* OCC_MERGE_NONE: none */
  occ_merge_rank *ranks; /* one per report that has the row, in order */
  size_t rank_count, rank_capacity;
} occ_merge_row;

typedef struct occ_run_merge {
  occ_merge_report *reports;
  size_t report_count, report_capacity;
  occ_merge_row *rows; /* in the order first met */
  size_t row_count, row_capacity;
  char **metric_names;
  size_t metric_name_count, metric_name_capacity;
  occ_merge_metric *metrics;
  size_t metric_count, metric_capacity;
  double launch_count;
  double overhead_s; /* over the reports that say */
  bool overhead_known;
  struct occ_merge_table *row_table, *name_table, *metric_table;
  uint64_t seed;
} occ_run_merge;

/* A merge with no report yet; NULL out of memory. */
occ_run_merge *occ_run_merge_new(void);

/* Adds one report: text (size bytes, not NUL-terminated) read from the
 * file named label. Returns 0; or -1 with why (why_size bytes) saying
 * why it is not a run report or cannot be merged (a configuration twice
 * in it, a sum past OCC_RANK_REPORT_MAX); or -2 out of memory. After -1
 * or -2 the merge holds part of the report and is only fit for
 * occ_run_merge_free. */
int occ_run_merge_add(occ_run_merge *merge, const char *label, const char *text,
                      size_t size, char *why, size_t why_size);

/* Adds the reports merged in from (read after merge's, as if added to it
 * one by one: the same rows in the same order), so that two threads can
 * each merge part of a job. from is left only fit for occ_run_merge_free.
 * Returns 0, -1 with why (a sum past OCC_RANK_REPORT_MAX) or -2 out of
 * memory. */
int occ_run_merge_absorb(occ_run_merge *merge, occ_run_merge *from, char *why,
                         size_t why_size);

void occ_run_merge_free(occ_run_merge *merge);

#endif
