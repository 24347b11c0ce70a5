/* cuda_emu.h - enough of CUDA to run the lab's programs on a CPU, for
 * tests/lab/emulate.sh: a std::thread per CUDA thread, one block at a
 * time; __syncthreads() and __syncwarp() are barriers of the block's and
 * the warp's threads, __shfl_down_sync exchanges through an array between
 * two warp barriers; device memory is host memory, events time nothing.
 * It checks the kernels' indexing and the order of their steps, not their
 * speed (a missing barrier shows only by chance), and it has only the
 * CUDA the lab uses. */
#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim, launch_grid, launch_block;
static std::barrier<> *block_barrier;
static std::vector<std::unique_ptr<std::barrier<>>> warp_barriers;
static std::vector<int> shuffle_slots;
alignas(16) static char dynamic_smem[48 * 1024];

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

static inline unsigned thread_rank() {
  return threadIdx.x + threadIdx.y * blockDim.x;
}
static inline void __syncthreads() { block_barrier->arrive_and_wait(); }
static inline void __syncwarp() {
  warp_barriers[thread_rank() / 32]->arrive_and_wait();
}
static inline int __shfl_down_sync(unsigned, int v, int offset) {
  unsigned t = thread_rank();
  shuffle_slots[t] = v;
  __syncwarp();
  int got = t % 32 + offset < 32 ? shuffle_slots[t + offset] : v;
  __syncwarp();
  return got;
}

/* k<<<grid, block, smem>>>(args) is rewritten as
 * launch_config(grid, block, smem); run_kernel(k, args). */
static inline void launch_config(dim3 grid, dim3 block, size_t = 0) {
  launch_grid = grid;
  launch_block = block;
}
template <class F, class... A> static void run_kernel(F kernel, A... args) {
  blockDim = launch_block;
  gridDim = launch_grid;
  unsigned n = blockDim.x * blockDim.y;
  std::barrier<> barrier(n);
  block_barrier = &barrier;
  warp_barriers.clear();
  for (unsigned w = 0; w < (n + 31) / 32; w++)
    warp_barriers.emplace_back(new std::barrier<>(std::min(32u, n - 32 * w)));
  shuffle_slots.assign(n, 0);
  for (unsigned by = 0; by < gridDim.y; by++)
    for (unsigned bx = 0; bx < gridDim.x; bx++) {
      std::vector<std::thread> threads;
      for (unsigned ty = 0; ty < blockDim.y; ty++)
        for (unsigned tx = 0; tx < blockDim.x; tx++)
          threads.emplace_back([=] {
            threadIdx = dim3(tx, ty);
            blockIdx = dim3(bx, by);
            kernel(args...);
          });
      for (std::thread &t : threads)
        t.join();
    }
}

typedef int cudaError_t;
typedef int cudaEvent_t;
enum { cudaSuccess, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
static inline const char *cudaGetErrorString(int) { return "emulated"; }
static inline int cudaGetLastError() { return cudaSuccess; }
template <class T> static int cudaMalloc(T **p, size_t n) {
  *p = (T *)malloc(n);
  return *p ? cudaSuccess : 1;
}
static inline int cudaFree(void *p) { free(p); return cudaSuccess; }
static inline int cudaMemcpy(void *d, const void *s, size_t n, int) {
  memcpy(d, s, n);
  return cudaSuccess;
}
static inline int cudaMemset(void *d, int v, size_t n) {
  memset(d, v, n);
  return cudaSuccess;
}
static inline int cudaEventCreate(int *) { return cudaSuccess; }
static inline int cudaEventDestroy(int) { return cudaSuccess; }
static inline int cudaEventRecord(int) { return cudaSuccess; }
static inline int cudaEventSynchronize(int) { return cudaSuccess; }
static inline int cudaEventElapsedTime(float *ms, int, int) {
  *ms = 1;
  return cudaSuccess;
}
