// launches.cu - the GPU test program of `occcalc run` (tests/run/gpu_test.sh):
// known kernels launched every way the injection library must record
// (dynamic shared memory above 48 KB, 2D and 3D blocks, a cooperative
// launch, a cluster launch on CC 9.0+, two streams, a CUDA graph, a child
// process and a launch after it), each launch also written as one line of
// the manifest file argv[1]:
//   NAME GX GY GZ BX BY BZ DYN_SMEM TYPE GRAPH PID
// TYPE is regular, cooperative or cluster; GRAPH is 1 for a graph's
// kernel. The k_long_* kernels run well over 100 us, for the comparison of
// achieved occupancy with Nsight Compute.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <sys/wait.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t e_ = (call);                                               \
    if (e_ != cudaSuccess) {                                               \
      fprintf(stderr, "launches: %s: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static FILE *manifest;

static void note(const char *name, dim3 g, dim3 b, int dyn, const char *type,
                 int graph) {
  fprintf(manifest, "%s %u %u %u %u %u %u %d %s %d %d\n", name, g.x, g.y, g.z,
          b.x, b.y, b.z, dyn, type, graph, (int)getpid());
  fflush(manifest);
}

extern "C" __global__ void k_dyn_smem(float *out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = tile[blockDim.x - 1];
}

extern "C" __global__ void k_2d(float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[(y * gridDim.x * blockDim.x + x) % 4096] = x + y;
}

extern "C" __global__ void k_3d(float *out) {
  int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  out[(blockIdx.x + blockIdx.y + blockIdx.z + t) % 4096] = t;
}

extern "C" __global__ void k_coop(float *out) {
  out[blockIdx.x % 4096] = threadIdx.x;
}

extern "C" __global__ void k_cluster(float *out) {
  out[blockIdx.x % 4096] = threadIdx.x;
}

extern "C" __global__ void k_stream(float *out) {
  out[(blockIdx.x * blockDim.x + threadIdx.x) % 4096] = 1;
}

extern "C" __global__ void k_graph(float *out) {
  out[(blockIdx.x * blockDim.x + threadIdx.x) % 4096] += 1;
}

extern "C" __global__ void k_child(float *out) { out[threadIdx.x] = 2; }

extern "C" __global__ void k_after_fork(float *out) {
  out[blockIdx.x % 4096] = 3;
}

// Spins for about `cycles` clock cycles per block: long, even work.
extern "C" __global__ void k_long_full(float *out, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  out[(blockIdx.x * blockDim.x + threadIdx.x) % 4096] = 1;
}

extern "C" __global__ void k_long_few(float *out, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  out[(blockIdx.x * blockDim.x + threadIdx.x) % 4096] = 1;
}

static void basic(float *out, int sms) {
  int dyn = 64 * 1024;
  CHECK(cudaFuncSetAttribute(k_dyn_smem,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  dim3 g(2 * sms), b(256);
  k_dyn_smem<<<g, b, dyn>>>(out);
  note("k_dyn_smem", g, b, dyn, "regular", 0);
  dim3 g2(64, 64), b2(16, 16);
  k_2d<<<g2, b2>>>(out);
  note("k_2d", g2, b2, 0, "regular", 0);
  dim3 g3(8, 8, 8), b3(8, 8, 4);
  k_3d<<<g3, b3>>>(out);
  note("k_3d", g3, b3, 0, "regular", 0);
  CHECK(cudaGetLastError());
}

static void cooperative(float *out, int sms) {
  dim3 g(sms), b(128);
  void *args[] = {&out};
  CHECK(cudaLaunchCooperativeKernel((void *)k_coop, g, b, args, 0, 0));
  note("k_coop", g, b, 0, "cooperative", 0);
}

static void cluster(float *out, int sms, int major) {
  if (major < 9) return;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(2 * sms);
  cfg.blockDim = dim3(128);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, k_cluster, out));
  note("k_cluster", cfg.gridDim, cfg.blockDim, 0, "cluster", 0);
}

static void streams(float *out) {
  cudaStream_t s[2];
  dim3 g(128), b(64);
  for (int i = 0; i < 2; i++) {
    CHECK(cudaStreamCreate(&s[i]));
    k_stream<<<g, b, 0, s[i]>>>(out);
    note("k_stream", g, b, 0, "regular", 0);
  }
  for (int i = 0; i < 2; i++) {
    CHECK(cudaStreamSynchronize(s[i]));
    CHECK(cudaStreamDestroy(s[i]));
  }
}

// Two kernels captured into a graph, the graph launched twice.
static void graph(float *out) {
  cudaStream_t s;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  dim3 g(32), b(96);
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  k_graph<<<g, b, 0, s>>>(out);
  k_graph<<<g, b, 0, s>>>(out);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 2; i++) {
    CHECK(cudaGraphLaunch(exec, s));
    note("k_graph", g, b, 0, "regular", 1);
    note("k_graph", g, b, 0, "regular", 1);
  }
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
}

// About 1 ms per launch at the device's clock.
static void long_kernels(float *out, int sms, int clock_khz) {
  long long cycles = (long long)clock_khz;  // kHz x 1 ms
  dim3 g(8 * sms), b(256);
  k_long_full<<<g, b>>>(out, cycles);
  note("k_long_full", g, b, 0, "regular", 0);
  dim3 g2(sms / 2), b2(256);
  k_long_few<<<g2, b2>>>(out, cycles);
  note("k_long_few", g2, b2, 0, "regular", 0);
}

static int child_main(void) {
  float *out;
  CHECK(cudaMalloc(&out, 4096 * sizeof(float)));
  k_child<<<1, 32>>>(out);
  note("k_child", dim3(1), dim3(32), 0, "regular", 0);
  CHECK(cudaDeviceSynchronize());
  return 0;
}

// The child process: the same program, exec'd, so the injection reaches it
// through the environment as it reaches any child.
static void child(const char *self, const char *path) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self, self, path, "child", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) {
    fprintf(stderr, "launches: the child process failed (%d)\n", status);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: launches MANIFEST [child]\n");
    return 2;
  }
  if (!(manifest = fopen(argv[1], "a"))) return 1;
  if (argc > 2 && strcmp(argv[2], "child") == 0) return child_main();
  int sms, major, clock_khz;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  float *out;
  CHECK(cudaMalloc(&out, 4096 * sizeof(float)));
  basic(out, sms);
  cooperative(out, sms);
  cluster(out, sms, major);
  streams(out);
  graph(out);
  long_kernels(out, sms, clock_khz);
  CHECK(cudaDeviceSynchronize());
  child(argv[0], argv[1]);
  k_after_fork<<<sms, 128>>>(out);
  note("k_after_fork", dim3(sms), dim3(128), 0, "regular", 0);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(out));
  return 0;
}
