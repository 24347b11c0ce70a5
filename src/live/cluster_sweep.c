/* cluster_sweep.c - verify --sweep's cluster cases (cluster_sweep.h). */
#include "live/cluster_sweep.h"

#include <stdio.h>
#include <string.h>

int occ_cluster_sweep_count(const occ_device *d, int n) {
  if (d->cc_major < 9 || n <= 0)
    return 0;
  return n / 10 > 0 ? n / 10 : 1;
}

occ_gpu_status occ_verify_cluster_sweep(occ_gpu *gpu, int n, uint64_t seed,
                                        const occ_verify_options *options,
                                        occ_cluster_sweep_fn fn, void *context,
                                        occ_cluster_sweep_summary *summary,
                                        char *err, size_t err_size) {
  memset(summary, 0, sizeof *summary);
  const occ_device *d = occ_gpu_device(gpu);
  /* A stream apart from the kernel cases' (seed itself). */
  uint64_t state = seed ^ UINT64_C(0x636c7573746572); /* "cluster" */
  for (int i = 0; i < n; i++) {
    if (options->deadline_s > 0 && occ_gpu_now_s() > options->deadline_s) {
      snprintf(err, err_size,
               "the sweep's cluster cases stopped at the time "
               "limit after %d of %d",
               i, n);
      return OCC_GPU_ERR_TIMEOUT;
    }
    occ_kernel kernel;
    occ_cluster cluster;
    occ_sweep_cluster_case(d, &state, &kernel, &cluster);
    occ_cluster_verify v;
    occ_gpu_status s =
        occ_verify_cluster(gpu, &kernel, &cluster, options, &v, err, err_size);
    if (s != OCC_GPU_OK)
      return s;
    occ_cluster_sweep_add(summary, &v);
    if (fn)
      fn(context, i, &v);
  }
  return OCC_GPU_OK;
}
