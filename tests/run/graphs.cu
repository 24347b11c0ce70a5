// graphs.cu - the graph program of `occcalc run`'s GPU tests
// (tests/run/graphs.sh): three kernels of different occupancy captured
// from two streams into one CUDA graph (k_graph_wide and k_graph_smem on
// parallel branches, k_graph_tail after both, k_graph_wide a second time
// with another grid; with argv[2] "chain", all four on one stream), the
// graph launched ITERATIONS times (argv[1], default 3), then the same
// kernels launched on their own once. Three of the four run over 100 us
// on an H100 (k_graph_tail about 38 us).
//
// Each kernel counts its runs, and the program prints the counts at its
// end ("each kernel ran 4, 4, 4 and 4 times"): a profiler that disturbed
// the graph (measured: profiling a graph launch through CUPTI's Range
// Profiler from occcalc's injection library left its dependent nodes
// unrun) shows there.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "graphs: %s: %s\n", #call, cudaGetErrorString(e_));   \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

enum { N = 1 << 25, SPIN = 2000 };

// How many times each kernel ran (one count per launch, from its first
// thread): the program checks its graph ran every node.
__device__ unsigned ran[4];
#define COUNT_RUN(k) \
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&ran[k], 1u)

// Memory-bound: each thread walks the buffer with a grid stride.
extern "C" __global__ void k_graph_wide(float *a, int n) {
  COUNT_RUN(gridDim.x == 264 ? 0 : 3);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    a[i] = a[i] * 0.5f + 1.0f;
}

// Shared memory limits it to a few blocks per SM; the loop keeps it busy.
extern "C" __global__ void k_graph_smem(float *a, int spin) {
  extern __shared__ float tile[];
  COUNT_RUN(1);
  float v = threadIdx.x;
  for (int i = 0; i < spin; i++) v = v * 1.0001f + tile[(threadIdx.x + i) % blockDim.x];
  tile[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) a[blockIdx.x] = tile[blockDim.x - 1];
}

// Compute-bound, one small block per SM's share: low achieved occupancy.
extern "C" __global__ void k_graph_tail(float *a, int spin) {
  COUNT_RUN(2);
  float v = threadIdx.x;
  for (int i = 0; i < spin * 8; i++) v = v * 0.9999f + 1.0f;
  a[(blockIdx.x * blockDim.x + threadIdx.x) % N] = v;
}

static bool chain; /* argv[2] "chain": one stream, the four in a row */

static void launch_all(cudaStream_t s1, cudaStream_t s2, cudaEvent_t fork,
                       cudaEvent_t join, float *a, float *b) {
  const int smem = 64 * 1024;
  if (chain) s2 = s1;
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  k_graph_wide<<<264, 512, 0, s1>>>(a, N);
  k_graph_smem<<<528, 256, smem, s2>>>(b, SPIN);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  k_graph_tail<<<132, 64, 0, s1>>>(a, SPIN);
  k_graph_wide<<<1056, 256, 0, s1>>>(a, N);
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 3;
  chain = argc > 2 && strcmp(argv[2], "chain") == 0;
  float *a, *b;
  CHECK(cudaMalloc(&a, N * sizeof(float)));
  CHECK(cudaMalloc(&b, N * sizeof(float)));
  CHECK(cudaMemset(a, 0, N * sizeof(float)));
  CHECK(cudaFuncSetAttribute(k_graph_smem,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             64 * 1024));
  cudaStream_t s1, s2;
  cudaEvent_t fork, join;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  launch_all(s1, s2, fork, join, a, b);
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < iterations; i++) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  launch_all(s1, s2, fork, join, a, b);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  unsigned counts[4];
  CHECK(cudaMemcpyFromSymbol(counts, ran, sizeof counts));
  printf("graphs: %d graph launches of 4 kernels, then the 4 on their own; "
         "each kernel ran %u, %u, %u and %u times\n", iterations, counts[0],
         counts[1], counts[2], counts[3]);
  return 0;
}
