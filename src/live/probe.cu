/* probe.cu - the probe kernel of occcalc's live verifier.
 *
 * Built to PTX at build time and JIT-compiled at run time with the driver's
 * max-registers option, so that one kernel can use any register count from
 * the compiler's floor up to 255: it keeps PROBE_LIVE loop-carried values,
 * more than any cap, so the compiler fills the cap exactly and spills the
 * rest. It has no static shared memory; the verifier reproduces shared
 * memory as dynamic shared memory.
 *
 * Thread 0 of each block records the SM it runs on and the global timer at
 * entry and after it has spun for spin_ns, so the host can count
 * how many blocks overlapped in time on each SM (resident blocks) and how
 * long warps stayed resident (achieved occupancy).
 */

/* More than 255 so that the 255-register cap is filled too. */
#define PROBE_LIVE 288

struct probe_record {
  unsigned long long start_ns;
  unsigned long long end_ns;
  unsigned int smid;
  unsigned int pad;
};

static __device__ __forceinline__ unsigned long long global_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

static __device__ __forceinline__ unsigned int sm_id(void) {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/* The spin ends after spin_ns of global time or max_cycles of SM clock,
 * whichever comes first: a stalled global timer cannot hang the probe. */
extern "C" __global__ void occ_probe(struct probe_record *records,
                                     const float *seed, float *sink,
                                     unsigned long long spin_ns,
                                     long long max_cycles) {
  unsigned long long start = global_ns();
  long long cycles0 = clock64();
  float v[PROBE_LIVE];
#pragma unroll
  for (int i = 0; i < PROBE_LIVE; i++) v[i] = seed[(threadIdx.x + i) & 255];
  /* The spin touches two values only, so that an iteration stays short
   * whatever was spilled; all PROBE_LIVE values stay live across it. The
   * never-taken store keeps the loads above the loop (it might alias them). */
  float acc = v[0];
  unsigned int iterations = 0;
  while (global_ns() - start < spin_ns && clock64() - cycles0 < max_cycles) {
    acc = fmaf(acc, v[1], 0.5f);
    if (++iterations == 0u) sink[threadIdx.x] = acc;
  }
  float sum = acc;
#pragma unroll
  for (int i = 0; i < PROBE_LIVE; i++) sum += v[i];
  /* Never true for the seeds the host writes; keeps the values alive.
   * sink holds 1024 floats: one per thread of a block. */
  if (sum == 1234.5f) sink[threadIdx.x] = sum;
  /* The end is recorded before the barrier, so no warp of this block has
   * exited yet: a warp that exits frees its registers and warp slot, and a
   * new block may start in them while the rest of this one still runs. */
  if (threadIdx.x == 0) {
    struct probe_record r;
    r.start_ns = start;
    r.end_ns = global_ns();
    r.smid = sm_id();
    r.pad = 0;
    records[blockIdx.x] = r;
  }
  __syncthreads();
}
