/* charts.c - evaluations per second of the sweep engine, of the
 * plain core (occ_compute in a loop) and of the toolkit's cuda_occupancy.h,
 * on one grid in one run, checking that all three give identical answers.
 *
 * The grid (CC 9.0, the H100's properties, default carveout, 1 barrier):
 * every register count 0..255 x every block size 1..1024 x every shared
 * memory size from 0 to the opt-in maximum in allocation units (128 B),
 * 476 million configurations. Each (registers, shared memory) row of 1024
 * block sizes is timed per method and the rows are compared, so no method
 * needs the whole grid in memory. BENCH_SMEM_STRIDE=N (environment) takes
 * every N-th shared-memory size for a quicker run.
 *
 * The sweep engine is timed twice: as the charts and suggestions use it
 * (occ_sweep_blocks_by_threads, a row of block sizes per call) and one
 * occ_sweep_blocks call per configuration. Fails (status 1) on any
 * disagreement, or when the row form is not at least 10x faster per
 * evaluation than the header. */
#include "verdict.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/gpudb.h"
#include "ref_header.h"
#include "core/sweep.h"

#define MAX_THREADS 1024

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct timing {
  double header_s, core_s, sweep_s, single_s;
  long long evals, mismatches;
} timing;

static void run_row(const occ_device *d, const cudaOccDeviceProp *p,
                    const occ_sweep *s, int regs,
                    int64_t smem, timing *t) {
  static int header[MAX_THREADS + 1], core[MAX_THREADS + 1],
      sweep[MAX_THREADS + 1], single[MAX_THREADS + 1];
  int n = d->max_threads_per_block;
  cudaOccFuncAttributes a = ref_attr(d, regs, (size_t)smem, 1);
  cudaOccDeviceState st = ref_state(-1);

  double t0 = now_s();
  for (int threads = 1; threads <= n; threads++)
    header[threads] = ref_blocks(p, &a, &st, threads, (size_t)smem);
  double t1 = now_s();
  occ_kernel k;
  occ_kernel_init(&k);
  k.regs_per_thread = regs;
  k.smem_dynamic_bytes = smem;
  for (int threads = 1; threads <= n; threads++) {
    occ_result r;
    k.block[0] = threads;
    core[threads] = occ_compute(d, &k, &r) == OCC_OK ? r.active_blocks_per_sm : -1;
  }
  double t2 = now_s();
  occ_sweep_blocks_by_threads(s, regs, smem, 1, n, sweep + 1);
  double t3 = now_s();
  for (int threads = 1; threads <= n; threads++)
    single[threads] = occ_sweep_blocks(s, threads, regs, smem);
  double t4 = now_s();

  t->header_s += t1 - t0;
  t->core_s += t2 - t1;
  t->sweep_s += t3 - t2;
  t->single_s += t4 - t3;
  t->evals += n;
  for (int threads = 1; threads <= n; threads++)
    if (header[threads] != core[threads] || header[threads] != sweep[threads] ||
        header[threads] != single[threads])
      if (t->mismatches++ < 10)
        fprintf(stderr,
                "MISMATCH block %d regs %d smem %" PRId64
                ": header %d core %d sweep row %d sweep single %d\n",
                threads, regs, smem, header[threads], core[threads],
                sweep[threads], single[threads]);
}

int main(void) {
  char err[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  occ_device d;
  char near[256];
  if (!db || occ_gpudb_find_cc(db, 9, 0, &d, near, sizeof near) != 0) {
    fprintf(stderr, "bench_charts: %s\n", db ? "no CC 9.0 in the database" : err);
    return 2;
  }
  occ_gpudb_free(db);
  const char *stride_env = getenv("BENCH_SMEM_STRIDE");
  int stride = stride_env ? atoi(stride_env) : 1;
  if (stride < 1 || d.max_threads_per_block > MAX_THREADS) return 2;

  double b0 = now_s();
  occ_sweep *s = NULL;
  if (occ_sweep_new(&d, OCC_CARVEOUT_DEFAULT, 1, &s) != OCC_OK) return 2;
  double build_s = now_s() - b0;
  cudaOccDeviceProp p = ref_prop(&d);
  timing t = {0};
  long long smem_sizes = 0;
  for (int64_t smem = 0; smem <= d.smem_per_block_optin_bytes;
       smem += (int64_t)stride * d.smem_alloc_unit_bytes) {
    smem_sizes++;
    for (int regs = 0; regs <= 255; regs++)
      run_row(&d, &p, s, regs, smem, &t);
  }
  occ_sweep_free(s);

  double ns_header = t.header_s * 1e9 / (double)t.evals;
  double ns_core = t.core_s * 1e9 / (double)t.evals;
  double ns_sweep = t.sweep_s * 1e9 / (double)t.evals;
  double ns_single = t.single_s * 1e9 / (double)t.evals;
  printf("grid: CC %d.%d, 256 register counts x %d block sizes x %lld shared "
         "memory sizes = %lld evaluations\n",
         d.cc_major, d.cc_minor, d.max_threads_per_block, smem_sizes, t.evals);
  printf("%-18s %10.2f ns/eval %14.0f evals/s\n", "cuda_occupancy.h",
         ns_header, 1e9 / ns_header);
  printf("%-18s %10.2f ns/eval %14.0f evals/s\n", "occ_compute", ns_core,
         1e9 / ns_core);
  printf("%-18s %10.2f ns/eval %14.0f evals/s (one call per configuration)\n",
         "sweep, single", ns_single, 1e9 / ns_single);
  printf("%-18s %10.2f ns/eval %14.0f evals/s (rows of block sizes; tables "
         "built in %.2f ms)\n",
         "sweep engine", ns_sweep, 1e9 / ns_sweep, build_s * 1e3);
  printf("sweep vs header: %lld mismatches\n", t.mismatches);
  bool met = bench_verdict("sweep speed-up per evaluation over the header",
                           ns_header / ns_sweep, "x", true, 10.0);
  return t.mismatches == 0 && met ? 0 : 1;
}
