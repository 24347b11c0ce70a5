/* verify.h - what the live verifier found, as plain data: a probe run's
 * and a module kernel's numbers (filled by the live backend, src/live/),
 * the checks that judge them against a prediction, the verdicts and the
 * sweep's counts. The judges are pure; the model holds these results and
 * the renderers read them, neither touching the GPU (live/verify.h runs
 * the probes). */
#ifndef OCC_MODEL_VERIFY_H
#define OCC_MODEL_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/occ.h"

/* The functions whose answers a probe run and a module kernel carry:
 * the CUDA occupancy API (cudart's), and the driver's beside it. */
extern const char occ_gpu_api_function[];        /* cudaOccupancy... */
extern const char occ_gpu_driver_api_function[]; /* cuOccupancy... */

/* What one probe run found. Times are milliseconds. */
typedef struct occ_probe_run {
  int regs_per_thread;        /* what the JIT-compiled probe really uses */
  int64_t smem_static_bytes;  /* the probe's own: expected 0 */
  int64_t local_bytes_per_thread;
  int max_threads_per_block;  /* of the compiled probe */
  int api_blocks_per_sm;      /* occ_gpu_api_function's answer (cudart) */
  int driver_api_blocks_per_sm; /* occ_gpu_driver_api_function's answer */

  int64_t grid_blocks;        /* blocks launched for the timeline */
  bool launched;              /* false: the launch was refused */
  char launch_error[96];      /* the refusal's error name */
  int measured_min;           /* resident blocks per SM, over all SMs */
  int measured_max;
  int sms_seen;               /* SMs that ran at least one block */
  double achieved_timeline;   /* 0..1, from the probe's timeline */

  bool counter_ok;            /* achieved_counter holds a value */
  double achieved_counter;    /* 0..1, sm__warps_active...pct / 100 */
  char counter_error[256];    /* why not, when counter_ok is false */

  /* The SM's shared-memory configuration the driver chose for the
   * timeline launch (CUPTI's sharedMemoryExecuted); -1 when unknown. */
  int64_t smem_config_executed_bytes;
  char smem_config_error[256]; /* why unknown */

  bool coop_checked;          /* the cooperative bound was tried */
  bool coop_fits;             /* a launch of api x SMs blocks succeeded */
  bool coop_over_refused;     /* one block more was refused as too large */
  int64_t cooperative_max_blocks; /* api x SMs when both hold, else -1 */
  char coop_note[192];

  double jit_ms, launch_ms, counter_ms, coop_ms;
  bool jit_cached;            /* the module came from this process' cache */
} occ_probe_run;

/* What a cluster probe run found (live/gpu.h, occ_gpu_cluster_probe). */
typedef struct occ_cluster_probe_run {
  int regs_per_thread;          /* what the JIT-compiled probe really uses */
  int api_blocks_per_sm;        /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
  int api_max_active_clusters;  /* cudaOccupancyMaxActiveClusters (cudart) */
  int driver_api_max_active_clusters; /* the driver's, beside it */
  int max_potential_cluster_size; /* cuOccupancyMaxPotentialClusterSize */

  int64_t grid_blocks;          /* WAVES x api clusters x size (one cluster
                                   when the API says 0) */
  bool launched;                /* false: the launch was refused */
  char launch_error[96];
  int launches;                 /* timeline launches made */
  /* Clusters with all their blocks resident at once: the peak of each
   * launch, the lowest and the highest over the launches. */
  int measured_min, measured_max;
  int measured_blocks_per_sm_max; /* most blocks resident on one SM */
  /* Placement, over every launch: clusters with two blocks on one SM, and
   * the groups of SMs joined by a cluster (two SMs that held blocks of one
   * cluster are in one group, transitively; -1 for clusters of one block),
   * with their SM counts, largest first, from the launch that joined the
   * most. A group lies inside one scheduling domain. On the H100 clusters
   * of 3 to 16 blocks joined exactly the domains that fit them; clusters
   * of 2 only ever paired the same two SMs (66 groups of 2: the TPCs), so
   * for them the groups are not the domains. */
  int64_t clusters_sharing_sm;
  int sm_groups;
  int sm_group_sms[OCC_CLUSTER_DOMAINS_MAX];
  double jit_ms, launch_ms;
} occ_cluster_probe_run;

