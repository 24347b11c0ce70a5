/* cudart_shim.c - a CUDA runtime for the GPU tests whose occupancy API
 * answers one block more than the real one. It is a small library that
 * needs the real libcudart (a DT_NEEDED dependency): occcalc opens it with
 * OCCCALC_CUDART, finds every other runtime call in that dependency, and
 * this cudaOccupancyMaxActiveBlocksPerMultiprocessor in front of it. With
 * it, tests/verify/gpu_tests.sh sees that the number occcalc shows as the CUDA
 * occupancy API is the runtime's answer (not the driver's, nor occcalc's
 * own), and that a driver's answer that differs is shown beside it. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num_blocks,
                                                          const void *func,
                                                          int block_size,
                                                          size_t dynamic_smem) {
  static __typeof__(cudaOccupancyMaxActiveBlocksPerMultiprocessor) *real;
  if (!real) {
    /* The dependency is loaded already; its own symbol, not this one. */
    char soname[32];
    snprintf(soname, sizeof soname, "libcudart.so.%d", CUDART_VERSION / 1000);
    void *lib = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (lib)
      *(void **)&real =
          dlsym(lib, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (!real) return cudaErrorSharedObjectSymbolNotFound;
  }
  cudaError_t e = real(num_blocks, func, block_size, dynamic_smem);
  if (e == cudaSuccess) *num_blocks += 1;
  return e;
}
