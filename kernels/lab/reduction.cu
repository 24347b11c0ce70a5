/* reduction.cu - the occupancy lab's parallel sum reduction, in the seven
 * steps a CUDA course takes it through (docs/lab.md).
 *
 *   reduction [VARIANT|all] [BLOCK]
 *
 * VARIANT 1-7 (default all); BLOCK threads per block, a power of two from
 * 64 to 1024 (default 256). Each variant sums N ints (N = 2^24) in passes:
 * every block writes one partial sum, and the next pass reduces the
 * partials, until one value is left. The result is checked exactly against
 * a sum on the host (integers: addition is associative, so any order of the
 * additions gives the same sum; the inputs are 0-15, so it cannot overflow).
 *
 * Printed per variant: the median time of the whole reduction over RUNS
 * runs (cudaEvent), the bandwidth as bytes of input read per second, and
 * a line per pass with the kernel's launch, as CUDA writes it
 * (<<<grid, block, dynamic shared memory>>>), and the bytes that pass
 * reads (tests/lab/table.py reads these lines).
 *
 * Exit status: 0 when every variant's sum is right, 1 otherwise or on a
 * CUDA error, 2 on a usage error.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      fprintf(stderr, "reduction: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
              #call, cudaGetErrorString(err_));                            \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static const unsigned N = 1u << 24;
static const int RUNS = 21; /* timed runs per variant, after one warm-up */
static const int VARIANTS = 7;
static const unsigned FULL_MASK = 0xffffffffu;

/* 1: interleaved addressing; the active threads are those whose index is a
 * multiple of 2s, so every warp branches both ways until s reaches 32. */
