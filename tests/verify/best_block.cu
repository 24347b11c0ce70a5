/* best_block.cu: the CUDA runtime's own answer to the question
 * `occcalc --block best` answers, for tests/verify/gpu_best_block.sh.
 * Kernels of different register counts (capped with __maxnreg__ and
 * __launch_bounds__), one with static shared memory and launch bounds
 * that are not a multiple of the warp; for each, a grid of dynamic shared
 * memory (a constant plus bytes per thread) and block limits, given to
 * cudaOccupancyMaxPotentialBlockSizeVariableSMem and, where the shared
 * memory is constant, to cudaOccupancyMaxPotentialBlockSize.
 *
 * Prints one "device" line, then one "case" line per call:
 *   device cc=90 sms=132 max_threads_per_block=1024 smem_optin=232448
 *   case kernel=K regs=R static_smem=S kernel_max_threads=T api=A
 *        per_thread=P const=C limit=L min_grid=G block=B
 * (one line each). Nothing is launched: the occupancy API only reads the
 * kernels' attributes. Exit 1 on any CUDA error, with the error on stderr. */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "best_block: %s: %s\n", #call,                    \
                   cudaGetErrorString(e_));                                  \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

/* Enough live values that the register count reaches the cap it is given
 * (ptxas keeps the LIVE accumulators in registers up to the cap and spills
 * past it), so that each cap gives another count. */
#define LIVE 160
#define HEAVY_BODY                                                           \
  float acc[LIVE];                                                           \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
  _Pragma("unroll") for (int k = 0; k < LIVE; k++) acc[k] =                  \
      in[(i + k * 97) % n];                                                  \
  float sum = 0.0f;                                                          \
  _Pragma("unroll") for (int r = 0; r < 4; r++) {                            \
    _Pragma("unroll") for (int k = 0; k < LIVE; k++) acc[k] =                \
        acc[k] * acc[(k + r + 1) % LIVE] + acc[(k + 7) % LIVE];              \
  }                                                                          \
  _Pragma("unroll") for (int k = 0; k < LIVE; k++) sum += acc[k];            \
  if (i < n) out[i] = sum;

/* The compiler's floor: a copy. */
__global__ void k_light(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}

__global__ void __maxnreg__(40) k_regs40(float *out, const float *in, int n) { HEAVY_BODY }

__global__ void __maxnreg__(72) k_regs72(float *out, const float *in, int n) { HEAVY_BODY }

__global__ void __maxnreg__(128) k_regs128(float *out, const float *in, int n) { HEAVY_BODY }

__global__ void __maxnreg__(168) k_regs168(float *out, const float *in, int n) { HEAVY_BODY }

/* Launch bounds of 200 threads: the runtime's search starts at 200, not at
 * a multiple of the warp, and never tries past it. */
__global__ void __launch_bounds__(200) k_bounds200(float *out, const float *in, int n) {
  HEAVY_BODY
}

/* Static shared memory (12 KB) beside the dynamic one, which it also uses,
 * as a reduction does. */
__global__ void k_static_smem(float *out, const float *in, int n) {
  __shared__ float tile[3072];
  extern __shared__ float dyn[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = threadIdx.x; k < 3072; k += blockDim.x) tile[k] = in[(i + k) % n];
  dyn[threadIdx.x] = in[i % n];
  __syncthreads();
  float sum = tile[(threadIdx.x * 3) % 3072] + dyn[(threadIdx.x + 1) % blockDim.x];
  if (i < n) out[i] = sum;
}

/* blockSizeToDynamicSMemSize: a constant plus bytes per thread
 * (__host__ __device__: the runtime's template is both). */
struct PerThread {
  size_t constant, per_thread;
  __host__ __device__ size_t operator()(int block) const {
    return constant + per_thread * (size_t)block;
  }
};

typedef void (*kernel_fn)(float *, const float *, int);

int main() {
  static const struct {
    const char *name;
    kernel_fn fn;
  } kernels[] = {
      {"k_light", k_light},         {"k_regs40", k_regs40},   {"k_regs72", k_regs72},
      {"k_regs128", k_regs128},     {"k_regs168", k_regs168}, {"k_bounds200", k_bounds200},
      {"k_static_smem", k_static_smem},
  };
  static const size_t per_threads[] = {0, 4, 16, 128};
  static const size_t constants[] = {0, 1024};
  static const int limits[] = {0, 256, 1000};

  int dev = 0;
  CHECK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device cc=%d%d sms=%d max_threads_per_block=%d smem_optin=%zu\n", prop.major,
              prop.minor, prop.multiProcessorCount, prop.maxThreadsPerBlock,
              (size_t)prop.sharedMemPerBlockOptin);

  for (const auto &k : kernels) {
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, k.fn));
    /* Above 48 KB a block's dynamic shared memory needs the kernel's
     * opt-in, or the occupancy API counts no block; occcalc, like
     * cuda_occupancy.h with FUNC_SHMEM_LIMIT_OPTIN, assumes the opt-in.
     * 128 bytes per thread reach 129 KB at 1024 threads. */
    int optin = (int)(prop.sharedMemPerBlockOptin - attr.sharedSizeBytes);
    CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    for (size_t p : per_threads)
      for (size_t c : constants)
        for (int limit : limits) {
          int min_grid = -1, block = -1;
          CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, k.fn,
                                                                PerThread{c, p}, limit));
          std::printf("case kernel=%s regs=%d static_smem=%zu kernel_max_threads=%d "
                      "api=variable per_thread=%zu const=%zu limit=%d min_grid=%d block=%d\n",
                      k.name, attr.numRegs, (size_t)attr.sharedSizeBytes,
                      attr.maxThreadsPerBlock, p, c, limit, min_grid, block);
          if (p != 0) continue;
          min_grid = block = -1;
          CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, k.fn, c, limit));
          std::printf("case kernel=%s regs=%d static_smem=%zu kernel_max_threads=%d "
                      "api=constant per_thread=0 const=%zu limit=%d min_grid=%d block=%d\n",
                      k.name, attr.numRegs, (size_t)attr.sharedSizeBytes,
                      attr.maxThreadsPerBlock, c, limit, min_grid, block);
        }
  }
  return 0;
}
