/* inject_lib.h - the parts of libocc_inject.so (inject.c: the entry point,
 * the kernel records; inject_counters.c: the per-launch counters). Only the
 * library is built from these files, never ./occcalc. */
#ifndef OCC_INJECT_LIB_H
#define OCC_INJECT_LIB_H

#include <cupti.h>
#include <stdbool.h>

#include "model/launch_record.h"

/* The CUPTI functions the library uses beside the Range Profiler's
 * (counter.c), resolved with dlsym: the library links no CUDA library, so
 * loading it never fails for a missing one. */
#define INJECT_CUPTI_FUNCS(X)                                                \
  X(cuptiGetVersion)                                                         \
  X(cuptiActivityRegisterCallbacks)                                          \
  X(cuptiActivityEnable)                                                     \
  X(cuptiActivityGetNextRecord)                                              \
  X(cuptiActivityGetNumDroppedRecords)                                       \
  X(cuptiActivityFlushAll)                                                   \
  X(cuptiActivityFlushPeriod)                                                \
  X(cuptiSubscribe_v2)                                                       \
  X(cuptiEnableCallback)                                                     \
  X(cuptiGetDeviceId)                                                        \
  X(cuptiGetContextId)

typedef struct occ_inject_api {
#define INJECT_FIELD(name) __typeof__(name) *name;
  INJECT_CUPTI_FUNCS(INJECT_FIELD)
#undef INJECT_FIELD
} occ_inject_api;

extern occ_inject_api occ_inject_cupti;

/* A function of the program's own CUDA driver (already loaded: the
 * library is loaded by it), or NULL. */
void *occ_inject_driver_symbol(const char *name);

/* Reads count attributes of the device of ordinal into values; false
 * when the driver cannot say (values then partly unset). */
bool occ_inject_device_attributes(int ordinal, const CUdevice_attribute *which,
                                  int *values, int count);

/* Appends one record to the output (one write). */
void occ_inject_write(const occ_launch_record *record);

/* Fills the fields every record has (magic, kind, pid). */
void occ_inject_record_init(occ_launch_record *record, occ_record_kind kind);

/* Notes a launch's attributes at launch time (see inject_attrs.c) from
 * the driver call's id and parameters, under both its correlation ids. */
void occ_inject_attrs_note(CUpti_CallbackId id, const void *params,
                           uint32_t driver_correlation,
                           uint32_t runtime_correlation);

/* Fills a LAUNCH record's at-launch fields from the note of its
 * correlation id, if there is one; the requested carveout too (the
 * attribute the driver launched with wins over CUPTI's field). */
void occ_inject_attrs_fill(occ_launch_record *record);

/* Subscribes to launches and contexts, notes every launch's attributes,
 * and with profile profiles kernels with the achieved-occupancy metric
 * and metrics (a comma list, or NULL): the first `launches` (a decimal
 * count; "0" or NULL: all) of each launch configuration. Returns 0, or -1
 * (with profile, a NO_COUNTERS record written). */
int occ_inject_counters_start(bool profile, const char *metrics,
                              const char *launches);

/* Collects what the last launches left and stops profiling. */
void occ_inject_counters_finish(void);

/* The library's cost to the process so far, into an OCC_RECORD_SUMMARY
 * record's values and why (inject_counters.c keeps the accounts). */
void occ_inject_counters_summary(occ_launch_record *summary);

/* Adds seconds spent in the library outside the callbacks (its start and
 * its exit) to the summary's time. */
void occ_inject_counters_add_seconds(double seconds);

/* A monotonic clock in seconds. */
double occ_inject_now(void);

/* Before a launch: waits, the first time, until occcalc's sampler
 * samples (inject.c). */
void occ_inject_gate(void);

#endif