__global__ void reduce1_interleaved_divergent(const int *in, int *out,
                                              unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* 2: interleaved addressing with a strided index: the first threads of the
 * block are the active ones (no divergence within a warp until fewer than
 * 32 remain), but a warp's accesses 2s apart hit the same shared-memory
 * banks. */
__global__ void reduce2_interleaved_strided(const int *in, int *out,
                                            unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* 3: sequential addressing: thread tid adds element tid + s, consecutive
 * threads touch consecutive words, no bank conflict. Half the threads are
 * idle from the first step. */
__global__ void reduce3_sequential(const int *in, int *out, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* Each block of variants 4-7 reads 2 x blockDim.x elements: thread tid
 * adds its two while loading, so no thread is idle in the first step. */
__device__ __forceinline__ int load_two(const int *in, unsigned n,
                                        unsigned block_threads) {
  unsigned i = blockIdx.x * (2 * block_threads) + threadIdx.x;
  int v = i < n ? in[i] : 0;
  if (i + block_threads < n)
    v += in[i + block_threads];
  return v;
}

/* 4: first add during the global load, then as variant 3. */
__global__ void reduce4_first_add(const int *in, int *out, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  sdata[tid] = load_two(in, n, blockDim.x);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* The last 64 partial sums of a block, summed by its first warp alone: no
 * __syncthreads() and no "tid < s" test. Since Volta a warp's threads are
 * not guaranteed to run in lockstep, so each step reads, syncs the warp,
 * then writes (the volatile-only idiom of older notes is a data race). */
__device__ __forceinline__ void warp_reduce_smem(volatile int *sdata,
                                                 unsigned tid) {
  int v = sdata[tid];
#pragma unroll
  for (unsigned s = 32; s > 0; s >>= 1) {
    v += sdata[tid + s];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
}

/* 5: as variant 4, with the last warp's six steps unrolled. Needs a block
 * of at least 64 threads. */
__global__ void reduce5_unroll_last_warp(const int *in, int *out,
                                         unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  sdata[tid] = load_two(in, n, blockDim.x);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32)
    warp_reduce_smem(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* 6: completely unrolled: the block size is a template parameter, so every
 * "BLOCK >= ..." test and the loop disappear at compile time, and the
 * shared array is static (ptxas reports its size). */
template <unsigned BLOCK>
__global__ void reduce6_unrolled(const int *in, int *out, unsigned n) {
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  sdata[tid] = load_two(in, n, BLOCK);
  __syncthreads();
  if (BLOCK >= 1024) {
    if (tid < 512)
      sdata[tid] += sdata[tid + 512];
    __syncthreads();
  }
  if (BLOCK >= 512) {
    if (tid < 256)
      sdata[tid] += sdata[tid + 256];
    __syncthreads();
  }
  if (BLOCK >= 256) {
    if (tid < 128)
      sdata[tid] += sdata[tid + 128];
    __syncthreads();
  }
  if (BLOCK >= 128) {
    if (tid < 64)
      sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  if (tid < 32)
    warp_reduce_smem(sdata, tid);
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

/* The sum of v over the 32 threads of a warp, in lane 0: registers only. */
__device__ __forceinline__ int warp_sum(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

/* 7: warp shuffle: each warp sums in registers, its lane 0 writes one word
 * of shared memory, and the first warp sums those words. One
 * __syncthreads() in all; 128 bytes of shared memory whatever the block. */
__global__ void reduce7_shuffle(const int *in, int *out, unsigned n) {
  __shared__ int warp_sums[32];
  unsigned tid = threadIdx.x;
  unsigned lane = tid % 32, warp = tid / 32;
  int v = warp_sum(load_two(in, n, blockDim.x));
  if (lane == 0)
    warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(tid < blockDim.x / 32 ? warp_sums[lane] : 0);
    if (tid == 0)
      out[blockIdx.x] = v;
  }
}

typedef void (*reduce_kernel)(const int *, int *, unsigned);

struct variant {
  const char *name;
  const char *kernel;
  unsigned elems_per_thread; /* 2 when the first add is during the load */
  bool dynamic_smem;         /* sdata sized by the launch */
  bool templated;            /* the block size is a template argument */
};

static const variant variants[VARIANTS] = {
    {"interleaved, divergent", "reduce1_interleaved_divergent", 1, true, false},
    {"interleaved, strided", "reduce2_interleaved_strided", 1, true, false},
    {"sequential addressing", "reduce3_sequential", 1, true, false},
    {"first add during load", "reduce4_first_add", 2, true, false},
    {"unrolled last warp", "reduce5_unroll_last_warp", 2, true, false},
    {"completely unrolled", "reduce6_unrolled", 2, false, true},
    {"warp shuffle", "reduce7_shuffle", 2, false, false},
};

template <unsigned BLOCK> static reduce_kernel unrolled_for(unsigned block) {
  if (block == BLOCK)
    return reduce6_unrolled<BLOCK>;
  return unrolled_for<BLOCK / 2>(block);
}
template <> reduce_kernel unrolled_for<32>(unsigned) { return NULL; }

static reduce_kernel kernel_of(int v, unsigned block) {
  switch (v) {
  case 1: return reduce1_interleaved_divergent;
  case 2: return reduce2_interleaved_strided;
  case 3: return reduce3_sequential;
  case 4: return reduce4_first_add;
  case 5: return reduce5_unroll_last_warp;
  case 6: return unrolled_for<1024>(block);
  default: return reduce7_shuffle;
  }
}

/* One pass of a reduction: its launch configuration and what it reads. */
struct pass {
  unsigned grid, n;
};

static std::vector<pass> passes_of(const variant &var, unsigned block) {
  std::vector<pass> passes;
  unsigned per_block = block * var.elems_per_thread;
  for (unsigned n = N; n > 1; n = (n + per_block - 1) / per_block)
    passes.push_back(pass{(n + per_block - 1) / per_block, n});
  return passes;
}

/* Runs every pass of variant v: d_in to d_a, then between d_a and d_b.
 * Returns the buffer that holds the sum. */
static int *reduce(int v, unsigned block, const std::vector<pass> &passes,
                   const int *d_in, int *d_a, int *d_b) {
  const variant &var = variants[v - 1];
  reduce_kernel kernel = kernel_of(v, block);
  size_t smem = var.dynamic_smem ? block * sizeof(int) : 0;
  const int *src = d_in;
  int *dst = d_a;
  for (const pass &p : passes) {
    kernel<<<p.grid, block, smem>>>(src, dst, p.n);
    CHECK(cudaGetLastError());
    src = dst;
    dst = dst == d_a ? d_b : d_a;
  }
  return const_cast<int *>(src);
}

static void print_launches(int v, unsigned block,
                           const std::vector<pass> &passes) {
  const variant &var = variants[v - 1];
  size_t smem = var.dynamic_smem ? block * sizeof(int) : 0;
  char name[64];
  int len = snprintf(name, sizeof name, "%s", var.kernel);
  if (var.templated)
    snprintf(name + len, sizeof name - len, "<%u>", block);
  for (const pass &p : passes)
    printf("  %s<<<%u, %u, %zu>>> reads %zu B\n", name, p.grid, block, smem,
           (size_t)p.n * sizeof(int));
}

/* Runs variant v once to warm up and RUNS times timed; prints the median
 * and checks the sum. Returns whether the sum was right. */
static bool run_variant(int v, unsigned block, const int *d_in, int *d_a,
                        int *d_b, long long want) {
  std::vector<pass> passes = passes_of(variants[v - 1], block);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int *d_sum = reduce(v, block, passes, d_in, d_a, d_b);
  std::vector<float> ms(RUNS);
  for (int r = 0; r < RUNS; r++) {
    CHECK(cudaEventRecord(start));
    reduce(v, block, passes, d_in, d_a, d_b);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms[r], start, stop));
  }
  int got;
  CHECK(cudaMemcpy(&got, d_sum, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  double us = ms[RUNS / 2] * 1e3;
  double gbps = N * sizeof(int) / (us * 1e3);
  bool ok = got == want;
  printf("%d %-22s %9.1f us %7.1f GB/s  %s\n", v, variants[v - 1].name, us,
         gbps, ok ? "ok" : "WRONG SUM");
  print_launches(v, block, passes);
  if (!ok)
    fprintf(stderr, "reduction: variant %d: sum %d, want %lld\n", v, got,
            want);
  return ok;
}

static int usage(void) {
  fprintf(stderr, "usage: reduction [1-%d|all] [BLOCK: 64, 128, 256, "
                  "512 or 1024]\n", VARIANTS);
  return 2;
}

/* Parses "1".."7" or "all" into [first, last]. */
static bool parse_variant(const char *arg, int *first, int *last) {
  if (strcmp(arg, "all") == 0) {
    *first = 1;
    *last = VARIANTS;
    return true;
  }
  char *end;
  long v = strtol(arg, &end, 10);
  if (*arg == '\0' || *end != '\0' || v < 1 || v > VARIANTS)
    return false;
  *first = *last = (int)v;
  return true;
}

static bool parse_block(const char *arg, unsigned *block) {
  char *end;
  long b = strtol(arg, &end, 10);
  if (*arg == '\0' || *end != '\0' || b < 64 || b > 1024 || (b & (b - 1)))
    return false;
  *block = (unsigned)b;
  return true;
}

int main(int argc, char **argv) {
  int first = 1, last = VARIANTS;
  unsigned block = 256;
  if (argc > 3 || (argc > 1 && !parse_variant(argv[1], &first, &last)) ||
      (argc > 2 && !parse_block(argv[2], &block)))
    return usage();
  std::vector<int> h_in(N);
  long long want = 0;
  for (unsigned i = 0; i < N; i++) {
    h_in[i] = (int)((i * 2654435761u) >> 28); /* 0-15, scattered */
    want += h_in[i];
  }
  int *d_in, *d_a, *d_b;
  CHECK(cudaMalloc(&d_in, N * sizeof(int)));
  CHECK(cudaMalloc(&d_a, N * sizeof(int)));
  CHECK(cudaMalloc(&d_b, N * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h_in.data(), N * sizeof(int),
                   cudaMemcpyHostToDevice));
  printf("sum of %u ints, block %u: median of %d runs, exact check\n", N,
         block, RUNS);
  bool ok = true;
  for (int v = first; v <= last; v++)
    ok = run_variant(v, block, d_in, d_a, d_b, want) && ok;
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  return ok ? 0 : 1;
}
