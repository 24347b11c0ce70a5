/* survey_config.cuh - the host side the configuration surveys share
 * (config_survey.cu, config_small.cu): the shared-memory configuration
 * the driver chose for the last launch, read from CUPTI's kernel activity
 * record (sharedMemoryExecuted), and one probe launch of three waves with
 * the fewest and most blocks any SM held. The probe kernels take
 * (in_sm, peak, sink, spin_ns): each block counts itself in and out of
 * its SM (survey_device.cuh). */
#ifndef OCC_SURVEY_CONFIG_CUH
#define OCC_SURVEY_CONFIG_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cupti.h>

static unsigned last_executed;
static int records;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records) {
  *size = 1 << 20;
  *buffer = (uint8_t *)aligned_alloc(8, *size);
  *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t *buffer,
                                      size_t, size_t valid) {
  CUpti_Activity *record = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    last_executed = ((CUpti_ActivityKernel10 *)record)->sharedMemoryExecuted;
    records++;
  }
  free(buffer);
}

static int sm_count;
static int *in_sm, *peak;
static float *sink;

/* The device's buffers and CUPTI's kernel records; name says who could
 * not have them (executed is then -1). Under ncu, which holds CUPTI
 * itself, executed is -1 too: ncu names the configuration. */
static void survey_start(const char *name) {
  cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
  cudaMalloc(&in_sm, 1024 * sizeof(int));
  cudaMalloc(&peak, 1024 * sizeof(int));
  cudaMalloc(&sink, 1024 * sizeof(float));
  cudaMemset(sink, 0, 1024 * sizeof(float));
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) !=
          CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
    fprintf(stderr, "%s: CUPTI's activity API is not available; "
                    "executed is -1\n", name);
}

/* What one probe launch gave. */
struct probe_seen {
  int lo, hi;      /* the fewest and most blocks an SM held */
  long executed;   /* the configuration's bytes; -1 without a record */
  cudaError_t err; /* the launch's */
};

/* Three waves of the most blocks any configuration here can hold (32 a
 * SM), each block spinning 20 us. */
template <typename Kernel>
static probe_seen probe_launch(Kernel kernel, int block, int dyn) {
  cudaMemset(peak, 0, sm_count * sizeof(int));
  cudaMemset(in_sm, 0, sm_count * sizeof(int));
  int before = records;
  kernel<<<3 * 32 * sm_count, block, dyn>>>(in_sm, peak, sink, 20000);
  probe_seen s;
  s.err = cudaDeviceSynchronize();
  cuptiActivityFlushAll(1);
  int seen[1024];
  s.lo = 1 << 30;
  s.hi = 0;
  cudaMemcpy(seen, peak, sm_count * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < sm_count; i++) {
    if (seen[i] < s.lo) s.lo = seen[i];
    if (seen[i] > s.hi) s.hi = seen[i];
  }
  s.executed = records > before ? (long)last_executed : -1;
  return s;
}

#endif
