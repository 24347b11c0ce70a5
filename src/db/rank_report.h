/* rank_report.h - one rank's `occcalc run --json` report read for
 * `occcalc report` (model/run_merge.h merges them): read a row at a time,
 * checked, and handed up as plain figures, so that cJSON stays in the
 * readers of JSON documents (db/) and the writers (render/).
 *
 * The report is untrusted input. Everything the merge reads is checked:
 * the schema, each field's type and range, no key twice in any object
 * (cJSON keeps both), a top-level launch_count equal to the sum of its
 * rows', no row's "ranks" (a merged report's field) and no
 * "merged_reports". A refusal names the field. */
#ifndef OCC_DB_RANK_REPORT_H
#define OCC_DB_RANK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The schema of `occcalc run --json` that the merge reads. */
#define OCC_RANK_REPORT_SCHEMA 3

/* The largest count or time (in us) a row may give, and the largest sum
 * the merge keeps: 2^53, past which a double no longer holds every whole
 * number, so that a sum is never shown with wrong digits. */
#define OCC_RANK_REPORT_MAX 9007199254740992.0

typedef struct occ_rank_report occ_rank_report;

/* The report's own figures; a _known false where it does not say. */
typedef struct occ_rank_report_head {
  const char *program; /* NULL where not a string; owned by the report */
  double exit_status;
  bool exit_status_known;
  double launch_count;
  double profiled_launch_count; /* counters.profiled_launch_count */
  bool profiled_known;
  double overhead_s; /* counters.overhead_s: occcalc's time in the process */
  bool overhead_known;
} occ_rank_report_head;

/* One row's figures; strings owned by the report. */
typedef struct occ_rank_report_row {
  /* The configuration (kernel object, grid, cluster, launch type, the
   * SM's configuration, theoretical occupancy) as canonical bytes: two
   * rows are one configuration when these are equal. */
  const unsigned char *key;
  size_t key_size;
  const char *name, *mangled_name;
  int64_t grid[3], block[3]; /* block: {0, 0, 0} where the kernel has none */
  double theoretical_occupancy;
  bool theoretical_known;
  int64_t device_ordinal;
  double launch_count, counter_launch_count, total_time_us;
  double achieved_occupancy;
  bool achieved_known;
  const void *metric_at; /* for occ_rank_report_next_metric */
} occ_rank_report_row;

typedef struct occ_rank_report_metric {
  const char *name;
  double value;
  bool known; /* false: null */
} occ_rank_report_metric;

/* A reader of text (size bytes, not NUL-terminated; it must outlive the
 * reader). Returns 0 with *out (freed with occ_rank_report_free), or -2
 * out of memory. */
int occ_rank_report_open(const char *text, size_t size, occ_rank_report **out);

/* Reads the next row into *row (its strings and key valid until the next
 * call): 1. At the end of the report, with the report checked whole, 0:
 * occ_rank_report_head_of then holds its figures. -1 with why (why_size
 * bytes) when the report is refused, -2 out of memory. Each row is
 * checked before it is handed up; what needs the whole report (the top
 * level's fields, launch_count against the rows' sum, a key given twice
 * at the top level) is checked at the end, so a caller that merges rows
 * as they come drops its merge on -1. */
int occ_rank_report_next(occ_rank_report *report, occ_rank_report_row *row,
                         char *why, size_t why_size);

void occ_rank_report_free(occ_rank_report *report);

/* The report's own figures, once occ_rank_report_next returned 0. */
const occ_rank_report_head *occ_rank_report_head_of(const occ_rank_report *r);

/* The next of row's metrics into *m, in the report's order; false after
 * the last. */
bool occ_rank_report_next_metric(occ_rank_report_row *row,
                                 occ_rank_report_metric *m);

/* The row last read as compact JSON without what is each rank's own (launches,
 * device_ordinal, device, cause, achieved_null_reason, metrics), for the
 * merged row; malloc'd, NULL out of memory. */
char *occ_rank_report_row_json(occ_rank_report *report);

/* Keeps cJSON's allocation hooks on the reports' arenas (hold true)
 * until released (false), so that several threads may each read their
 * own reports at once: cJSON's hooks are global, and installing them
 * around each parse, as a lone reader does, would race. While held, no
 * other cJSON call may allocate. Two parses at once still both store
 * into cJSON's global error record (reset at every parse; occcalc reads
 * each parse's end instead) and glibc's localeconv buffer (the same C
 * locale's values): races on memory nothing here reads, which a thread
 * sanitizer would report. */
void occ_rank_report_hold_hooks(bool hold);

#endif
