/* diff_occupancy.c - the differential test: occcalc's core against NVIDIA's
 * cuda_occupancy.h (included from the toolkit, never copied), for every
 * architecture in the built-in database, over grids that cover every
 * register count, every block size, shared memory from 0 past the per-block
 * maximum at every carveout, and barriers 0-16; and occ_best_block_size
 * against the header's cudaOccMaxPotentialOccupancyBlockSize over every
 * register count x 12 shared-memory sizes x 3 carveouts x barriers 0-2,
 * and, for shared memory that grows with the block, against the same
 * function given a blockSizeToDynamicSMemSize and a block size limit
 * (attributes.maxThreadsPerBlock, the runtime's blockSizeLimit).
 * Every case occ_compute answers is also asked of the sweep engine, which
 * must agree with occ_compute. Prints the number of cases and fails on any
 * disagreement. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/gpudb.h"
#include "core/occ.h"
#include "core/sweep.h"
#include "ref_header.h"

static long long cases, failures, sweep_cases, sweep_failures, variable_cases;

/* The sweep engine of the architecture under test, one per carveout
 * (-1..100) and barrier count (0..16), built when first needed. */
#define CARVEOUTS 102
#define BARRIERS 17
static occ_sweep *sweeps[CARVEOUTS][BARRIERS];

static occ_sweep *sweep_for(const occ_device *d, const occ_kernel *k) {
  occ_sweep **s = &sweeps[k->carveout_pct + 1][k->barriers];
  if (!*s && occ_sweep_new(d, k->carveout_pct, k->barriers, s) != OCC_OK) {
    fprintf(stderr, "diff_occupancy: cc %d.%d: no sweep for carveout %d, "
            "%d barriers\n", d->cc_major, d->cc_minor, k->carveout_pct, k->barriers);
    exit(2);
  }
  return *s;
}

static void free_sweeps(void) {
  for (int c = 0; c < CARVEOUTS; c++)
    for (int b = 0; b < BARRIERS; b++) {
      occ_sweep_free(sweeps[c][b]);
      sweeps[c][b] = NULL;
    }
}

/* The sweep engine must answer what occ_compute does: active blocks and
 * warps, occupancy and the limiter bits. */
static void check_sweep(const occ_device *d, const occ_kernel *k, const occ_result *want) {
  const occ_sweep *s = sweep_for(d, k);
  occ_sweep_point got;
  occ_status st = occ_sweep_eval(s, want->threads_per_block, k->regs_per_thread,
                                 k->smem_static_bytes + k->smem_dynamic_bytes, &got);
  sweep_cases++;
  if (st == OCC_OK && got.active_blocks_per_sm == want->active_blocks_per_sm &&
      got.active_warps_per_sm == want->active_warps_per_sm &&
      got.occupancy == want->occupancy && got.limited_by == want->limited_by)
    return;
  if (sweep_failures++ < 10)
    fprintf(stderr, "SWEEP DIFFERS cc %d.%d block %d regs %d smem %" PRId64
            " carveout %d barriers %d: blocks %d vs %d, limiters %#x vs %#x\n",
            d->cc_major, d->cc_minor, want->threads_per_block, k->regs_per_thread,
            k->smem_static_bytes + k->smem_dynamic_bytes, k->carveout_pct, k->barriers,
            got.active_blocks_per_sm, want->active_blocks_per_sm, got.limited_by,
            want->limited_by);
}

/* The header's limiting factors, restricted to the limits that equal the
 * final answer. (The header keeps a factor set before the barrier limit
 * lowers the answer; occcalc reports only limits that bind.) */
static unsigned expected_limiters(const cudaOccResult *r) {
  int limits[5] = {r->blockLimitWarps, r->blockLimitBlocks, r->blockLimitRegs,
                   r->blockLimitSharedMem, r->blockLimitBarriers};
  unsigned bits = 0;
  for (int i = 0; i < 5; i++)
    if (limits[i] == r->activeBlocksPerMultiprocessor) bits |= 1u << i;
  return bits;
}

