// serial.cu - launches of `occcalc run --measure sample`'s GPU tests
// (tests/run/sample_gpu.sh): one kernel at several durations (about 5 us
// to 5 ms) and occupancies (block size and dynamic shared memory), each
// launch alone on the GPU (synchronised after each), then the same
// kernels back to back on one stream, then two streams at once (their
// launches overlap: the report must mark them). argv[1] repeats the
// serial part (default 2).
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "serial: %s: %s\n", #call, cudaGetErrorString(e_));  \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

// Each thread spins `spin` steps; shared memory (dynamic) caps blocks/SM.
extern "C" __global__ void k_spin(float *out, int spin) {
  extern __shared__ float tile[];
  float v = threadIdx.x;
  for (int i = 0; i < spin; i++) v = v * 0.9999f + 1.0f;
  if (blockDim.x <= 1024) tile[threadIdx.x % 32] = v;
  __syncthreads();
  out[(blockIdx.x * blockDim.x + threadIdx.x) & 0xffffff] = v + tile[0];
}

struct config { int blocks_per_sm, block, smem_kib, spin; };

int main(int argc, char **argv) {
  int repeat = argc > 1 ? atoi(argv[1]) : 2;
  float *out;
  CHECK(cudaMalloc(&out, (1 << 24) * sizeof(float)));
  CHECK(cudaFuncSetAttribute(k_spin, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             200 * 1024));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // 100 %, 50 % (smem-limited) and 25 % theoretical, several lengths.
  const config configs[] = {
      {8, 256, 0, 200},     {8, 256, 0, 2000},   {8, 256, 0, 20000},
      {8, 256, 0, 200000},  {2, 512, 100, 400},  {2, 512, 100, 4000},
      {2, 512, 100, 40000}, {4, 128, 0, 1000},   {4, 128, 0, 10000},
      {4, 128, 0, 100000},
  };
  const int n = sizeof configs / sizeof configs[0];
  for (int r = 0; r < repeat; r++)
    for (int i = 0; i < n; i++) {
      const config &c = configs[i];
      k_spin<<<sms * c.blocks_per_sm, c.block, c.smem_kib * 1024 + 128>>>(out, c.spin);
      CHECK(cudaDeviceSynchronize());
    }
  // Back to back on one stream: neighbours share samples.
  for (int i = 0; i < n; i++) {
    const config &c = configs[i];
    k_spin<<<sms * c.blocks_per_sm, c.block, c.smem_kib * 1024 + 128>>>(out, c.spin);
  }
  CHECK(cudaDeviceSynchronize());
  // Two streams at once: their kernels overlap on the GPU.
  cudaStream_t s[2];
  for (int i = 0; i < 2; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
  for (int i = 0; i < 4; i++)
    k_spin<<<sms, 128, 128, s[i & 1]>>>(out, 100000);
  CHECK(cudaDeviceSynchronize());
  printf("serial: %d x %d serial launches, %d back to back, 4 on two streams\n",
         repeat, n, n);
  return 0;
}
