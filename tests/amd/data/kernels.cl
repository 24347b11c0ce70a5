/* Kernels compiled by make_logs.sh for the AMD remark reader's tests. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void reduce(__global const float *in, __global float *out, int n) {
  __local float tile[256];
  int lid = get_local_id(0);
  int gid = get_global_id(0);
  tile[lid] = gid < n ? in[gid] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 128; s > 0; s >>= 1) {
    if (lid < s) tile[lid] += tile[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = tile[0];
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void saxpy(__global float *y, __global const float *x, float a) {
  int i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}

/* Many values live at once: a high VGPR count. */
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void wide(__global float *out, __global const float *in, int n) {
  float acc[96];
  int i = get_global_id(0);
  for (int k = 0; k < 96; k++) acc[k] = in[i + k * n];
  for (int r = 0; r < 8; r++)
    for (int k = 0; k < 96; k++) acc[k] = acc[k] * acc[(k + r + 1) % 96] + 1.0f;
  float s = 0.0f;
  for (int k = 0; k < 96; k++) s += acc[k] * (float)k;
  out[i] = s;
}

/* A large LDS tile and the default (unbounded) workgroup size. */
__kernel void stencil(__global float *out, __global const float *in) {
  __local float tile[8192];
  int lid = get_local_id(0);
  for (int k = lid; k < 8192; k += get_local_size(0)) tile[k] = in[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[(lid * 7) % 8192] + tile[(lid * 13) % 8192];
}
