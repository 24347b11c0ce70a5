/* launch_record.h - what the injection library (libocc_inject.so, loaded
 * into a program by the CUDA driver) tells `occcalc run`: fixed-size binary
 * records appended to the file named by OCCCALC_RUN_OUT.
 *
 * Every record is one write(2) of OCC_RECORD_BYTES (under PIPE_BUF), on a
 * file opened with O_APPEND, so the records of several threads and of child
 * processes never interleave. The reader joins a launch and its counters by
 * (pid, correlation id). Plain C types only: no CUDA header is needed to
 * read a record. In the model layer, below both: the injection library
 * (inject/) writes it, the reader (live/records.c) and run's writers
 * (render/run_out.c) read it. */
#ifndef OCC_LAUNCH_RECORD_H
#define OCC_LAUNCH_RECORD_H

#include <stdint.h>
#include <string.h>

#define OCC_RECORD_MAGIC 0x3152434fu /* "OCR1" */
#define OCC_RECORD_BYTES 1024
#define OCC_RECORD_NAME_MAX 480
#define OCC_RECORD_WHY_MAX 160
#define OCC_RECORD_DEVICE_NAME_MAX 96
/* The achieved occupancy metric and up to this many --metrics. */
#define OCC_RECORD_METRICS_MAX 8

/* The environment between occcalc and the library. */
#define OCC_ENV_OUT "OCCCALC_RUN_OUT"           /* the records' file */
#define OCC_ENV_COUNTERS "OCCCALC_RUN_COUNTERS" /* "1": profile */
#define OCC_ENV_METRICS "OCCCALC_RUN_METRICS"   /* extra metrics, a,b,c */
#define OCC_ENV_FLUSH_MS "OCCCALC_RUN_FLUSH_MS" /* stream records (jsonl) */
/* Launches of each configuration profiled: a count, "0" for all. */
#define OCC_ENV_COUNTER_LAUNCHES "OCCCALC_RUN_COUNTER_LAUNCHES"
/* "all": the caches flushed before each profiled launch (--cache-control). */
#define OCC_ENV_CACHE_CONTROL "OCCCALC_RUN_CACHE_CONTROL"
/* The sampler's gate, "FD:DEV:INODE" (live/sampler.h) */
#define OCC_ENV_GATE "OCCCALC_RUN_GATE"

/* The metric achieved occupancy is read from, as Nsight Compute names it. */
#define OCC_ACHIEVED_METRIC "sm__warps_active.avg.pct_of_peak_sustained_active"

typedef enum occ_record_kind {
  OCC_RECORD_LAUNCH = 1,  /* one kernel launch (a CUPTI activity record) */
  OCC_RECORD_COUNTERS = 2,/* the metrics of one launch */
  OCC_RECORD_NO_COUNTERS = 3, /* why a process' launches have no counters */
  OCC_RECORD_SUMMARY = 4, /* what the library cost its process, at exit */
  OCC_RECORD_CLIENT_REFUSED = 5 /* the process' own CUPTI client was
                                   refused (libocc_preload.so): name the
                                   call, why the error */
} occ_record_kind;

/* OCC_RECORD_SUMMARY's values[], value_count of them; its why, when the
 * caches were to be flushed and could not be, says why. */
typedef enum occ_summary_value {
  OCC_SUMMARY_SECONDS,          /* the process' time in the library: its
                                   start, its callbacks, the profiled
                                   launches (their replay) and its exit */
  OCC_SUMMARY_PROFILER_SECONDS, /* of them, opening and starting the
                                   profiler */
  OCC_SUMMARY_PROFILED,         /* launches profiled (counted) */
  OCC_SUMMARY_FLUSHED,          /* launches with the caches flushed before */
  OCC_SUMMARY_VALUES
} occ_summary_value;

typedef enum occ_launch_type {
  OCC_LAUNCH_REGULAR = 0,
  OCC_LAUNCH_COOPERATIVE = 1,
  OCC_LAUNCH_COOPERATIVE_MULTI = 2,
  OCC_LAUNCH_CLUSTER = 3          /* a regular launch with cluster dims */
} occ_launch_type;

/* Where the counters record's --metrics begin (see values). */
#define OCC_RECORD_FIRST_METRIC 2
#define OCC_DURATION_METRIC "gpu__time_duration.sum"

