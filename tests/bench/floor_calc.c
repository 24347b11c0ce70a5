/* bench_floor_calc.c - the floor that one occcalc report is benchmarked
 * against (tests/bench/process.sh, tests/bench/callgrind.sh): the least a
 * C program must do to print the toolkit's answer for one configuration.
 * It evaluates cuda_occupancy.h once for an H100 SXM (properties typed in,
 * as data/gpus.json has them), 48 registers, 4096 B of static shared memory
 * and 128 threads, and prints one line. */
#include <cuda_occupancy.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  cudaOccDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  prop.computeMajor = 9;
  prop.computeMinor = 0;
  prop.maxThreadsPerBlock = 1024;
  prop.maxThreadsPerMultiprocessor = 2048;
  prop.regsPerBlock = 65536;
  prop.regsPerMultiprocessor = 65536;
  prop.warpSize = 32;
  prop.sharedMemPerBlock = 49152;
  prop.sharedMemPerMultiprocessor = 233472;
  prop.numSms = 132;
  prop.sharedMemPerBlockOptin = 232448;
  prop.reservedSharedMemPerBlock = 1024;
  cudaOccFuncAttributes attr;
  memset(&attr, 0, sizeof attr);
  attr.maxThreadsPerBlock = 1024;
  attr.numRegs = 48;
  attr.sharedSizeBytes = 4096;
  attr.numBlockBarriers = 1;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  cudaOccDeviceState state;
  memset(&state, 0, sizeof state);
  state.cacheConfig = CACHE_PREFER_NONE;
  state.carveoutConfig = -1; /* no preference (0 would mean maximum L1) */
  cudaOccResult result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, 128,
                                              0) != CUDA_OCC_SUCCESS) {
    fputs("bench_floor_calc: cuda_occupancy.h refused the configuration\n",
          stderr);
    return 1;
  }
  printf("%d blocks per SM, occupancy %.3f\n", result.activeBlocksPerMultiprocessor,
         result.activeBlocksPerMultiprocessor * 128.0 / 2048);
  return 0;
}
