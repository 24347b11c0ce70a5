/* A kernel for the --module test: static shared memory and enough live
 * values that its register count is not the compiler's floor. */
extern "C" __global__ void module_test_kernel(float *out, const float *in,
                                              int n) {
  __shared__ float tile[1024];
  float acc[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 16; k++) acc[k] = in[(i + k * 97) % n];
  tile[threadIdx.x] = acc[0];
  __syncthreads();
  float sum = tile[(threadIdx.x + 1) % blockDim.x];
#pragma unroll
  for (int k = 0; k < 16; k++) sum = sum * acc[k] + acc[(k + 3) % 16];
  if (i < n) out[i] = sum;
}

/* A C++ kernel, for --kernel by its readable name: "scaled<4>" or
 * "scaled<4>(float*, int)" name it, as does its mangled name. */
template <int N> __global__ void scaled(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] *= N;
}
template __global__ void scaled<4>(float *, int);
