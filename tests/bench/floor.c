/* bench_floor.c - the floor that `occcalc --device 0` is benchmarked
 * against: the least a program must do to get the CUDA occupancy API's
 * answer for the README example's configuration. It creates the context, JIT-loads
 * the same probe PTX with the same 48-register cap and asks the API for
 * 128 threads and 4096 B of dynamic shared memory. Like occcalc it reaches
 * the driver through the static runtime (no -lcuda). */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

extern const unsigned char occ_probe_ptx[];

#define CHECK_RT(call)                                                       \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      fprintf(stderr, "bench_floor: %s: %s\n", #call, cudaGetErrorString(e_)); \
      return 5;                                                              \
    }                                                                        \
  } while (0)

#define CHECK_DRV(call)                                                      \
  do {                                                                       \
    CUresult r_ = (call);                                                    \
    if (r_ != CUDA_SUCCESS) {                                                \
      fprintf(stderr, "bench_floor: %s: CUresult %d\n", #call, (int)r_);     \
      return 5;                                                              \
    }                                                                        \
  } while (0)

int main(void) {
  PFN_cuModuleLoadDataEx_v2010 load;
  PFN_cuModuleGetFunction_v2000 get;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy;
  enum cudaDriverEntryPointQueryResult q;
  CHECK_RT(cudaFree(NULL));
  CHECK_RT(cudaGetDriverEntryPointByVersion("cuModuleLoadDataEx", (void **)&load,
                                            12040, cudaEnableDefault, &q));
  CHECK_RT(cudaGetDriverEntryPointByVersion("cuModuleGetFunction", (void **)&get,
                                            12040, cudaEnableDefault, &q));
  CHECK_RT(cudaGetDriverEntryPointByVersion(
      "cuOccupancyMaxActiveBlocksPerMultiprocessor", (void **)&occupancy, 12040,
      cudaEnableDefault, &q));
  CUmodule mod;
  CUfunction fn;
  CUjit_option opt = CU_JIT_MAX_REGISTERS;
  void *val = (void *)(uintptr_t)48;
  CHECK_DRV(load(&mod, occ_probe_ptx, 1, &opt, &val));
  CHECK_DRV(get(&fn, mod, "occ_probe"));
  int blocks;
  CHECK_DRV(occupancy(&blocks, fn, 128, 4096));
  printf("%d\n", blocks);
  return 0;
}
