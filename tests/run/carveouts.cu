// carveouts.cu - launches whose carveout and dynamic shared memory change
// from launch to launch: one kernel with dynamic shared memory
// under six carveout preferences and five sizes, one with static shared
// memory and one with none under each preference. tests/run/carveouts.sh
// compares occcalc run's SM configuration and blocks per SM at launch,
// under the default counters, with Nsight Compute's, launch by launch.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t e = (call);                                                \
    if (e != cudaSuccess) {                                                \
      fprintf(stderr, "carveouts: %s: %s\n", #call, cudaGetErrorString(e)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

extern __shared__ float dynamic_smem[];

// floats: the dynamic shared memory's size in floats (0: none to touch).
__global__ void k_dynamic(float *out, int floats) {
  if (floats < 32) return;
  dynamic_smem[threadIdx.x % 32] = (float)threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = dynamic_smem[1];
}

__global__ void k_static(float *out) {
  __shared__ float s[3072];
  s[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  out[blockIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

__global__ void k_none(float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

int main() {
  const int carveouts[] = {-1, 0, 25, 50, 75, 100};
  const int dynamic_bytes[] = {0, 1024, 8192, 49152, 100000};
  float *out;
  CHECK(cudaMalloc(&out, 264 * 256 * sizeof(float)));
  CHECK(cudaFuncSetAttribute(k_dynamic,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             100000));
  for (int c : carveouts)
    for (int d : dynamic_bytes) {
      CHECK(cudaFuncSetAttribute(
          k_dynamic, cudaFuncAttributePreferredSharedMemoryCarveout, c));
      k_dynamic<<<264, 256, d>>>(out, d / (int)sizeof(float));
      CHECK(cudaGetLastError());
    }
  for (int c : carveouts) {
    CHECK(cudaFuncSetAttribute(
        k_static, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    k_static<<<264, 256>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaFuncSetAttribute(
        k_none, cudaFuncAttributePreferredSharedMemoryCarveout, c));
    k_none<<<264, 256>>>(out);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
  return 0;
}