static void check(const occ_device *d, const cudaOccDeviceProp *prop,
                  const occ_kernel *k) {
  cudaOccFuncAttributes attr = ref_kernel_attr(d, k);
  cudaOccDeviceState state = ref_state(k->carveout_pct);

  int threads = (int)occ_block_threads(k);
  cudaOccResult ref;
  memset(&ref, 0, sizeof ref);
  cudaOccError rs = cudaOccMaxActiveBlocksPerMultiprocessor(
      &ref, prop, &attr, &state, threads, (size_t)k->smem_dynamic_bytes);
  occ_result got;
  occ_status gs = occ_compute(d, k, &got);
  cases++;
  int ok = (rs == CUDA_OCC_SUCCESS) == (gs == OCC_OK);
  if (ok && gs == OCC_OK)
    ok = got.active_blocks_per_sm == ref.activeBlocksPerMultiprocessor &&
         got.limit_warps == ref.blockLimitWarps &&
         got.limit_blocks == ref.blockLimitBlocks &&
         got.limit_regs == ref.blockLimitRegs &&
         got.limit_smem == ref.blockLimitSharedMem &&
         got.limit_barriers == ref.blockLimitBarriers &&
         got.regs_per_block == ref.allocatedRegistersPerBlock &&
         got.smem_per_block_bytes == (int64_t)ref.allocatedSharedMemPerBlock &&
         got.limited_by == expected_limiters(&ref);
  if (gs == OCC_OK) check_sweep(d, k, &got);
  if (!ok && failures++ < 20)
    fprintf(stderr,
            "DISAGREE cc %d.%d block %d regs %d smem %" PRId64 "+%" PRId64
            " barriers %d carveout %d: occcalc %d (w%d b%d r%d s%d bar%d "
            "lim %#x, status %d) header %d (w%d b%d r%d s%d bar%d lim %#x, "
            "status %d)\n",
            d->cc_major, d->cc_minor, threads, k->regs_per_thread,
            k->smem_static_bytes, k->smem_dynamic_bytes, k->barriers,
            k->carveout_pct, got.active_blocks_per_sm, got.limit_warps,
            got.limit_blocks, got.limit_regs, got.limit_smem,
            got.limit_barriers, got.limited_by, gs,
            ref.activeBlocksPerMultiprocessor, ref.blockLimitWarps,
            ref.blockLimitBlocks, ref.blockLimitRegs, ref.blockLimitSharedMem,
            ref.blockLimitBarriers, expected_limiters(&ref), rs);
}

/* Splits a total into static and dynamic shared memory the way a kernel
 * would: static up to 48 KB, the rest dynamic. */
static void set_smem(occ_kernel *k, int64_t total, int split) {
  int64_t static_max = split ? 4096 : 0;
  k->smem_static_bytes = total < static_max ? total : static_max;
  k->smem_dynamic_bytes = total - k->smem_static_bytes;
}

static void grid_regs_blocks(const occ_device *d, const cudaOccDeviceProp *p) {
  const int64_t smem[] = {0, 1, 1024, 4096, 12288, 48 * 1024 - 1024,
                          48 * 1024, 48 * 1024 + 1, 100 * 1024, 160 * 1024,
                          227 * 1024, 228 * 1024};
  occ_kernel k;
  occ_kernel_init(&k);
  for (int regs = 0; regs <= 255; regs++)
    for (int block = 1; block <= 1024; block++)
      for (size_t s = 0; s < sizeof smem / sizeof smem[0]; s++) {
        k.regs_per_thread = regs;
        k.block[0] = block;
        set_smem(&k, smem[s], (int)(s & 1));
        check(d, p, &k);
      }
}

static void grid_smem_carveout(const occ_device *d, const cudaOccDeviceProp *p) {
  const int blocks[] = {1, 32, 96, 128, 256, 640, 1024};
  const int regs[] = {0, 32, 64, 128};
  int64_t top = d->smem_per_block_optin_bytes + d->reserved_smem_per_block_bytes +
                4 * d->smem_alloc_unit_bytes;
  occ_kernel k;
  occ_kernel_init(&k);
  for (int carveout = -1; carveout <= 100; carveout++)
    for (int64_t total = 0; total <= top; total += d->smem_alloc_unit_bytes / 2)
      for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++) {
          k.carveout_pct = carveout;
          k.block[0] = blocks[b];
          k.regs_per_thread = regs[r];
          set_smem(&k, total, (int)(r & 1));
          check(d, p, &k);
        }
}

