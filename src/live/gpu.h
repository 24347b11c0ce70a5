/* gpu.h - the live GPU: device properties from the driver, the probe kernel
 * and a user's module. With counter.c, the only code of occcalc that touches
 * CUDA.
 *
 * The binary links no CUDA library (never -lcuda, nor the CUDA runtime), so
 * it starts on machines without an NVIDIA driver and no run pays for CUDA's
 * start-up; the first live call opens libcuda.so.1 with dlopen and fetches
 * the driver API through cuGetProcAddress, and the calls that ask the CUDA
 * occupancy API open the CUDA runtime (cudart.h); a sweep's probes are
 * compiled ahead with nvJitLink where it is installed (jitlink.h). Kernels are loaded with
 * the runtime (cudaLibraryLoadData), asked about with the runtime's
 * occupancy API and launched with the driver, in the device's primary
 * context, which both share. Every failing CUDA call is reported in err as
 * "CALL (FILE:LINE): ERROR_NAME: text" and returned as a status; nothing
 * here prints or exits.
 */
#ifndef OCC_GPU_H
#define OCC_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/gpudb.h"
#include "core/occ.h"
#include "model/verify.h"

typedef enum occ_gpu_status {
  OCC_GPU_OK = 0,
  OCC_GPU_ERR_CUDA,    /* a CUDA call failed; err names the call */
  OCC_GPU_ERR_DEVICE,  /* no such device, or an unknown architecture */
  OCC_GPU_ERR_TIMEOUT, /* a probe outran the verification's time limit */
  OCC_GPU_ERR_NOMEM,   /* host allocation failed */
  OCC_GPU_ERR_MODULE   /* --module: unreadable file or kernel not found */
} occ_gpu_status;

/* Opens the CUDA runtime (once per process). The live commands that ask
 * the occupancy API call it before anything else, so a missing runtime is
 * named as such: OCC_GPU_ERR_CUDA with err naming the library looked for
 * (see cudart.h). */
occ_gpu_status occ_gpu_runtime_open(char *err, size_t err_size);

/* The number of CUDA devices into *count. Fails (OCC_GPU_ERR_CUDA, naming
 * dlopen without a driver, else the driver's error name) when there are
 * none. */
occ_gpu_status occ_gpu_count(int *count, char *err, size_t err_size);

typedef struct occ_gpu occ_gpu;

/* Opens device ordinal: creates its context, reads its properties and
 * fills an occ_device from the database's generic entry for its compute
 * capability overwritten with the driver's readouts (source "driver").
 * *gpu is freed with occ_gpu_close. */
occ_gpu_status occ_gpu_open(int ordinal, const occ_gpudb *db, occ_gpu **gpu,
                            char *err, size_t err_size);

/* Releases what occ_gpu_open and the probes took; NULL-safe. */
void occ_gpu_close(occ_gpu *gpu);

/* The device as the driver reported it; lives as long as gpu. */
const occ_device *occ_gpu_device(const occ_gpu *gpu);
int occ_gpu_ordinal(const occ_gpu *gpu);

/* One probe configuration. The block is one-dimensional (occupancy depends
 * on the thread count only); all shared memory is dynamic. */
typedef struct occ_probe_config {
  int regs_per_thread;        /* the cap given to the JIT compiler */
  int block_threads;
  int64_t smem_dynamic_bytes;
  int carveout_pct;           /* 0..100 or OCC_CARVEOUT_DEFAULT */
  bool counter;               /* also read the hardware counter */
  double deadline_s;          /* occ_gpu_now_s() after which to give up */
  int expected_blocks_per_sm; /* the caller's prediction at launch (0:
                                 none): the configuration at launch can
                                 hold more than the API's count */
} occ_probe_config;

/* Runs the probe once with cfg into *run (model/verify.h): JIT
 * (cudaLibraryLoadData with the register cap, cached per cap), the
 * occupancy API of the runtime and of the driver, a timeline launch of
 * 4 x SMs x the API's blocks per SM, or the expected ones where more
 * (one block, expected to be refused, when the API says 0), with the
 * configuration the driver chose for it, the counter if asked and the
 * cooperative bound. */
occ_gpu_status occ_gpu_probe(occ_gpu *gpu, const occ_probe_config *cfg,
                             occ_probe_run *run, char *err, size_t err_size);

/* Thread block clusters (compute capability 9.0 and newer): the probe
 * launched as a cluster launch. The probe's grid and block are
 * one-dimensional, so a cluster of cluster_size blocks is launched as
 * (cluster_size, 1, 1): the occupancy API and the hardware take the
 * product of a cluster's dimensions only (make cluster-survey: 2-D and 3-D
 * shapes gave the answers of their sizes). */
typedef struct occ_cluster_probe_config {
  occ_probe_config probe; /* the kernel; probe.counter is not read */
  int cluster_size;       /* 1..16 */
  bool non_portable;      /* sets cudaFuncAttributeNonPortableClusterSizeAllowed
                             (needed above 8) */
  /* The clusters the caller expects at once (0: none expected beyond the
   * API's): under a carveout preference the GPU can hold more than the
   * API says, and the grid must hold more to measure them. */
  int64_t expected_clusters;
} occ_cluster_probe_config;

/* Runs the probe as a cluster launch: JIT (cached per cap, as
 * occ_gpu_probe), the cluster occupancy API of the runtime and of the
 * driver, then OCC_CLUSTER_PROBE_LAUNCHES timeline launches of 4 x the
 * API's clusters (or of the expected clusters where more), each counted
 * for co-resident clusters and placement.
 * OCC_GPU_ERR_DEVICE where the device has no clusters (below 9.0). A
 * launch the driver refuses is a result (launched false), not an error. */
#define OCC_CLUSTER_PROBE_LAUNCHES 3
occ_gpu_status occ_gpu_cluster_probe(occ_gpu *gpu,
                                     const occ_cluster_probe_config *cfg,
                                     occ_cluster_probe_run *run, char *err,
                                     size_t err_size);

/* Compiles the probe for every register cap of caps (count of them) that
 * is not loaded yet, ahead and in parallel on the CPU (nvJitLink, see
 * jitlink.h), and loads them, so that occ_gpu_probe and
 * occ_gpu_cluster_probe find them cached. *compiled: how many were. Where
 * nvJitLink is missing or fails, nothing is compiled ahead, why says why,
 * and the status is still OCC_GPU_OK: each probe then waits for the
 * driver's JIT, as without this call. An error is a CUDA call that
 * failed. */
occ_gpu_status occ_gpu_probe_prepare(occ_gpu *gpu, const int *caps, int count,
                                     int *compiled, char *why, size_t why_size,
                                     char *err, size_t err_size);

/* How a kernel is named on the command line: its name in the module
 * (mangled for C++), or whatever accepts(context, mangled) takes as the
 * same kernel (its readable name: the caller demangles). */
typedef struct occ_name_match {
  const char *name;
  bool (*accepts)(const void *context, const char *mangled);
  const void *context;
} occ_name_match;

/* Loads path with the runtime (cudaLibraryLoadData), finds the kernel
 * match names (exactly one; a message lists the kernels otherwise), reads
 * its attributes, then asks the occupancy API with block_threads, dynamic
 * shared memory and carveout. */
occ_gpu_status occ_gpu_module_kernel(occ_gpu *gpu, const char *path,
                                     const occ_name_match *match, int block_threads,
                                     int64_t smem_dynamic_bytes,
                                     int carveout_pct, occ_module_kernel *out,
                                     char *err, size_t err_size);

/* Monotonic seconds, for deadlines. */
double occ_gpu_now_s(void);

#endif
