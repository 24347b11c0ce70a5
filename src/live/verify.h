/* verify.h - the live verifier: a prediction checked against the CUDA
 * occupancy API (cudart's cudaOccupancyMaxActiveBlocksPerMultiprocessor,
 * with the driver's answer beside it), the measured residency and the achieved occupancy of a
 * probe kernel with the same resources, and the random sweep that measures
 * the calculator's accuracy. The GPU work is in gpu_*.c; this file decides
 * what to run; model/verify.h holds the results and judges whether the
 * numbers agree; render/verify_out.c writes them. */
#ifndef OCC_VERIFY_H
#define OCC_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "live/gpu.h"
#include "core/cluster.h"
#include "core/occ.h"
#include "model/verify.h"

typedef struct occ_verify_options {
  bool counter;      /* read the hardware counter (loads CUPTI) */
  double deadline_s; /* occ_gpu_now_s() after which to stop; 0: none */
} occ_verify_options;

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
