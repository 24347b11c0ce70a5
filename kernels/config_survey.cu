/* config_survey.cu - the shared-memory configuration the driver chooses
 * for a launch, read from CUPTI's kernel activity record
 * (sharedMemoryExecuted), beside the residency it gives and the occupancy
 * API's answer.
 *
 * For the default preference (-1) and every preference 0..100 %, kernels
 * with and without static shared memory and with several register counts,
 * several block sizes and dynamic sizes: a probe is launched with more
 * blocks than fit, each block counts itself in and out of its SM, and the
 * largest count seen on each SM is its residency. CSV on stdout:
 *   static,regs,block,dyn,carve,api,min,max,executed,err
 * carve -1 is the default preference. "config_survey sample K" runs every
 * K-th configuration only (for a run under ncu, which names each launch's
 * launch__shared_mem_config_size).
 *
 * Build and run on a GPU machine: make config-survey.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cupti.h>

#include "survey_config.cuh"
#include "survey_device.cuh"

/* LIVE values kept live across the spin raise the register count; STATIC
 * bytes of static shared memory (none when 0). The count is taken down
 * before the barrier, while every warp of the block is resident. */
template <int LIVE, int STATIC>
__global__ void survey_probe(int *in_sm, int *peak, float *sink,
                             unsigned long long spin_ns) {
  extern __shared__ int dynamic_smem[];
  __shared__ int static_smem[STATIC > 0 ? STATIC / 4 : 1];
  float v[LIVE > 0 ? LIVE : 1];
#pragma unroll
  for (int i = 0; i < LIVE; i++) v[i] = sink[(threadIdx.x + i) & 255];
  if (threadIdx.x == 0) {
    unsigned sm = sm_id();
    atomicMax(&peak[sm], atomicAdd(&in_sm[sm], 1) + 1);
  }
  unsigned long long t0 = global_ns();
  while (global_ns() - t0 < spin_ns) {
#pragma unroll
    for (int i = 0; i < LIVE; i++) v[i] = v[i] * 1.0001f + v[(i + 1) % (LIVE > 0 ? LIVE : 1)];
  }
  if (spin_ns == 1) { /* never: keeps the arrays and the values */
    float s = 0;
#pragma unroll
    for (int i = 0; i < LIVE; i++) s += v[i];
    static_smem[threadIdx.x % (STATIC > 0 ? STATIC / 4 : 1)] = (int)s;
    dynamic_smem[0] = static_smem[0];
    sink[threadIdx.x] = s;
  }
  if (threadIdx.x == 0) atomicSub(&in_sm[sm_id()], 1);
  __syncthreads();
}

static long every = 1, index_;

template <int LIVE, int STATIC>
static void survey(int carveout, int dyn, int block) {
  if (index_++ % every != 0) return;
  auto kernel = survey_probe<LIVE, STATIC>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       dyn > 48 * 1024 ? dyn : 48 * 1024);
  cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                       carveout);
  int api = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, kernel, block, dyn);
  /* ncu stops at a launch that fails: under it, only launchable ones. */
  if (every > 1 && api == 0) return;
  cudaFuncAttributes attrs;
  cudaFuncGetAttributes(&attrs, kernel);
  probe_seen seen = probe_launch(kernel, block, dyn);
  printf("%d,%d,%d,%d,%d,%d,%d,%d,%ld,%d\n", (int)attrs.sharedSizeBytes,
         attrs.numRegs, block, dyn, carveout, api, seen.lo, seen.hi,
         seen.executed, (int)seen.err);
}

static int last_carveout = 100;

template <int LIVE, int STATIC>
static void survey_kernel(const int *dyns, int ndyn, const int *blocks,
                          int nblock) {
  for (int carve = -1; carve <= last_carveout; carve++)
    for (int b = 0; b < nblock; b++)
      for (int d = 0; d < ndyn; d++) survey<LIVE, STATIC>(carve, dyns[d], blocks[b]);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "sample") == 0) every = atol(argv[2]);
  if (every < 1) every = 1;
  /* "blocks": the default preference over every block size in steps of
   * 32 threads and a few that are not whole warps. */
  bool every_block = argc == 2 && strcmp(argv[1], "blocks") == 0;
  survey_start("config_survey");
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("# %s, %d SMs\n", prop.name, sm_count);
  printf("static,regs,block,dyn,carve,api,min,max,executed,err\n");
  static const int dyns[] = {0, 1024, 4096, 7168, 16384, 40960, 102400};
  static int blocks[48] = {32, 64, 128, 256, 512, 768, 1024};
  const int nd = sizeof dyns / sizeof *dyns;
  int nb = 7;
  if (every_block) {
    last_carveout = -1;
    nb = 0;
    for (int b = 32; b <= 1024; b += 32) blocks[nb++] = b;
    static const int odd[] = {100, 407, 416, 480, 677, 704, 927, 960, 1000};
    for (int i = 0; i < 9; i++) blocks[nb++] = odd[i];
  }
  survey_kernel<0, 0>(dyns, nd, blocks, nb);
  survey_kernel<24, 0>(dyns, nd, blocks, nb);
  survey_kernel<56, 0>(dyns, nd, blocks, nb);
  survey_kernel<120, 0>(dyns, nd, blocks, nb);
  survey_kernel<0, 2048>(dyns, nd, blocks, nb);
  survey_kernel<24, 2048>(dyns, nd, blocks, nb);
  survey_kernel<56, 2048>(dyns, nd, blocks, nb);
  survey_kernel<120, 2048>(dyns, nd, blocks, nb);
  return 0;
}
