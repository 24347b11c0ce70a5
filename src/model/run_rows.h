/* run_rows.h - `occcalc run`'s records joined into rows, once: each
 * launch shown with its counters and its process' refusal, the processes'
 * summaries summed into the run's cost, then the launches grouped into
 * one row per kernel and launch configuration, each row measured (times,
 * achieved occupancy, metrics). The command line reads the records
 * (live/records.h) and chooses the launches shown; each row's item is
 * computed on its device by model/run_item.h; the writers
 * (render/run_out.h) only read the rows.
 * Every lookup is a hash map (model/run_index.h): linear in the records. */
#ifndef OCC_RUN_ROWS_H
#define OCC_RUN_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/attribute.h"
#include "model/launch_record.h"
#include "model/measure.h"
#include "model/model.h"
#include "model/run_index.h"

/* What measured achieved occupancy (--measure). */
typedef enum occ_run_measure {
  OCC_MEASURE_SAMPLE, /* occcalc's PM samples of the GPUs */
  OCC_MEASURE_REPLAY, /* the Range Profiler in the program, replayed */
  OCC_MEASURE_NONE    /* launch records only */
} occ_run_measure;

/* One kernel and launch configuration, over all its launches: the
 * model's item (its device NULL when the device could not be read; name
 * the mangled symbol, readable the demangled name, owned) and the run's
 * measurements (model/measure.h). */
typedef struct occ_run_row {
  const occ_launch_record *first; /* its first launch */
  const occ_launch_record **launches;
  const occ_launch_record **counters; /* each launch's, or NULL */
  const occ_sampled_launch **sampled; /* each launch's samples, or NULL */
  occ_item item;
  occ_measure measure;
  double metric_values[OCC_RECORD_METRICS_MAX]; /* each the mean over the
                                      launches whose counters hold it */
  bool metric_known[OCC_RECORD_METRICS_MAX];
} occ_run_row;

/* Why a graph's kernel has no achieved occupancy (docs/run.md: CUPTI's
 * public profiler cannot measure each node). */
#define OCC_RUN_GRAPH_WHY "a CUDA graph's kernels are not profiled"

/* What the counters were and what the library cost the program's
 * processes (their summary records, summed). */
typedef struct occ_run_cost {
  bool counters;                      /* replay's counters in the program */
  bool sampled;                       /* --measure sample */
  int64_t launches_per_configuration; /* profiled of each; 0: all */
  bool flush;                         /* --cache-control all */
  size_t process_count;               /* processes that wrote a summary */
  double seconds;                     /* their time in the library */
  double profiler_seconds;            /* of it, starting the profiler */
  double profiled, flushed;           /* launches */
  const char *flush_failed_why; /* a process' flush failed: why, or NULL */
} occ_run_cost;

/* The counters records of a run, found from a launch: by the driver
 * call's correlation id and by the runtime call's around it (the
 * activity record of a launch carries one of them), each within its
 * process. Positions in the records, so that the records may grow
 * (--jsonl indexes them as they are read). */
typedef struct occ_run_counters {
  occ_index by_correlation, by_runtime;
} occ_run_counters;

/* An empty index. */
void occ_run_counters_init(occ_run_counters *index);

/* Indexes records[i], a counters record, under each of its keys where it
 * is the first. Returns 0, or -1 out of memory. */
int occ_run_counters_add(occ_run_counters *index,
                         const occ_launch_record *records, size_t i);

/* launch's counters record in records, or NULL. */
const occ_launch_record *occ_run_counters_of(const occ_run_counters *index,
                                             const occ_launch_record *records,
                                             const occ_launch_record *launch);

/* Frees the maps; NULL-safe. */
void occ_run_counters_free(occ_run_counters *index);

/* The launches shown joined to the other records. */
typedef struct occ_run_join {
  const occ_launch_record *const *launches; /* the caller's, not owned */
  size_t launch_count;
  /* Parallel to launches, owned: each one's counters and its process'
   * first refusal (why it has none), or NULL. */
  const occ_launch_record **counters;
  const occ_launch_record **refusals;
  occ_run_cost cost; /* the summaries summed; the options' fields unset */
  char note[OCC_RECORD_WHY_MAX + 32]; /* the report's note; "" for none */
  /* The first record of a process whose own CUPTI client was refused,
   * or NULL, and how many processes (distinct ids) said so. */
  const occ_launch_record *client_refused;
  size_t client_refused_count;
} occ_run_join;

/* Joins launches (launch_count of them, chosen from records, in record
 * order) to the records' counters, refusals and summaries: one pass over
 * the records, one over the launches. Returns 0, or -1 out of memory;
 * either way join is to be freed with occ_run_join_free. */
int occ_run_join_records(occ_run_join *join, const occ_launch_record *records,
                         size_t record_count,
                         const occ_launch_record *const *launches,
                         size_t launch_count);

/* Frees join's arrays; NULL-safe. */
void occ_run_join_free(occ_run_join *join);

/* How the rows are measured. */
typedef struct occ_run_measure_spec {
  occ_run_measure measure;
  int64_t counter_launches; /* replay: profiled of each configuration;
                               0: every launch */
  int metric_count;         /* --metrics: the counters' values after
                               achieved occupancy */
  const char *sample_why;   /* sample: why no launch is sampled, or NULL */
} occ_run_measure_spec;

/* join's launches grouped into rows in the order each configuration first
 * ran, each row's launches, counters and samples (sampled: parallel to
 * join's launches, or NULL) in launch order, and each row measured
 * (model/measure.h) but its item not built: occ_run_row_compute
 * (model/run_item.h) computes it on the row's device. Returns 0 with *rows
 * (*row_count of them, freed with occ_run_rows_free), or -1 out of
 * memory with none. */
int occ_run_rows_group(const occ_run_join *join,
                       const occ_sampled_launch *sampled,
                       const occ_run_measure_spec *spec, occ_run_row **rows,
                       size_t *row_count);

/* Frees the rows, their arrays and each item's readable name (owned by
 * the row); NULL-safe. */
void occ_run_rows_free(occ_run_row *rows, size_t row_count);

/* Numbers the kernel and launch configuration of each of
 * launches[0..count) (as a row groups them, the shared memory the driver
 * configured aside) into sampled[i].kernel: 1 for the first met, then
 * 2, ... (model/attribute.h pools each kernel's rate over its launches).
 * Returns 0, or -1 out of memory. */
int occ_run_number_kernels(const occ_launch_record *const *launches,
                           size_t count, occ_sampled_launch *sampled);

#endif
