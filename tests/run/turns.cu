// turns.cu - a process that launches a short kernel again and again for
// SECONDS (argv[1], default 6), so that two of them on one GPU under one
// `occcalc run` must take turns for the counters (tests/run/turns.sh).
// With argv[2] "idle" it makes its context and launches nothing for
// SECONDS: a process that must not keep the counters from the others.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <cuda_runtime.h>

__global__ void k_turns(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = out[i] * 0.5f + 1.0f;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 6;
  if (argc > 2 && strcmp(argv[2], "idle") == 0) {
    if (cudaFree(0) != cudaSuccess) return 1;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return 0;
  }
  const int n = 1 << 22;
  float *out;
  if (cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) return 1;
  auto start = std::chrono::steady_clock::now();
  long launches = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start).count() < seconds) {
    k_turns<<<n / 256, 256>>>(out, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    launches++;
  }
  fprintf(stderr, "turns: %ld launches\n", launches);
  return cudaFree(out) == cudaSuccess ? 0 : 1;
}
