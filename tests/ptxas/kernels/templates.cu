// Kernels whose names need demangling: templates, namespaces, functors and
// an extern "C" kernel, so the parser meets every shape of name.
namespace occ_test {

template <int TILE, typename T>
__global__ void tile_copy(T *out, const T *in, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) out[i] = in[i] * T(2);
}

struct scale {
  float factor;
  __device__ float operator()(float x) const { return x * factor; }
};

template <typename F>
__global__ void apply(float *data, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}

template __global__ void tile_copy<64, double>(double *, const double *, int);
template __global__ void tile_copy<128, float>(float *, const float *, int);
template __global__ void apply<scale>(float *, int, scale);

}  // namespace occ_test

extern "C" __global__ void c_linkage_saxpy(float a, const float *x, float *y,
                                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
