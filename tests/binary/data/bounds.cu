__global__ void __launch_bounds__(256, 2) lbk(float *a) { __shared__ float s[300]; s[threadIdx.x] = a[threadIdx.x]; __syncthreads(); a[threadIdx.x] = s[threadIdx.x ^ 1]; }
__global__ void __launch_bounds__(128) lbk2(float *a) { a[threadIdx.x] += 1; }
