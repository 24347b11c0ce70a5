/* bench_core.c - time per evaluation of occcalc's table engine (the sweep
 * engine, one occ_sweep_blocks call per configuration) and of the
 * toolkit's cuda_occupancy.h over the same grid (every register count
 * 0-255 x every block size 1-1024 x 13 shared-memory sizes, on the CC 9.0
 * device), side by side, with a check that every answer is the same.
 * Reports the median of several passes of each, interleaved. */
#include "verdict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/gpudb.h"
#include "core/sweep.h"
#include "ref_header.h"

#define PASSES 7
static const int64_t smem_sizes[] = {0, 1024, 2048, 4096, 8192, 12288, 16384,
                                     24576, 32768, 40960, 49152, 65536, 98304};
#define NSMEM (sizeof smem_sizes / sizeof smem_sizes[0])
#define CASES (256L * 1024 * NSMEM)

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char *answers_core, *answers_header;

static double pass_core(const occ_sweep *sweep) {
  long i = 0;
  double t0 = now_s();
  for (int regs = 0; regs < 256; regs++)
    for (int block = 1; block <= 1024; block++)
      for (size_t s = 0; s < NSMEM; s++) {
        answers_core[i++] =
            (unsigned char)occ_sweep_blocks(sweep, block, regs, smem_sizes[s]);
      }
  return now_s() - t0;
}

static double pass_header(const cudaOccDeviceProp *p) {
  cudaOccFuncAttributes a;
  memset(&a, 0, sizeof a);
  a.maxThreadsPerBlock = 1024;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.numBlockBarriers = 1;
  cudaOccDeviceState st = ref_state(SHAREDMEM_CARVEOUT_DEFAULT);
  cudaOccResult r;
  memset(&r, 0, sizeof r);
  long i = 0;
  double t0 = now_s();
  for (int regs = 0; regs < 256; regs++)
    for (int block = 1; block <= 1024; block++)
      for (size_t s = 0; s < NSMEM; s++) {
        a.numRegs = regs;
        a.maxDynamicSharedSizeBytes = (size_t)smem_sizes[s];
        cudaOccMaxActiveBlocksPerMultiprocessor(&r, p, &a, &st, block, (size_t)smem_sizes[s]);
        answers_header[i++] = (unsigned char)r.activeBlocksPerMultiprocessor;
      }
  return now_s() - t0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  char err[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  occ_device d;
  char near[64];
  if (!db || occ_gpudb_find_cc(db, 9, 0, &d, near, sizeof near) != 0) return 2;
  d.sm_count = 132;
  cudaOccDeviceProp p = ref_prop(&d);
  double t_build = now_s();
  occ_sweep *sweep = NULL;
  if (occ_sweep_new(&d, OCC_CARVEOUT_DEFAULT, 1, &sweep) != OCC_OK) return 2;
  t_build = now_s() - t_build;
  answers_core = malloc(CASES);
  answers_header = malloc(CASES);
  if (!answers_core || !answers_header) return 2;
  double tc[PASSES], th[PASSES];
  for (int i = 0; i < PASSES; i++) {
    tc[i] = pass_core(sweep);
    th[i] = pass_header(&p);
  }
  int same = memcmp(answers_core, answers_header, CASES) == 0;
  qsort(tc, PASSES, sizeof tc[0], cmp_double);
  qsort(th, PASSES, sizeof th[0], cmp_double);
  double nc = tc[PASSES / 2] / CASES * 1e9, nh = th[PASSES / 2] / CASES * 1e9;
  printf("grid: 256 regs x 1024 block sizes x %zu smem sizes = %ld cases on cc 9.0, "
         "median of %d passes\n", NSMEM, CASES, PASSES);
  printf("  occcalc core      %6.2f ns/evaluation (occ_sweep_blocks; "
         "occ_sweep_new took %.0f us once)\n", nc, t_build * 1e6);
  printf("  cuda_occupancy.h  %6.2f ns/evaluation\n", nh);
  printf("  answers identical: %s\n", same ? "yes" : "NO");
  bool met = bench_verdict("time per evaluation, core / cuda_occupancy.h",
                           nc / nh, "x", false, 0.25);
  occ_sweep_free(sweep);
  free(answers_core);
  free(answers_header);
  occ_gpudb_free(db);
  return same && met ? 0 : 1;
}