/* The attributes of a kernel in a user's cubin, fatbin or PTX file, and
 * the occupancy API's answers for it (the runtime's and the driver's).
 * The kernel is not launched. */
typedef struct occ_module_kernel {
  char name[256];        /* the kernel's name in the module (mangled) */
  int regs_per_thread;
  int64_t smem_static_bytes;
  int64_t local_bytes_per_thread;
  int64_t const_bytes;
  int max_threads_per_block;
  int ptx_version, binary_version; /* e.g. 90 for 9.0 */
  int api_blocks_per_sm;        /* occ_gpu_api_function's answer (cudart) */
  int driver_api_blocks_per_sm; /* occ_gpu_driver_api_function's answer */
  unsigned failed;              /* the checks that failed, bits of
                                   occ_check_index (occ_module_failed),
                                   decided once by the source */
} occ_module_kernel;

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

/* --- Thread block clusters --- */

/* One cluster launch verified: the offline rule (core/cluster.h, with the
 * device's surveyed layout) against cudart's cudaOccupancyMaxActiveClusters
 * and the driver's answer beside it, and the clusters measured co-resident
 * (occ_gpu_cluster_probe) against the rule at launch. As for blocks
 * (occ_verify), the API's answers follow the occupancy API's rule and the
 * GPU the configuration the driver chooses, which a carveout preference
 * can make larger: the two predictions differ there. */
typedef struct occ_cluster_verify {
  occ_kernel requested;
  occ_cluster cluster;
  occ_kernel probe;           /* what the probe ran (as occ_verify.probe) */
  occ_result prediction;      /* occ_compute of probe */
  occ_cluster_result cluster_prediction; /* layout_known false: no layout */
  /* The rule over what the SM holds at launch
   * (prediction.launch_active_blocks_per_sm): the clusters the GPU should
   * hold at once. Equal to cluster_prediction without a carveout
   * preference. */
  occ_cluster_result launch_cluster_prediction;
  occ_cluster_probe_run run;
  /* The checks; a check not made (no layout to predict from, no launch)
   * is neither made nor failed. */
  bool api_checked, api_agrees;           /* prediction == cudart */
  bool driver_agrees;                     /* the driver's == cudart's */
  bool measured_checked, measured_agrees; /* measured min == max == the
                                             clusters at launch */
  bool placement_agrees;      /* no cluster had two blocks on one SM */
  bool agree;                 /* every check made agrees */
} occ_cluster_verify;

/* Fills v->prediction, cluster_prediction and launch_cluster_prediction
 * from v->probe and v->cluster on device. Returns OCC_OK, or
 * OCC_ERR_INVALID_DEVICE where the core refuses the cluster or the layout
 * (an error of occ_compute as it is). Pure. */
occ_status occ_verify_cluster_predict(const occ_device *device,
                                      occ_cluster_verify *v);

/* The clusters the GPU should hold at once, which the measurement is
 * judged against: the prediction at launch where the layout is known;
 * without one, cudart's answer where the SM holds at launch what the
 * occupancy API's rule says (the API knows the layout); else unknown
 * (false: the measurement is not judged). */
bool occ_verify_cluster_expected(const occ_cluster_verify *v,
                                 int64_t *clusters);

/* True when the prediction at launch is known and differs from the
 * occupancy API's rule's: the text and the sweep show both. */
bool occ_verify_cluster_launch_differs(const occ_cluster_verify *v);

/* Judges v->run against v->cluster_prediction (the API's answers) and
 * occ_verify_cluster_expected (the clusters measured): fills the checks.
 * Pure. */
void occ_verify_cluster_judge(occ_cluster_verify *v);

typedef struct occ_cluster_sweep_summary {
  int cases;
  int agree;                            /* occ_cluster_verify.agree */
  int api_checked, api_agree;           /* offline rule == cudart */
  int measured_checked, measured_agree; /* measured == at launch */
  int placement_agree; /* no cluster had two blocks on one SM */
  int driver_agree;    /* the driver's answer == cudart's */
  int launch_differs;  /* the prediction at launch is not the API's */
} occ_cluster_sweep_summary;

/* Counts one verified case into *summary. Pure. */
void occ_cluster_sweep_add(occ_cluster_sweep_summary *summary,
                           const occ_cluster_verify *v);

#endif
