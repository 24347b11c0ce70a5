/* run_device.h - the device each launch of `occcalc run` ran on: the
 * database's board of the name the program's driver gave, or its
 * architecture of the compute capability, with the driver's SM count;
 * else the GPU itself, opened after the program (so that occcalc holds
 * no context while it runs). A cluster launch's domains are a board's
 * (make cluster-survey): where the records name only an architecture,
 * the live GPU of the launch's ordinal gives them.
 *
 * Here, not in the model, because it may open GPUs; here, not in the
 * command line, because which device a record names is the live
 * backend's knowledge, as the records' reader is. Each ordinal is
 * looked up once, and each GPU opened at most once. */
#ifndef OCC_RUN_DEVICE_H
#define OCC_RUN_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/occ.h"
#include "db/gpudb.h"
#include "live/gpu.h"
#include "live/records.h"
#include "model/launch_record.h"

/* The devices of one run, by ordinal. */
typedef struct occ_run_devices {
  const occ_gpudb *db;
  occ_gpu *gpus[OCC_RECORD_DEVICES];
  bool gpu_tried[OCC_RECORD_DEVICES];
  occ_device devices[OCC_RECORD_DEVICES]; /* from the records' capability */
  bool device_known[OCC_RECORD_DEVICES];
} occ_run_devices;

/* An empty table over db (not owned). */
void occ_run_devices_init(occ_run_devices *devices, const occ_gpudb *db);

/* What occ_run_device_of found wrong, beside the device. */
typedef struct occ_run_device_why {
  /* The launch's GPU was opened now and could not be: why (the GPU is
   * not opened again, and its later launches say nothing). */
  bool open_failed;
  char open[512];
  /* A cluster launch whose domains stay unknown: why, where the core's
   * reason would be wrong; else NULL. */
  const char *layout;
} occ_run_device_why;

/* The device launch ran on, valid until occ_run_devices_close, or NULL
 * when it cannot be known (see why). */
const occ_device *occ_run_device_of(occ_run_devices *devices,
                                    const occ_launch_record *launch,
                                    occ_run_device_why *why);

/* Closes the GPUs opened; NULL-safe. */
void occ_run_devices_close(occ_run_devices *devices);

#endif