static void grid_barriers(const occ_device *d, const cudaOccDeviceProp *p) {
  occ_kernel k;
  occ_kernel_init(&k);
  for (int barriers = 0; barriers <= 16; barriers++)
    for (int block = 1; block <= 1024; block++)
      for (int regs = 0; regs <= 64; regs += 16)
        for (int64_t smem = 0; smem <= 8192; smem += 4096) {
          k.barriers = barriers;
          k.block[0] = block;
          k.regs_per_thread = regs;
          k.smem_static_bytes = smem;
          check(d, p, &k);
        }
}

/* occ_best_block_size against cudaOccMaxPotentialOccupancyBlockSize: the
 * block size, and the minimum grid (the header multiplies by its numSms,
 * 1 for a generic architecture without an SM count). */
static void check_best_block_size(const occ_device *d,
                                  const cudaOccDeviceProp *prop,
                                  const occ_kernel *k) {
  cudaOccFuncAttributes attr = ref_kernel_attr(d, k);
  cudaOccDeviceState state = ref_state(k->carveout_pct);
  int ref_grid = 0, ref_block = 0;
  cudaOccError rs = cudaOccMaxPotentialOccupancyBlockSize(
      &ref_grid, &ref_block, prop, &attr, &state, NULL,
      (size_t)k->smem_dynamic_bytes);
  occ_block_choice got;
  occ_status gs = occ_best_block_size(d, k, &got);
  int64_t got_grid = (int64_t)got.active_blocks_per_sm * prop->numSms;
  cases++;
  int ok = (rs == CUDA_OCC_SUCCESS) == (gs == OCC_OK);
  if (ok && gs == OCC_OK)
    ok = got.block_size == ref_block && got_grid == ref_grid &&
         (d->sm_count <= 0 || got.min_grid_size == ref_grid);
  if (!ok && failures++ < 20)
    fprintf(stderr,
            "DISAGREE best block size cc %d.%d regs %d smem %" PRId64 "+%" PRId64
            " barriers %d carveout %d: occcalc %d (grid %" PRId64
            ", status %d) header %d (grid %d, status %d)\n",
            d->cc_major, d->cc_minor, k->regs_per_thread, k->smem_static_bytes,
            k->smem_dynamic_bytes, k->barriers, k->carveout_pct, got.block_size,
            got_grid, gs, ref_block, ref_grid, rs);
}

/* The header's blockSizeToDynamicSMemSize is a plain function: the
 * kernel under test is read from here. */
static int64_t variable_constant_bytes, variable_per_thread_bytes;

static size_t variable_smem(int block_size) {
  return (size_t)(variable_constant_bytes + variable_per_thread_bytes * block_size);
}

/* --block best with --dyn-smem-per-thread and --max-threads against
 * cudaOccMaxPotentialOccupancyBlockSize with a blockSizeToDynamicSMemSize
 * and attributes.maxThreadsPerBlock. The kernel is taken to opt in to the
 * most dynamic shared memory any size tried asks for, as a program calling
 * cudaOccupancyMaxPotentialBlockSizeVariableSMem must. */
static void check_variable_best(const occ_device *d, const cudaOccDeviceProp *prop,
                                const occ_kernel *k) {
  int limit = k->max_threads_per_block > 0 && k->max_threads_per_block < d->max_threads_per_block
                  ? k->max_threads_per_block : d->max_threads_per_block;
  variable_constant_bytes = k->smem_dynamic_bytes;
  variable_per_thread_bytes = k->smem_dynamic_per_thread_bytes;
  cudaOccFuncAttributes attr = ref_kernel_attr(d, k);
  attr.maxThreadsPerBlock = limit;
  attr.maxDynamicSharedSizeBytes = variable_smem(limit);
  cudaOccDeviceState state = ref_state(k->carveout_pct);
  int ref_grid = 0, ref_block = 0;
  cudaOccError rs = cudaOccMaxPotentialOccupancyBlockSize(
      &ref_grid, &ref_block, prop, &attr, &state, variable_smem, 0);
  occ_block_choice got;
  occ_status gs = occ_best_block_size(d, k, &got);
  int64_t got_grid = (int64_t)got.active_blocks_per_sm * prop->numSms;
  cases++;
  variable_cases++;
  int ok = (rs == CUDA_OCC_SUCCESS) == (gs == OCC_OK);
  if (ok && gs == OCC_OK)
    ok = got.block_size == ref_block && got_grid == ref_grid &&
         (d->sm_count <= 0 || got.min_grid_size == ref_grid) &&
         got.max_threads_per_block == limit;
  if (!ok && failures++ < 20)
    fprintf(stderr,
            "DISAGREE variable best block size cc %d.%d regs %d smem %" PRId64
            " + %" PRId64 " + %" PRId64 "/thread limit %d carveout %d: occcalc %d "
            "(grid %" PRId64 ", status %d) header %d (grid %d, status %d)\n",
            d->cc_major, d->cc_minor, k->regs_per_thread, k->smem_static_bytes,
            k->smem_dynamic_bytes, k->smem_dynamic_per_thread_bytes,
            k->max_threads_per_block, k->carveout_pct, got.block_size, got_grid,
            gs, ref_block, ref_grid, rs);
}

