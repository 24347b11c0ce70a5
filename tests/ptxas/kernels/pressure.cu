// Register pressure under a tight __launch_bounds__ (spills), a local array
// indexed at run time (a stack frame), and a recursive device function that
// ptxas reports as a non-entry function with its own stack frame.
template <int N>
__global__ void __launch_bounds__(1024, 2)
    many_live(const float *in, float *out, int k) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; i++) acc[i] = in[threadIdx.x + i * 1024];
#pragma unroll
  for (int r = 0; r < 4; r++)
#pragma unroll
    for (int i = 0; i < N; i++) acc[i] = acc[i] * acc[(i + k) % N] + 1.0f;
  float s = 0;
#pragma unroll
  for (int i = 0; i < N; i++) s += acc[i] * (float)i;
  out[threadIdx.x] = s;
}
template __global__ void many_live<96>(const float *, float *, int);

__global__ void local_array(const int *idx, int *out) {
  int table[64];
  for (int i = 0; i < 64; i++) table[i] = idx[i] * 3;
  out[threadIdx.x] = table[idx[threadIdx.x] & 63];
}

__device__ __noinline__ int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void __launch_bounds__(256) recursive(int *out) {
  out[threadIdx.x] = fib(threadIdx.x & 15);
}
