/* verify.h - the live verifier: a prediction checked against the CUDA
 * occupancy API, the measured residency and the achieved occupancy of a
 * probe kernel with the same resources, and the random sweep that measures
 * the calculator's accuracy. The GPU work is in gpu.c; this file decides
 * what to run and whether the numbers agree; verify_out.c writes them. */
#ifndef OCC_VERIFY_H
#define OCC_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "live/gpu.h"
#include "core/occ.h"

typedef struct occ_verify_options {
  bool counter;      /* read the hardware counter (loads CUPTI) */
  double deadline_s; /* occ_gpu_now_s() after which to stop; 0: none */
} occ_verify_options;

/* The checks a verification makes, as bits of occ_verify.failed. */
typedef enum occ_check {
  OCC_CHECK_API = 1u << 0,          /* API == prediction */
  OCC_CHECK_MEASURED_MIN = 1u << 1, /* min resident == prediction at launch */
  OCC_CHECK_MEASURED_MAX = 1u << 2, /* max resident == prediction at launch */
  OCC_CHECK_COOPERATIVE = 1u << 3   /* coop bound == prediction x SMs */
} occ_check;

/* One configuration verified. */
typedef struct occ_verify {
  occ_kernel requested;   /* the configuration asked for */
  occ_kernel probe;       /* what the probe ran: its registers, all shared
                             memory dynamic, a 1-D block, 1 barrier */
  bool regs_exact;        /* the probe uses the requested registers */
  occ_result prediction;  /* occ_compute of probe on the device */
  occ_probe_run run;
  unsigned failed;        /* occ_check bits that disagree */
  bool agree;             /* prediction == API, and prediction at launch
                             == measured min == max */
} occ_verify;

/* Verifies kernel on gpu. A disagreement is not an error: it is
 * v->agree == false. */
occ_gpu_status occ_verify_kernel(occ_gpu *gpu, const occ_kernel *kernel,
                                 const occ_verify_options *options,
                                 occ_verify *v, char *err, size_t err_size);

/* Fills *kernel with a random configuration that can launch on device
 * (registers 24..255, any block size to 1024, static and dynamic shared
 * memory up to the opt-in cap, a carveout half the time), drawn from
 * *state. Pure: the same state gives the same case. */
void occ_sweep_case(const occ_device *device, uint64_t *state,
                    occ_kernel *kernel);

typedef struct occ_sweep_summary {
  int cases;
  int agree;              /* every check of occ_verify.agree */
  int api, measured_min, measured_max, cooperative; /* agreements per check */
  int regs_exact;
  int api_is_measured;    /* the API equals the measured residency */
  int launch_differs;     /* the SM holds more at launch than the API says */
  int with_carveout, with_carveout_agree; /* cases with a carveout given */
  int counter_ok;
  double timeline_max_diff; /* largest |achieved - predicted| occupancy */
  double counter_max_diff;
  int jit_compiles;
  double jit_ms, launch_ms, counter_ms, coop_ms, total_ms;
} occ_sweep_summary;

/* Called after each case; v lives until the next call. */
typedef void (*occ_sweep_fn)(void *context, int index, const occ_verify *v);

/* Verifies n random cases drawn from seed, calling fn (may be NULL) after
 * each. Stops at the first CUDA error or at the deadline. */
occ_gpu_status occ_verify_sweep(occ_gpu *gpu, int n, uint64_t seed,
                                const occ_verify_options *options,
                                occ_sweep_fn fn, void *context,
                                occ_sweep_summary *summary, char *err,
                                size_t err_size);

#endif
