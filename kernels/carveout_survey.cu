/* carveout_survey.cu - how many blocks an SM really holds under each
 * shared-memory carveout preference, beside what the occupancy API says.
 *
 * For every preference 0..100 % and a range of per-block shared-memory
 * sizes, a probe kernel is launched with far more blocks than fit; each
 * block counts itself in and out of its SM, and the largest count seen on
 * each SM is its residency. Writes CSV to stdout, one row per
 * configuration: static,regs,block,dyn,carve,api,min,max,err.
 *
 * tests/survey/h100-carveout.csv is its output on an H100; the unit test
 * core/launch_rule_matches_h100_survey checks the calculator against it.
 * Build and run on a GPU machine: make carveout-survey.
 */
#include <cstdio>
#include <cuda_runtime.h>

#include "survey_device.cuh"

/* STATIC bytes of static shared memory (none when 0) plus the dynamic
 * size of the launch. The count is taken down before the barrier, while
 * every warp of the block is still resident, so it never overstates. */
template <int STATIC>
__global__ void survey_probe(int *in_sm, int *peak, unsigned long long spin_ns) {
  extern __shared__ int dynamic_smem[];
  __shared__ int static_smem[STATIC > 0 ? STATIC / 4 : 1];
  if (threadIdx.x == 0) {
    unsigned sm = sm_id();
    atomicMax(&peak[sm], atomicAdd(&in_sm[sm], 1) + 1);
  }
  unsigned long long t0 = global_ns();
  while (global_ns() - t0 < spin_ns) {
  }
  if (STATIC > 0 && spin_ns == 1) { /* never: keeps the static array */
    static_smem[threadIdx.x % (STATIC > 0 ? STATIC / 4 : 1)] = 1;
    dynamic_smem[0] = static_smem[0];
  }
  if (threadIdx.x == 0) atomicSub(&in_sm[sm_id()], 1);
  __syncthreads();
}

static int sm_count;
static int *in_sm, *peak;

template <int STATIC>
static void survey(int carveout, int dyn, int block) {
  auto kernel = survey_probe<STATIC>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       dyn > 48 * 1024 ? dyn : 48 * 1024);
  cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                       carveout);
  int api = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, kernel, block, dyn);
  cudaFuncAttributes attrs;
  cudaFuncGetAttributes(&attrs, kernel);
  cudaMemset(peak, 0, sm_count * sizeof(int));
  cudaMemset(in_sm, 0, sm_count * sizeof(int));
  /* Three waves of the most blocks any configuration here can hold. */
  kernel<<<3 * 32 * sm_count, block, dyn>>>(in_sm, peak, 20000);
  cudaError_t e = cudaDeviceSynchronize();
  int seen[1024], lo = 1 << 30, hi = 0;
  cudaMemcpy(seen, peak, sm_count * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < sm_count; i++) {
    if (seen[i] < lo) lo = seen[i];
    if (seen[i] > hi) hi = seen[i];
  }
  printf("%d,%d,%d,%d,%d,%d,%d,%d,%d\n", (int)attrs.sharedSizeBytes,
         attrs.numRegs, block, dyn, carveout, api, lo, hi, (int)e);
}

int main() {
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
  if (sm_count <= 0 || sm_count > 1024 ||
      cudaMalloc(&in_sm, 4096) != cudaSuccess ||
      cudaMalloc(&peak, 4096) != cudaSuccess) {
    fprintf(stderr, "carveout_survey: no usable GPU\n");
    return 1;
  }
  printf("static,regs,block,dyn,carve,api,min,max,err\n");
  const int sizes[] = {0,    1,    128,  129,   1000,  1024,  1500,  2048,
                       2500, 3000, 3072, 4000,  5000,  6000,  7168,  9000,
                       12000, 16384, 20000, 30000, 50000, 100000};
  const int few[] = {0, 1000, 3000, 6000, 12000};
  for (int d : sizes)
    for (int c = 0; c <= 100; c++) survey<0>(c, d, 32);
  for (int d : few)
    for (int c = 0; c <= 100; c++) survey<2048>(c, d, 32);
  for (int block : {256, 96})
    for (int d : few)
      for (int c = 0; c <= 100; c++) survey<0>(c, d, block);
  return 0;
}
