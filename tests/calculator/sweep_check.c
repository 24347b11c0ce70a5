/* sweep_check.c - the sweep engine against cuda_occupancy.h and against
 * occ_compute, for every architecture of the built-in database:
 *   full grid: every register count 0..255 (ptxas never gives more) x every warp-multiple block size
 *     x every shared-memory size at allocation granularity from 0 past the
 *     opt-in maximum (occupancy depends on threads only through warps; the
 *     next grid covers every thread count);
 *   every block size 1..max+64 x every register count x 6 smem sizes, with
 *     the limiter bits of occ_sweep_eval against occ_compute;
 *   every carveout -1..100 x every smem size at granularity and one byte
 *     either side x 3 block sizes x 2 register counts;
 *   barriers 0..16.
 * Prints the case count per architecture; fails on any disagreement. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/gpudb.h"
#include "ref_header.h"
#include "core/sweep.h"

static long long cases, failures;

static void report(const occ_device *d, const char *what, int threads,
                   int regs, int64_t smem, int carveout, int barriers, int got,
                   int want) {
  cases++;
  if (got == want) return;
  if (failures++ < 20)
    fprintf(stderr,
            "DISAGREE %s cc %d.%d block %d regs %d smem %" PRId64
            " carveout %d barriers %d: sweep %d, reference %d\n",
            what, d->cc_major, d->cc_minor, threads, regs, smem, carveout,
            barriers, got, want);
}

static occ_sweep *make_sweep(const occ_device *d, int carveout, int barriers) {
  occ_sweep *s = NULL;
  occ_status status = occ_sweep_new(d, carveout, barriers, &s);
  if (status != OCC_OK) {
    fprintf(stderr, "sweep_check: cc %d.%d: %s\n", d->cc_major, d->cc_minor,
            occ_strerror(status));
    exit(1);
  }
  return s;
}

static void full_grid(const occ_device *d, const cudaOccDeviceProp *p) {
  occ_sweep *s = make_sweep(d, OCC_CARVEOUT_DEFAULT, 1);
  cudaOccDeviceState st = ref_state(-1);
  int64_t top = d->smem_per_block_optin_bytes + 2 * d->smem_alloc_unit_bytes;
  for (int regs = 0; regs <= 255; regs++)
    for (int64_t smem = 0; smem <= top; smem += d->smem_alloc_unit_bytes) {
      cudaOccFuncAttributes a = ref_attr(d, regs, (size_t)smem, 1);
      for (int threads = d->warp_size; threads <= d->max_threads_per_block;
           threads += d->warp_size)
        report(d, "full", threads, regs, smem, -1, 1,
               occ_sweep_blocks(s, threads, regs, smem),
               ref_blocks(p, &a, &st, threads, (size_t)smem));
    }
  occ_sweep_free(s);
}

static void every_thread_count(const occ_device *d, const cudaOccDeviceProp *p) {
  occ_sweep *s = make_sweep(d, OCC_CARVEOUT_DEFAULT, 1);
  cudaOccDeviceState st = ref_state(-1);
  const int64_t smem[] = {0, 1, 4096, 48 * 1024 + 1,
                          d->smem_per_block_optin_bytes,
                          d->smem_per_block_optin_bytes + 1};
  for (size_t i = 0; i < sizeof smem / sizeof smem[0]; i++)
    for (int regs = 0; regs <= 255; regs++) {
      cudaOccFuncAttributes a = ref_attr(d, regs, (size_t)smem[i], 1);
      for (int threads = 1; threads <= d->max_threads_per_block + 64;
           threads++) {
        report(d, "threads", threads, regs, smem[i], -1, 1,
               occ_sweep_blocks(s, threads, regs, smem[i]),
               ref_blocks(p, &a, &st, threads, (size_t)smem[i]));
        occ_kernel k;
        occ_kernel_init(&k);
        k.block[0] = threads;
        k.regs_per_thread = regs;
        k.smem_dynamic_bytes = smem[i];
        occ_result r;
        occ_sweep_point pt;
        if (occ_compute(d, &k, &r) != OCC_OK ||
            occ_sweep_eval(s, threads, regs, smem[i], &pt) != OCC_OK) {
          report(d, "eval status", threads, regs, smem[i], -1, 1, 0, 1);
          continue;
        }
        report(d, "eval blocks", threads, regs, smem[i], -1, 1,
               pt.active_blocks_per_sm, r.active_blocks_per_sm);
        report(d, "eval limiters", threads, regs, smem[i], -1, 1,
               (int)pt.limited_by, (int)r.limited_by);
        report(d, "eval warps", threads, regs, smem[i], -1, 1,
               pt.active_warps_per_sm, r.active_warps_per_sm);
      }
    }
  occ_sweep_free(s);
}

static void every_carveout(const occ_device *d, const cudaOccDeviceProp *p) {
  const int threads[] = {32, 256, 1024};
  const int regs[] = {0, 64};
  int64_t top = d->smem_per_block_optin_bytes + 2 * d->smem_alloc_unit_bytes;
  for (int carveout = -1; carveout <= 100; carveout++) {
    occ_sweep *s = make_sweep(d, carveout, 1);
    cudaOccDeviceState st = ref_state(carveout);
    for (int64_t base = 0; base <= top; base += d->smem_alloc_unit_bytes)
      for (int64_t smem = base > 0 ? base - 1 : 0; smem <= base + 1; smem++)
        for (size_t r = 0; r < 2; r++) {
          cudaOccFuncAttributes a = ref_attr(d, regs[r], (size_t)smem, 1);
          for (size_t t = 0; t < 3; t++)
            report(d, "carveout", threads[t], regs[r], smem, carveout, 1,
                   occ_sweep_blocks(s, threads[t], regs[r], smem),
                   ref_blocks(p, &a, &st, threads[t], (size_t)smem));
        }
    occ_sweep_free(s);
  }
}

static void every_barrier_count(const occ_device *d,
                                const cudaOccDeviceProp *p) {
  cudaOccDeviceState st = ref_state(-1);
  for (int barriers = 0; barriers <= 16; barriers++) {
    occ_sweep *s = make_sweep(d, OCC_CARVEOUT_DEFAULT, barriers);
    for (int regs = 0; regs <= 64; regs += 8)
      for (int64_t smem = 0; smem <= 8192; smem += 4096) {
        cudaOccFuncAttributes a = ref_attr(d, regs, (size_t)smem, barriers);
        for (int threads = 1; threads <= d->max_threads_per_block; threads++)
          report(d, "barriers", threads, regs, smem, -1, barriers,
                 occ_sweep_blocks(s, threads, regs, smem),
                 ref_blocks(p, &a, &st, threads, (size_t)smem));
      }
    occ_sweep_free(s);
  }
}

int main(void) {
  char err[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  if (!db) {
    fprintf(stderr, "sweep_check: %s\n", err);
    return 2;
  }
  size_t n = occ_gpudb_arch_count(db);
  for (size_t i = 0; i < n; i++) {
    occ_device d;
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    cudaOccDeviceProp p = ref_prop(&d);
    long long before = cases, failed = failures;
    full_grid(&d, &p);
    every_thread_count(&d, &p);
    every_carveout(&d, &p);
    every_barrier_count(&d, &p);
    printf("cc %2d.%d: %10lld cases, %lld disagreements\n", d.cc_major,
           d.cc_minor, cases - before, failures - failed);
  }
  occ_gpudb_free(db);
  printf("sweep engine: %lld cases over %zu architectures, %lld disagreements\n",
         cases, n, failures);
  return failures ? 1 : 0;
}
