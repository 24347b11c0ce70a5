/* ref_header.h - calls into the toolkit's cuda_occupancy.h (included from
 * the toolkit, never copied) for the chart tests and benchmark: an
 * occ_device as the header's properties, and one kernel configuration as
 * its attributes and state. */
#ifndef OCC_REF_HEADER_H
#define OCC_REF_HEADER_H

#include <cuda_occupancy.h>
#include <string.h>

#include "core/occ.h"

static inline cudaOccDeviceProp ref_prop(const occ_device *d) {
  cudaOccDeviceProp p;
  memset(&p, 0, sizeof p);
  p.computeMajor = d->cc_major;
  p.computeMinor = d->cc_minor;
  p.maxThreadsPerBlock = d->max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
  p.regsPerBlock = d->regs_per_block;
  p.regsPerMultiprocessor = d->regs_per_sm;
  p.warpSize = d->warp_size;
  p.sharedMemPerBlock = (size_t)d->smem_per_block_bytes;
  p.sharedMemPerMultiprocessor = (size_t)d->smem_per_sm_bytes;
  p.numSms = d->sm_count > 0 ? d->sm_count : 1;
  p.sharedMemPerBlockOptin = (size_t)d->smem_per_block_optin_bytes;
  p.reservedSharedMemPerBlock = (size_t)d->reserved_smem_per_block_bytes;
  return p;
}

/* The attributes of a kernel with regs registers, no static shared memory
 * and opted in to dynamic_smem bytes (as occcalc assumes). */
static inline cudaOccFuncAttributes ref_attr(const occ_device *d, int regs,
                                             size_t dynamic_smem,
                                             int barriers) {
  cudaOccFuncAttributes a;
  memset(&a, 0, sizeof a);
  a.maxThreadsPerBlock = d->max_threads_per_block;
  a.numRegs = regs;
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = dynamic_smem;
  a.numBlockBarriers = barriers;
  return a;
}

/* The attributes of an occcalc kernel: static shared memory as compiled,
 * opted in to exactly its dynamic size (as occcalc assumes). */
static inline cudaOccFuncAttributes ref_kernel_attr(const occ_device *d,
                                                    const occ_kernel *k) {
  cudaOccFuncAttributes a =
      ref_attr(d, k->regs_per_thread, (size_t)k->smem_dynamic_bytes, k->barriers);
  a.sharedSizeBytes = (size_t)k->smem_static_bytes;
  return a;
}

/* A device state with a carveout preference (-1: none; zeroed state would
 * mean "maximum L1"). */
static inline cudaOccDeviceState ref_state(int carveout_pct) {
  cudaOccDeviceState s;
  memset(&s, 0, sizeof s);
  s.cacheConfig = CACHE_PREFER_NONE;
  s.carveoutConfig = carveout_pct;
  return s;
}

/* Active blocks per SM by the header; -1 when it reports an error. */
static inline int ref_blocks(const cudaOccDeviceProp *p,
                             const cudaOccFuncAttributes *a,
                             const cudaOccDeviceState *s, int threads,
                             size_t dynamic_smem) {
  cudaOccResult r;
  memset(&r, 0, sizeof r);
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, p, a, s, threads,
                                              dynamic_smem) != CUDA_OCC_SUCCESS)
    return -1;
  return r.activeBlocksPerMultiprocessor;
}

#endif
