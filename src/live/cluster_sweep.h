/* cluster_sweep.h - verify --sweep's cluster cases (compute capability 9.0
 * and newer): random kernels launched in clusters of 1 to 16 blocks
 * (occ_sweep_cluster_case), each verified by occ_verify_cluster, counted
 * for the sweep's summary. */
#ifndef OCC_CLUSTER_SWEEP_H
#define OCC_CLUSTER_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "live/verify.h"
#include "model/verify.h"

/* How many cluster cases a sweep of n cases adds: none below compute
 * capability 9.0, else one for every 10 cases, at least one. */
int occ_cluster_sweep_count(const occ_device *device, int n);

/* Called after each case; v lives until the next call. */
typedef void (*occ_cluster_sweep_fn)(void *context, int index,
                                     const occ_cluster_verify *v);

/* Verifies n cluster cases drawn from seed (a stream of its own, so the
 * kernel cases of the same seed stay the same), calling fn (may be NULL)
 * after each. Stops at the first CUDA error. */
occ_gpu_status occ_verify_cluster_sweep(occ_gpu *gpu, int n, uint64_t seed,
                                        const occ_verify_options *options,
                                        occ_cluster_sweep_fn fn, void *context,
                                        occ_cluster_sweep_summary *summary,
                                        char *err, size_t err_size);

#endif