typedef struct occ_launch_record {
  uint32_t magic, kind;
  int32_t pid;
  int32_t device;                 /* the process' device ordinal */
  int32_t cc_major, cc_minor;     /* LAUNCH: the device's, read inside the
                                     program; 0 when not read */
  int32_t sm_count;
  uint32_t context, stream;
  uint32_t correlation;           /* the launching API call's (LAUNCH); the
                                     driver call's (COUNTERS) */
  uint32_t runtime_correlation;   /* COUNTERS: the runtime call around the
                                     driver's, or 0 */
  uint32_t graph_id;              /* 0: not from a graph */
  uint64_t graph_node_id;
  int32_t grid[3], block[3], cluster[3];
  int32_t regs_per_thread;
  int32_t smem_static_bytes, smem_dynamic_bytes;
  int32_t local_bytes_per_thread;
  int32_t carveout_requested_pct; /* -1: none requested; the attribute at
                                     launch (carveout_preferred_pct),
                                     else CUPTI's (without the profiler) */
  int32_t smem_executed_bytes;    /* the SM's shared memory at launch;
                                     0: unknown (always, under the
                                     profiler: see inject.c) */
  int32_t launch_type;            /* occ_launch_type */
  uint64_t start_ns, end_ns;
  /* OCC_RECORD_COUNTERS: values[0] achieved percent, values[1] the
   * kernel's time in ns (gpu__time_duration.sum: under the profiler the
   * activity record's times are 0), then --metrics from
   * OCC_RECORD_FIRST_METRIC in their order; value_count of them valid. */
  int32_t value_count;
  double values[OCC_RECORD_FIRST_METRIC + OCC_RECORD_METRICS_MAX];
  char why[OCC_RECORD_WHY_MAX];   /* NO_COUNTERS: the reason */
  char name[OCC_RECORD_NAME_MAX]; /* mangled; COUNTERS: the range's name */
  /* LAUNCH: the launch's attributes at launch time, read in the driver
   * call's callback (the function's attributes, overridden by
   * cuLaunchKernelEx's own): CUPTI's activity record has them only in
   * part, and under the profiler not even that. Appended after the name,
   * so that a record without them (all zero) reads as "not read". */
  int32_t at_launch_known;        /* OCC_AT_LAUNCH_* bits: which of the
                                     four below were read (the others 0) */
  int32_t carveout_preferred_pct; /* -1: no preference (CUDA's default) */
  int32_t max_dynamic_smem_bytes; /* the function's opt-in maximum */
  int32_t cluster_non_portable;   /* 1: sizes past 8 allowed */
  int32_t cluster_policy;         /* occ_cluster_policy */
  /* LAUNCH: the board's name as the program's driver gives it
   * (cuDeviceGetName, "NVIDIA H100 80GB HBM3"); empty when not read. */
  char device_name[OCC_RECORD_DEVICE_NAME_MAX];
} occ_launch_record;

enum {
  OCC_AT_LAUNCH_CARVEOUT = 1,
  OCC_AT_LAUNCH_MAX_DYNAMIC_SMEM = 2,
  OCC_AT_LAUNCH_NON_PORTABLE = 4,
  OCC_AT_LAUNCH_POLICY = 8,
  OCC_AT_LAUNCH_ALL = 15
};

/* The most bytes a size field may hold: far above any GPU's shared
 * memory or a thread's local memory, far below an int32's overflow when
 * added. */
#define OCC_RECORD_SIZE_MAX (1 << 24)

/* CUclusterSchedulingPolicy's values. */
typedef enum occ_cluster_policy {
  OCC_CLUSTER_POLICY_DEFAULT = 0,
  OCC_CLUSTER_POLICY_SPREAD = 1,
  OCC_CLUSTER_POLICY_LOAD_BALANCING = 2
} occ_cluster_policy;

_Static_assert(sizeof(occ_launch_record) <= OCC_RECORD_BYTES,
               "a record is one atomic write");

/* r a record of kind from process pid, every other field zero: the
 * fields every record has, as the injection library and the preload
 * library both start theirs. */
static inline void occ_record_start(occ_launch_record *r, occ_record_kind kind,
                                    int32_t pid) {
  memset(r, 0, sizeof *r);
  r->magic = OCC_RECORD_MAGIC;
  r->kind = (uint32_t)kind;
  r->pid = pid;
}

/* A launch's time in microseconds: its activity record's, else (under the
 * profiler, where those times are 0) its counters' gpu__time_duration. */
static inline double occ_launch_duration_us(const occ_launch_record *launch,
                                            const occ_launch_record *counters) {
  if (launch->end_ns > launch->start_ns)
    return (double)(launch->end_ns - launch->start_ns) / 1000;
  if (counters && counters->value_count > 1) return counters->values[1] / 1000;
  return 0;
}

/* Splits a --metrics list (text, cut in place) at its commas into names,
 * at most max (empty names skipped). Returns the count, or -1 when there
 * are more than max. The one rule by which occcalc checks the list and
 * the library reads it. */
static inline int occ_metrics_split(char *text, const char **names, int max) {
  int n = 0;
  char *save = NULL;
  for (char *m = strtok_r(text, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    if (n == max) return -1;
    names[n++] = m;
  }
  return n;
}

#endif
