/* run_merge.h - `occcalc report FILE...`: the `occcalc run
 * --json` reports of several processes (the ranks of an srun, mpirun or
 * torchrun job, on one host or many) merged into one report whose rows
 * are summed across them, with each row's per-rank breakdown.
 *
 * The reports are untrusted input: each is checked as a whole (JSON, the
 * schema, every field the merge reads) before any of it is merged, and a
 * bad one is refused with one reason naming the file and the field. */
#ifndef OCC_RUN_MERGE_H
#define OCC_RUN_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* The schema of `occcalc run --json` that the merge reads. */
#define OCC_RUN_MERGE_SCHEMA 3

typedef struct occ_run_merge occ_run_merge;

/* A merge with no report yet; NULL out of memory. */
occ_run_merge *occ_run_merge_new(void);

/* Adds one report: text (size bytes, not NUL-terminated) read from the
 * file named label. Returns 0; or -1 with why (why_size bytes) saying
 * why it is not a run report, the merge unchanged; or -2 out of memory. */
int occ_run_merge_add(occ_run_merge *merge, const char *label, const char *text,
                      size_t size, char *why, size_t why_size);

/* The merged report, a new document the caller frees with cJSON_Delete:
 *   "schema", "merged_reports" (each report's file, program, exit
 *   status, launch count, and from its "counters" the launches profiled
 *   and occcalc's time in its processes, null where it does not say),
 *   "launch_count" (the sum), "overhead_s" (the sum over the reports
 *   that say, null when none does) and "rows": each
 *   configuration (the kernel object, its mangled_name included, grid,
 *   cluster, launch type, the SM's configuration, theoretical occupancy)
 *   once, in the order first met, without the rank's own device_ordinal
 *   and device,
 *   with launch_count, counter_launch_count and total_time_us summed,
 *   mean_time_us over them, achieved occupancy and each metric the mean
 *   weighted by each report's measured launches (null where none was
 *   measured), and "ranks": that row's figures in each report that has it
 *   (its device_ordinal among them).
 * NULL out of memory. */
cJSON *occ_run_merge_result(const occ_run_merge *merge);

void occ_run_merge_free(occ_run_merge *merge);

#endif
