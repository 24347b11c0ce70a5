/* config_small.cu - the driver's shared-memory configuration for blocks
 * with little shared memory of their own (0 B to a few KB, the range where
 * PyTorch's normalisation kernels launch with 16 or 24 B of dynamic memory),
 * read from CUPTI's kernel activity record (sharedMemoryExecuted).
 *
 * config_survey.cu surveyed 0, 1 KB and up: it could not tell whether a
 * block's own bytes or its reserve size the configuration when they are
 * small. Here: exact register caps (__maxnreg__, the count read back),
 * static 0 or 16 B, dynamic 0 B to 4 KB in small steps, block sizes of 1 to
 * 16 warps, the default preference and a few carveout preferences, with and
 * without the maximum dynamic shared-memory attribute raised. CSV on stdout,
 * config_survey's columns and one more:
 *   static,regs,block,dyn,carve,api,min,max,executed,err,optin
 * optin is the maximum dynamic shared memory attribute set (0: not set).
 *
 * "config_small fine" surveys only the default preference over 1 to 4 warps
 * a block and dynamic sizes of 1 to 4 KB in steps of 128 B.
 *
 * Build and run on a GPU machine: make config-small.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cupti.h>

#include "survey_config.cuh"
#include "survey_device.cuh"

/* 96 live values: the cap, not the code, decides the register count. The
 * count is taken down before the barrier, while every warp is resident. */
template <int STATIC, int MAXREG, int TAG>
__global__ void __maxnreg__(MAXREG)
    small_probe(int *in_sm, int *peak, float *sink, unsigned long long spin_ns) {
  extern __shared__ int dynamic_smem[];
  __shared__ int static_smem[STATIC > 0 ? STATIC / 4 : 1];
  const int LIVE = 96;
  float v[LIVE];
#pragma unroll
  for (int i = 0; i < LIVE; i++) v[i] = sink[(threadIdx.x + i) & 255];
  if (threadIdx.x == 0) {
    unsigned sm = sm_id();
    atomicMax(&peak[sm], atomicAdd(&in_sm[sm], 1) + 1);
  }
  unsigned long long t0 = global_ns();
  while (global_ns() - t0 < spin_ns) {
#pragma unroll
    for (int i = 0; i < LIVE; i++) v[i] = v[i] * 1.0001f + v[(i + 1) % LIVE];
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

static const int dyns[] = {0,   8,   16,   24,   64,   128,  256,  384,  512,
                           640, 768, 896,  1024, 1152, 1536, 2048, 3072, 4096};
static const int blocks[] = {32, 64, 96, 128, 192, 256, 512};
static const int carveouts[] = {-1, 0, 10, 50, 100};

template <int STATIC, int MAXREG, int TAG>
static void survey_one(int carveout, int dyn, int block, int optin) {
  auto kernel = small_probe<STATIC, MAXREG, TAG>;
  if (optin)
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         optin);
  cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                       carveout);
  int api = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, kernel, block, dyn);
  cudaFuncAttributes attrs;
  cudaFuncGetAttributes(&attrs, kernel);
  probe_seen seen = probe_launch(kernel, block, dyn);
  printf("%d,%d,%d,%d,%d,%d,%d,%d,%ld,%d,%d\n", (int)attrs.sharedSizeBytes,
         attrs.numRegs, block, dyn, carveout, api, seen.lo, seen.hi,
         seen.executed, (int)seen.err, optin);
}

/* TAG 0: the attribute never set; TAG 1: set to the device's opt-in cap. */
template <int STATIC, int MAXREG, int TAG>
static void survey_kernel(int optin_cap) {
  for (int c : carveouts)
    for (int b : blocks)
      for (int d : dyns) survey_one<STATIC, MAXREG, TAG>(c, d, b, TAG ? optin_cap : 0);
}

/* "fine": the default preference, 1 to 4 warps a block, dynamic 1 to 4 KB
 * in steps of the allocation unit, where twice the resident blocks reach
 * the SM's block limit. */
template <int MAXREG>
static void survey_fine() {
  for (int b = 32; b <= 128; b += 32)
    for (int d = 1024; d <= 4096; d += 128) survey_one<0, MAXREG, 2>(-1, d, b, 0);
}

template <int STATIC, int MAXREG>
static void survey_regs(int optin_cap) {
  survey_kernel<STATIC, MAXREG, 0>(optin_cap);
  survey_kernel<STATIC, MAXREG, 1>(optin_cap);
}

int main(int argc, char **argv) {
  bool fine = argc == 2 && strcmp(argv[1], "fine") == 0;
  int optin_cap = 0;
  cudaDeviceGetAttribute(&optin_cap, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  survey_start("config_small");
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  printf("# %s, %d SMs, driver API %d, runtime %d: config_small\n", prop.name,
         sm_count, driver, runtime);
  printf("static,regs,block,dyn,carve,api,min,max,executed,err,optin\n");
  if (fine) {
    survey_fine<32>();
    survey_fine<64>();
    return 0;
  }
  survey_regs<0, 24>(optin_cap);
  survey_regs<0, 32>(optin_cap);
  survey_regs<0, 40>(optin_cap);
  survey_regs<0, 64>(optin_cap);
  survey_regs<16, 32>(optin_cap);
  survey_regs<16, 48>(optin_cap);
  return 0;
}
