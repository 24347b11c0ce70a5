/* cupti_buffer.h - CUPTI's activity buffers, one way for both users: the
 * verifier's probe (activity.c, in occcalc) and the injection library
 * (inject.c, in the user's process), which are two programs and so share
 * this header rather than an object. */
#ifndef OCC_CUPTI_BUFFER_H
#define OCC_CUPTI_BUFFER_H

#include <cupti_activity.h>
#include <stdint.h>
#include <stdlib.h>

/* CUPTI asks for a buffer: bytes of it, aligned as CUPTI requires (size 0
 * when out of memory: CUPTI then drops records and counts them). */
static inline void occ_cupti_buffer_new(uint8_t **buffer, size_t *size,
                                        size_t *max_records, size_t bytes) {
  *buffer = aligned_alloc(8, bytes);
  *size = *buffer ? bytes : 0;
  *max_records = 0;
}

/* CUPTI hands a buffer back: each kernel record of its valid bytes goes to
 * on_kernel, read as this header's CUpti_ActivityKernel10 (the kinds
 * KERNEL and CONCURRENT_KERNEL share it), then the buffer is freed. next
 * is cuptiActivityGetNextRecord as the caller resolved it. */
static inline void occ_cupti_buffer_each_kernel(
    __typeof__(cuptiActivityGetNextRecord) *next, uint8_t *buffer,
    size_t valid, void (*on_kernel)(const CUpti_ActivityKernel10 *)) {
  CUpti_Activity *record = NULL;
  while (next(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
      on_kernel((const CUpti_ActivityKernel10 *)record);
  free(buffer);
}

#endif
