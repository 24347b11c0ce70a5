/* run_out.h - the writers of `occcalc run`'s report: one row per kernel
 * and launch configuration, as text (80 columns), JSON (schema 3), CSV,
 * and one JSON line per launch record (--jsonl). They only format the
 * rows the model joined (model/run_rows.h) and the run command computed
 * (cli/run_cmd.c). */
#ifndef OCC_RUN_OUT_H
#define OCC_RUN_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "core/occ.h"
#include "render/render.h"
#include "model/launch_record.h"
#include "model/attribute.h"
#include "model/measure.h"
#include "model/pm_sample.h"
#include "model/model.h"
#include "model/run_rows.h"

typedef struct occ_run_report {
  const char *program;
  int status;                      /* the program's */
  size_t launch_count;             /* records shown */
  occ_run_row *rows;
  size_t row_count;
  const char *const *metric_names; /* --metrics, in order */
  int metric_count;
  const char *note;                /* one line for the end, or NULL */
  size_t skipped_record_count;     /* records of the file refused */
  const char *skipped_record_reason; /* the first's place and why, or NULL */
  const char *records_unread_reason; /* why the file was not read to its
                                      end (a cap, an error), or NULL */
  /* The first process whose own CUPTI client was refused, or NULL, and
   * how many were. */
  const occ_launch_record *client_refused;
  size_t client_refused_count;
  occ_run_cost cost;
  occ_run_measure measure;
  const char *measure_why;         /* why this measurement ran */
  const occ_sampler_status *sampler; /* sample: each device, or NULL */
  uint64_t samples_skipped;        /* samples of the file refused */
} occ_run_report;

/* The row's kernel and limiter columns, the likely cause: 80 columns.
 * Every name from the program is escaped (text/text_safe.h). */
void occ_run_print_text(FILE *out, const occ_run_report *report);

/* The notes on the records' file, "occcalc: note: ..." each: the records
 * skipped, why it was not read to its end, and the program's own CUPTI
 * client refused (the text report's last lines; on their own where a
 * report has no place for them). */
void occ_run_print_record_notes(FILE *out, const occ_run_report *report);

/* The schema-3 document: root, "program", "exit_status", "rows" (each
 * with the shared "kernel" object and its "launches"), "note",
 * "skipped_record_count", "skipped_record_reason",
 * "records_unread_reason" and "cupti_client_refused". Returns 0, or -1
 * after saying so on stderr. */
int occ_run_print_json(FILE *out, const occ_run_report *report);

/* A header and one line per row. */
void occ_run_print_csv(FILE *out, const occ_run_report *report);

/* The report in format: OCC_FORMAT_JSON, OCC_FORMAT_CSV, or any other
 * as the text. Returns 0, or -1 when the JSON could not be written (out
 * of memory, said on stderr). */
int occ_run_print(FILE *out, occ_format format, const occ_run_report *report);

/* One compact JSON object of a launch record and a newline (readable is
 * its demangled name; counters NULL when not measured). */
void occ_run_print_jsonl(FILE *out, const occ_launch_record *launch,
                         const char *readable,
                         const occ_launch_record *counters,
                         const char *const *metric_names, int metric_count);

#endif
