/* run.h - `occcalc run`'s launcher: runs a program with the injection
 * library (libocc_inject.so) that the CUDA driver loads into it, waits,
 * and hands back the program's exit status and the launch records the
 * library wrote (model/launch_record.h).
 *
 * The program keeps occcalc's stdin, stdout and stderr (stdout goes to
 * stderr when the report takes stdout: spec.stdout_to_stderr) and
 * environment (children inherit the injection through it). While it runs,
 * occcalc ignores SIGINT and SIGQUIT, as a shell running a command does:
 * a ^C stops the program and occcalc still reports. SIGTERM, SIGHUP and
 * SIGPIPE are forwarded to the program, as timeout(1) does; once it has
 * ended, the caller removes what it made and dies of the same signal
 * (result.signal, occ_run_reraise). A program that stops is continued.
 * Nothing here prints. */
#ifndef OCC_RUN_H
#define OCC_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "model/launch_record.h"
#include "live/records.h"

/* Called with each record as it is read (spec.stream), in file order:
 * the record accepted, within the result's records.at. */
typedef occ_record_fn occ_run_record_fn;

typedef struct occ_run_spec {
  char *const *argv;       /* PROGRAM ARGS... NULL-terminated; PATH searched */
  const char *inject_path; /* the library; NULL: run without it */
  bool counters;           /* profile each launch (OCCCALC_RUN_COUNTERS) */
  const char *metrics;     /* extra metrics, a comma list, or NULL */
  int64_t counter_launches; /* profiled of each configuration; 0: all */
  bool flush_caches;        /* --cache-control all */
  occ_run_record_fn stream; /* records while the program runs, or NULL */
  void *context;
  bool stdout_to_stderr;    /* the program's stdout onto occcalc's stderr */
  const char *gate;         /* OCC_ENV_GATE's value, or NULL */
} occ_run_spec;

typedef struct occ_run_result {
  /* The program's status as a shell gives it: its exit code, 128 + the
   * signal that ended it, 127 when it was not found, 126 when it could
   * not be executed. */
  int status;
  int exec_errno;           /* why exec failed (status 126 or 127), or 0 */
  /* Every record accepted, in file order, with what was skipped and why
   * the file was not read to its end (live/records.h). */
  occ_records records;
  /* SIGTERM, SIGHUP or SIGPIPE that occcalc received (or was handed by
   * occ_run_interrupt) while the program ran and forwarded to it; 0 for
   * none. The caller cleans up, then calls occ_run_reraise(signal). */
  int signal;
  int stop_count;  /* times the program stopped and occcalc continued it */
  int stop_signal; /* the signal that stopped it last */
} occ_run_result;

/* Runs spec->argv to its end. Returns 0 with *result filled (free with
 * occ_run_result_free; result->records.out_of_memory when the records
 * could not all be kept); -1 when occcalc itself could not run it (no
 * records' file, no fork) or wait for it, with the reason in why. */
int occ_run_program(const occ_run_spec *spec, occ_run_result *result,
                    char *why, size_t why_size);

void occ_run_result_free(occ_run_result *result);

/* Does what receiving sig does while the program runs: forwards it to the
 * program and records it in result.signal. For a writer that meets EPIPE
 * with SIGPIPE ignored. Async-signal-safe. */
void occ_run_interrupt(int sig);

/* Dies of sig with its default action; where that does not end the
 * process (a signal ignored when occcalc started), exits 128 + sig. */
void occ_run_reraise(int sig) __attribute__((noreturn));

/* The injection library's absolute path into buf: beside the running
 * binary (the build tree: build/libocc_inject.so next to ./occcalc's
 * build/, or the same folder), else DIR/../lib/occcalc/libocc_inject.so
 * (make install); $OCCCALC_INJECT overrides both. A readable regular file
 * only (not a directory, not /dev/zero). Returns buf, or NULL with the
 * reason, naming OCCCALC_INJECT when it was set, in why. */
const char *occ_run_find_injection(char *buf, size_t size, char *why,
                                   size_t why_size);

#endif
