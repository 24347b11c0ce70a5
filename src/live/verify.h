/* verify.h - the live verifier: a prediction checked against the CUDA
 * occupancy API (cudart's cudaOccupancyMaxActiveBlocksPerMultiprocessor,
 * with the driver's answer beside it), the measured residency and the achieved occupancy of a
 * probe kernel with the same resources, and the random sweep that measures
 * the calculator's accuracy. The GPU work is in gpu.c; this file decides
 * what to run and whether the numbers agree; verify_out.c writes them. */
#ifndef OCC_VERIFY_H
#define OCC_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "live/gpu.h"
#include "core/cluster.h"
#include "core/occ.h"

typedef struct occ_verify_options {
  bool counter;      /* read the hardware counter (loads CUPTI) */
  double deadline_s; /* occ_gpu_now_s() after which to stop; 0: none */
} occ_verify_options;

/* The checks a verification makes, as indexes of occ_checks[]; bit
 * (1u << index) of occ_verify.made and .failed. */
typedef enum occ_check_index {
  OCC_CHECK_API,          /* API == prediction */
  OCC_CHECK_MEASURED_MIN, /* min resident == prediction at launch */
  OCC_CHECK_MEASURED_MAX, /* max resident == prediction at launch */
  OCC_CHECK_COOPERATIVE,  /* coop bound == prediction x SMs */
  OCC_CHECK_CONFIG,       /* SM configuration == prediction at launch */
  OCC_CHECK_DRIVER_API,   /* the driver's occupancy API == cudart's */
  OCC_CHECK_COUNT
} occ_check_index;

struct occ_verify;

/* One check: a row, so a new check is one more row that the judge, the
 * text and JSON writers and the sweep summary all pick up. */
typedef struct occ_check {
  const char *key;      /* JSON: "differences" and summary "checks" */
  const char *summary;  /* the sweep summary's row: "API == prediction" */
  const char *observed; /* the "differs" line: "the API says" 8, */
  const char *expected; /* "the prediction" 10 */
  bool in_verdict;      /* a difference makes occ_verify.agree false */
  /* Fills the two numbers compared; false when the check was not made
   * (the cooperative launch was not tried, the configuration not read or
   * not predicted). */
  bool (*judge)(const occ_device *device, const struct occ_verify *v,
                int64_t *observed, int64_t *expected);
} occ_check;

extern const occ_check occ_checks[OCC_CHECK_COUNT];

/* One configuration verified. */
typedef struct occ_verify {
  occ_kernel requested;   /* the configuration asked for */
  occ_kernel probe;       /* what the probe ran: its registers, all shared
                             memory dynamic, a 1-D block, 1 barrier */
  bool regs_exact;        /* the probe uses the requested registers */
  occ_result prediction;  /* occ_compute of probe on the device */
  occ_probe_run run;
  unsigned made;          /* bits of the checks made */
  unsigned failed;        /* bits of the checks made that disagree */
  bool agree;             /* no check in the verdict failed */
} occ_verify;

/* Judges v->run against v->prediction with every row of occ_checks:
 * fills made, failed and agree. Pure. */
void occ_verify_judge(const occ_device *device, occ_verify *v);

/* --module: true when the occupancy API's answer for the module's kernel
 * is the prediction (OCC_CHECK_API, the only check of the verdict made
 * without a launch). */
bool occ_module_agrees(const occ_module_kernel *module,
                       const occ_result *prediction);

/* --module: the bits (as occ_verify.failed) of the checks made without a
 * launch that disagree: OCC_CHECK_API and OCC_CHECK_DRIVER_API. */
unsigned occ_module_failed(const occ_module_kernel *module,
                           const occ_result *prediction);

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
  int checks[OCC_CHECK_COUNT]; /* agreements per check made */
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

/* --- Thread block clusters --- */

/* One cluster launch verified: the offline rule (core/cluster.h, with the
 * device's surveyed layout) against cudart's cudaOccupancyMaxActiveClusters,
 * the driver's answer beside it, and the clusters measured co-resident
 * (occ_gpu_cluster_probe). */
typedef struct occ_cluster_verify {
  occ_kernel requested;
  occ_cluster cluster;
  occ_kernel probe;           /* what the probe ran (as occ_verify.probe) */
  occ_result prediction;      /* occ_compute of probe */
  occ_cluster_result cluster_prediction; /* layout_known false: no layout */
  occ_cluster_probe_run run;
  /* The checks; a check not made (no layout to predict from, no launch)
   * is neither made nor failed. */
  bool api_checked, api_agrees;           /* prediction == cudart */
  bool driver_agrees;                     /* the driver's == cudart's */
  bool measured_checked, measured_agrees; /* measured min == max == cudart */
  bool placement_agrees;      /* no cluster had two blocks on one SM */
  bool agree;                 /* every check made agrees */
} occ_cluster_verify;

/* Judges v->run against v->cluster_prediction: fills the checks. Pure. */
void occ_verify_cluster_judge(occ_cluster_verify *v);

/* Verifies kernel launched in clusters of cluster on gpu (compute
 * capability 9.0+). A cluster shape the core refuses (occ_cluster_check)
 * is OCC_GPU_ERR_DEVICE with the reason in err; a disagreement is not an
 * error, it is v->agree == false. */
occ_gpu_status occ_verify_cluster(occ_gpu *gpu, const occ_kernel *kernel,
                                  const occ_cluster *cluster,
                                  const occ_verify_options *options,
                                  occ_cluster_verify *v, char *err,
                                  size_t err_size);

/* Draws a cluster case for a sweep: a kernel as occ_sweep_case, and a
 * cluster of 1..16 blocks along x (non_portable above 8). Pure. */
void occ_sweep_cluster_case(const occ_device *device, uint64_t *state,
                            occ_kernel *kernel, occ_cluster *cluster);

#endif
