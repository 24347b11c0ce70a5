// Static shared memory of several sizes and named barriers beyond the
// default one: ptxas reports both, and both feed the occupancy limits.
__global__ void reduce_4k(const float *in, float *out) {
  __shared__ float partial[1024];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void big_tile_40k(const double *in, double *out) {
  __shared__ double tile[5120];
  for (int i = threadIdx.x; i < 5120; i += blockDim.x) tile[i] = in[i];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 7) % 5120];
}

// Named barrier 3 (bar.sync with an id) makes ptxas count 4 barriers.
__global__ void named_barriers(int *data) {
  __shared__ int buf[256];
  buf[threadIdx.x] = data[threadIdx.x];
  asm volatile("bar.sync 3, %0;" ::"r"(blockDim.x));
  data[threadIdx.x] = buf[255 - threadIdx.x];
}
