/* pm_sample.h - what occcalc's sampler (live/sampler.c, a child process
 * of occcalc, never the program's) tells `occcalc run` about each GPU it
 * samples with CUPTI's PM sampling: fixed-size sample records in a
 * temporary file, and one status per device through a pipe, once when
 * sampling starts and once when it has stopped.
 *
 * Plain C types only: the reader (live/sample_file.c), the attribution
 * (model/attribute.c) and the tests need no CUDA header. */
#ifndef OCC_PM_SAMPLE_H
#define OCC_PM_SAMPLE_H

#include <stdint.h>

#define OCC_SAMPLE_MAGIC 0xa5u
/* The metrics sampled: a launch's achieved occupancy is
 * sum(warps_active) / (sum(cycles_active) x max warps per SM) over the
 * samples inside its interval (on an H100, the same value ncu's
 * sm__warps_active.avg.pct_of_peak_sustained_active gives). */
#define OCC_SAMPLE_WARPS_METRIC "sm__warps_active.sum"
#define OCC_SAMPLE_CYCLES_METRIC "sm__cycles_active.sum"

enum {
  /* A gap in the samples: [start, start + duration) had samples that the
   * sampler did not get (the hardware buffer overflowed, the host image
   * filled); warps and cycles are 0. */
  OCC_SAMPLE_LOST = 1
};

/* One sample of one device: 32 bytes, written in the order decoded.
 * Samples of an idle GPU (no active cycle) are not written. */
typedef struct occ_pm_sample {
  uint64_t start_ns;     /* the GPU's timestamp: the Activity API's clock */
  uint32_t duration_ns;
  uint16_t device;       /* CUDA's ordinal, as the program numbers it */
  uint8_t magic;         /* OCC_SAMPLE_MAGIC */
  uint8_t flags;         /* OCC_SAMPLE_LOST */
  double warps_active;   /* sm__warps_active.sum over the sample */
  double cycles_active;  /* sm__cycles_active.sum */
} occ_pm_sample;

_Static_assert(sizeof(occ_pm_sample) == 32, "a sample is 32 bytes");

/* How a device's sampling went. */
typedef enum occ_sampler_state {
  OCC_SAMPLER_OFF = 0,         /* not asked for (another --device) */
  OCC_SAMPLER_ON,              /* sampling (or sampled to the end) */
  OCC_SAMPLER_UNSUPPORTED,     /* the device has no PM sampling */
  OCC_SAMPLER_BUSY,            /* another profiler holds its counters */
  OCC_SAMPLER_PRIVILEGES,      /* profiling is not permitted */
  OCC_SAMPLER_FAILED           /* any other CUPTI or driver error */
} occ_sampler_state;

#define OCC_SAMPLER_DEVICES_MAX 16
#define OCC_SAMPLER_WHY_MAX 200

typedef struct occ_sampler_device {
  int32_t ordinal;
  int32_t state;              /* occ_sampler_state */
  int32_t max_warps_per_sm;   /* the device's, from the driver */
  int32_t overflow;           /* the hardware buffer overflowed (times) */
  uint64_t interval_ns;       /* the sampling interval set */
  uint64_t sample_count;      /* samples decoded, to the final status */
  uint64_t idle_count;        /* of them, idle ones not written */
  uint64_t lost_count;        /* samples missing from the timeline */
  uint64_t first_ns, last_ns; /* the first sample's start, the last's end */
  uint64_t image_full_count;  /* decodes stopped by a full host image */
  double decode_seconds;      /* CPU time decoding and evaluating */
  double init_seconds;        /* loading CUPTI and cuInit */
  double config_seconds;      /* the availability and host configuration */
  double start_seconds;       /* Enable, and SetConfig to Start */
  double drain_seconds;       /* after the program ended, until the
                                 samples covered its last launch */
  char chip[32];
  char why[OCC_SAMPLER_WHY_MAX]; /* not ON, or stopped early: why */
} occ_sampler_device;

/* The status the sampler writes three times: when every device it was
 * given is configured on the host (its counters found free, or not: a
 * busy GPU shows here), when each has started sampling (or failed), and
 * at its end. */
typedef struct occ_sampler_status {
  uint32_t magic;             /* OCC_SAMPLER_STATUS_MAGIC */
  int32_t device_count;       /* devices[] valid */
  int32_t phase;              /* OCC_SAMPLER_CLAIMED, _STARTED, _FINAL */
  int32_t pad;
  /* _FINAL: the samples' file's bytes it covers. The child may write
   * past them while it ends; they are not read. */
  uint64_t samples_bytes;
  occ_sampler_device devices[OCC_SAMPLER_DEVICES_MAX];
} occ_sampler_status;

#define OCC_SAMPLER_STATUS_MAGIC 0x53505331u /* "SPS1" */

/* CLAIMED: every device enabled (its counters held) or failed; STARTED:
 * every claimed device samples or has failed since; FINAL: stopped. */
enum { OCC_SAMPLER_CLAIMED = 1, OCC_SAMPLER_STARTED, OCC_SAMPLER_FINAL };

#endif
