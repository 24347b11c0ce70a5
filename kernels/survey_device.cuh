/* survey_device.cuh - the clock and SM id that the survey probes
 * (carveout_survey.cu, config_survey.cu) read: each block counts itself
 * in and out of its SM and spins for a fixed time on the global timer. */
#ifndef OCC_SURVEY_DEVICE_CUH
#define OCC_SURVEY_DEVICE_CUH

static __device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static __device__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

#endif
