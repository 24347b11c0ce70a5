/* activity.h - the SM's shared-memory configuration the driver chose for
 * one launch, read from CUPTI's kernel activity record
 * (CUpti_ActivityKernel10.sharedMemoryExecuted). The driver picks the
 * configuration at each launch; nothing else reports it before Nsight
 * Compute.
 *
 * CUPTI is loaded with dlopen (counter.h's occ_cupti_open) on the first
 * occ_activity_begin, so occcalc starts without it. Its activity buffers
 * are the process's, so the state here is too: one launch is traced at a
 * time. A failure is a reason in why, never an error of the caller.
 */
#ifndef OCC_ACTIVITY_H
#define OCC_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

/* Loads CUPTI (once) and starts recording kernel records: the caller then
 * launches exactly one kernel and waits for it. Returns 0, or -1 with the
 * reason in why (remembered: a later call fails at once with it). */
int occ_activity_begin(char *why, size_t why_size);

/* Delivers the records of the launch since occ_activity_begin and stops
 * recording. Returns 0 with the configuration in *smem_executed_bytes
 * when exactly one kernel record came, else -1 with the reason in why. */
int occ_activity_end(int64_t *smem_executed_bytes, char *why,
                     size_t why_size);

#endif