static void grid_variable_best(const occ_device *d, const cudaOccDeviceProp *p) {
  const int64_t per_thread[] = {0, 1, 4, 8, 24, 64, 100, 256};
  const int64_t constant[] = {0, 1024, 12288};
  const int limits[] = {0, 33, 100, 256, 500, 1000, 1024};
  const int carveouts[] = {OCC_CARVEOUT_DEFAULT, 0, 50};
  occ_kernel k;
  occ_kernel_init(&k);
  for (int regs = 0; regs <= 255; regs += 5)
    for (size_t t = 0; t < sizeof per_thread / sizeof per_thread[0]; t++)
      for (size_t c = 0; c < sizeof constant / sizeof constant[0]; c++)
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++)
          for (size_t o = 0; o < sizeof carveouts / sizeof carveouts[0]; o++) {
            k.regs_per_thread = regs;
            k.smem_static_bytes = (regs & 1) ? 2048 : 0;
            k.smem_dynamic_bytes = constant[c];
            k.smem_dynamic_per_thread_bytes = per_thread[t];
            k.max_threads_per_block = limits[l];
            k.carveout_pct = carveouts[o];
            check_variable_best(d, p, &k);
          }
}

static void grid_best_block_size(const occ_device *d, const cudaOccDeviceProp *p) {
  const int64_t smem[] = {0, 1, 1024, 4096, 12288, 48 * 1024 - 1024,
                          48 * 1024, 48 * 1024 + 1, 100 * 1024, 160 * 1024,
                          227 * 1024, 228 * 1024};
  const int carveouts[] = {OCC_CARVEOUT_DEFAULT, 0, 50};
  occ_kernel k;
  occ_kernel_init(&k);
  for (int regs = 0; regs <= 255; regs++)
    for (size_t s = 0; s < sizeof smem / sizeof smem[0]; s++)
      for (size_t c = 0; c < sizeof carveouts / sizeof carveouts[0]; c++)
        for (int barriers = 0; barriers <= 2; barriers++) {
          k.regs_per_thread = regs;
          set_smem(&k, smem[s], (int)(s & 1));
          k.carveout_pct = carveouts[c];
          k.barriers = barriers;
          check_best_block_size(d, p, &k);
        }
}

int main(void) {
  char err[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  if (!db) {
    fprintf(stderr, "diff_occupancy: %s\n", err);
    return 2;
  }
  size_t n = occ_gpudb_arch_count(db);
  for (size_t i = 0; i < n; i++) {
    occ_device d;
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    cudaOccDeviceProp p = ref_prop(&d);
    long long before = cases, failed = failures;
    grid_regs_blocks(&d, &p);
    grid_smem_carveout(&d, &p);
    grid_barriers(&d, &p);
    grid_best_block_size(&d, &p);
    grid_variable_best(&d, &p);
    free_sweeps();
    printf("cc %2d.%d: %10lld cases, %lld disagreements\n", d.cc_major,
           d.cc_minor, cases - before, failures - failed);
  }
  occ_gpudb_free(db);
  printf("differential: %lld cases over %zu architectures, %lld disagreements\n",
         cases, n, failures);
  printf("best block with per-thread shared memory and size limits: %lld "
         "cases\n", variable_cases);
  printf("sweep engine: %lld cases, %lld differ from occ_compute\n",
         sweep_cases, sweep_failures);
  return failures || sweep_failures ? 1 : 0;
}
