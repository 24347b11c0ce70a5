/* counter.h - achieved occupancy from the hardware counter
 * sm__warps_active.avg.pct_of_peak_sustained_active, read in-process with
 * CUPTI's Range Profiler around one launch.
 *
 * CUPTI is loaded with dlopen on the first occ_counter_open, so occcalc
 * neither links against it nor loads it unless a counter is asked for.
 * Failures (no CUPTI, no profiling rights, more than one pass needed) come
 * back as a reason in why, meant to be shown as the counter's error.
 */
#ifndef OCC_COUNTER_H
#define OCC_COUNTER_H

#include <stddef.h>

typedef struct occ_counter occ_counter;

/* Prepares the Range Profiler on context cu_context (a CUcontext) of
 * device ordinal. Returns NULL with the reason in why. Free with
 * occ_counter_close. */
occ_counter *occ_counter_open(void *cu_context, int ordinal, char *why,
                              size_t why_size);

/* Starts one profiled range; the caller then launches and synchronizes. */
int occ_counter_begin(occ_counter *counter, char *why, size_t why_size);

/* Ends the range and evaluates the metric into *pct (0..100). */
int occ_counter_end(occ_counter *counter, double *pct, char *why,
                    size_t why_size);

/* Disables the profiler; NULL-safe. */
void occ_counter_close(occ_counter *counter);

#endif
