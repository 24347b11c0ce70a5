/* reduction.hip - the lab's reduction (docs/lab.md, Part 7) for AMD GPUs,
 * compiled only, never run: no AMD GPU is within reach. Two kernels:
 *
 *   reduce_seq     Part 5's sequential addressing (reduction.cu's variant
 *                  3): a 256-int LDS tile, one element per thread;
 *   reduce_regs    each thread first sums 96 elements it holds in
 *                  registers at once (more VGPRs, fewer passes).
 *
 * Debian's clang 19 compiles it as HIP without ROCm: -nogpuinc leaves out
 * HIP's headers, so the few names the kernels use are defined here from
 * clang's AMDGPU builtins.
 *
 *   clang-19 -x hip --offload-arch=gfx90a -nogpuinc -nogpulib \
 *     --cuda-device-only -O3 -S -o /dev/null \
 *     -Rpass-analysis=kernel-resource-usage kernels/lab/reduction.hip
 */
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

static __attribute__((device)) unsigned thread_x(void) {
  return __builtin_amdgcn_workitem_id_x();
}
static __attribute__((device)) unsigned block_x(void) {
  return __builtin_amdgcn_workgroup_id_x();
}
/* __syncthreads: LDS writes visible to the workgroup, then the barrier. */
static __attribute__((device)) void sync_threads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#define BLOCK 256
#define PER_THREAD 96

extern "C" __global__ __launch_bounds__(BLOCK) void reduce_seq(const int *in, int *out,
                                                               unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = thread_x();
  unsigned i = block_x() * BLOCK + tid;
  sdata[tid] = i < n ? in[i] : 0;
  sync_threads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    sync_threads();
  }
  if (tid == 0) out[block_x()] = sdata[0];
}

extern "C" __global__ __launch_bounds__(BLOCK) void reduce_regs(const int *in, int *out,
                                                                unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = thread_x();
  unsigned base = block_x() * BLOCK * PER_THREAD + tid;
  int v[PER_THREAD];
  /* All loads first, then the sums: the 96 values are live together. */
#pragma unroll
  for (int k = 0; k < PER_THREAD; k++) {
    unsigned i = base + k * BLOCK;
    v[k] = i < n ? __builtin_nontemporal_load(&in[i]) : 0;
  }
  int sum = 0;
#pragma unroll
  for (int k = 0; k < PER_THREAD; k++) sum += v[k] * (k + 1);
  sdata[tid] = sum;
  sync_threads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    sync_threads();
  }
  if (tid == 0) out[block_x()] = sdata[0];
}
