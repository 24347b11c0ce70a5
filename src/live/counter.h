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

#include <stdbool.h>
#include <stddef.h>

/* Opens libcupti (the toolkit's, or a CUDA wheel's on the library path)
 * with dlopen and flags (RTLD_NOW | RTLD_LOCAL, or RTLD_GLOBAL where the
 * injection library needs it): its handle for dlsym, or NULL with the
 * reason in why. Every part of occcalc and of the injection library that
 * uses CUPTI loads it here, so the search paths are written once; it is
 * never unloaded. */
void *occ_cupti_open(int flags, char *why, size_t why_size);

/* The Profiler Host functions that build a configuration image, which
 * both the counters (counter.c) and the PM sampler (sampler.c) resolve
 * from the library occ_cupti_open opens: an X-macro list, each file
 * adding the functions of its own API. */
#define OCC_CUPTI_HOST_FUNCS(X)                                              \
  X(cuptiProfilerHostInitialize)                                             \
  X(cuptiProfilerHostDeinitialize)                                           \
  X(cuptiProfilerHostConfigAddMetrics)                                       \
  X(cuptiProfilerHostGetConfigImageSize)                                     \
  X(cuptiProfilerHostGetConfigImage)                                         \
  X(cuptiProfilerHostGetNumOfPasses)                                         \
  X(cuptiProfilerHostEvaluateToGpuValues)

/* A Range Profiler session of any single-context metrics, shared by the
 * probe's counter below and by the injection library of `occcalc run`.
 * auto_ranges: every kernel launch is its own range, replayed by CUPTI as
 * many times as the metrics need (kernel replay: the launch returns once
 * the kernel has run and been measured); else ranges are pushed
 * and popped by the caller and the metrics must fit in one pass. */
typedef struct occ_prof occ_prof;

/* Prepares the profiler on context cu_context (a CUcontext) of device
 * ordinal for metric_count metrics and at most max_ranges ranges per
 * session. Returns NULL with the reason in why. Free with occ_prof_close. */
occ_prof *occ_prof_open(void *cu_context, int ordinal,
                        const char *const *metrics, int metric_count,
                        bool auto_ranges, size_t max_ranges, char *why,
                        size_t why_size);

/* occ_prof_open in two steps, for a caller that builds the configuration
 * before the context exists: occ_prof_prepare loads CUPTI and builds the
 * host configuration for device ordinal (no context needed; about 0.1 s
 * on an H100), occ_prof_enable enables it on cu_context. A prepared
 * session not enabled is freed with occ_prof_close. */
occ_prof *occ_prof_prepare(int ordinal, const char *const *metrics,
                           int metric_count, bool auto_ranges,
                           size_t max_ranges, char *why, size_t why_size);
int occ_prof_enable(occ_prof *prof, void *cu_context, char *why,
                    size_t why_size);

/* Starts a session: ranges from here on are collected. */
int occ_prof_start(occ_prof *prof, char *why, size_t why_size);

/* Empties the counter data of a running session (after occ_prof_decode
 * and occ_prof_values), so it collects the next ranges from index 0. */
int occ_prof_reset(occ_prof *prof, char *why, size_t why_size);

/* User ranges only: one range named name around the caller's launches. */
int occ_prof_push(occ_prof *prof, const char *name, char *why,
                  size_t why_size);
int occ_prof_pop(occ_prof *prof, char *why, size_t why_size);

/* Ends the session. */
int occ_prof_stop(occ_prof *prof, char *why, size_t why_size);

/* Decodes the ranges collected so far (during or after the session);
 * *ranges (unless ranges is NULL) says how many the data holds. */
int occ_prof_decode(occ_prof *prof, size_t *ranges, char *why,
                    size_t why_size);

/* The metrics of range index of the last session, in the order given to
 * occ_prof_open, into values; *range_name (unless range_name is NULL)
 * points into the profiler's data (valid until the next session). */
int occ_prof_values(occ_prof *prof, size_t index, double *values,
                    const char **range_name, char *why, size_t why_size);

/* Disables the profiler; NULL-safe. */
void occ_prof_close(occ_prof *prof);

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
