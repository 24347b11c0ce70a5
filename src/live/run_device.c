/* run_device.c - the device of each launch of a run (see run_device.h). */
#include "live/run_device.h"

#include <stdio.h>
#include <string.h>

#include "model/cluster.h"

void occ_run_devices_init(occ_run_devices *devices, const occ_gpudb *db) {
  memset(devices, 0, sizeof *devices);
  devices->db = db;
}

/* The board the program's driver named, where the database has it with
 * the same capability and SM count: its entry (limits and cluster
 * domains) in place of the architecture's. The device keeps the driver's
 * name either way; limits_from names the entry. */
static void board_of(const occ_gpudb *db, const occ_launch_record *l,
                     occ_device *d) {
  if (!l->device_name[0]) return;
  occ_device board;
  char near[256];
  if (occ_gpudb_find_gpu(db, l->device_name, &board, near, sizeof near) == 0 &&
      board.cc_major == d->cc_major && board.cc_minor == d->cc_minor &&
      board.sm_count == d->sm_count) {
    board.sm_count_source = d->sm_count_source;
    *d = board;
  }
  snprintf(d->name, sizeof d->name, "%.*s", OCC_NAME_MAX - 1, l->device_name);
}

/* The database's device of the launch's compute capability (and board),
 * with the driver's SM count, the first time the ordinal's is read. */
static void look_up(occ_run_devices *t, const occ_launch_record *l) {
  int o = l->device;
  char err[512];
  if (t->device_known[o] || l->cc_major <= 0 ||
      occ_gpudb_find_cc(t->db, l->cc_major, l->cc_minor, &t->devices[o], err,
                        sizeof err) != 0)
    return;
  t->devices[o].sm_count = l->sm_count;
  t->devices[o].sm_count_source = "driver";
  board_of(t->db, l, &t->devices[o]);
  t->device_known[o] = true;
}

/* The live GPU of ordinal o, opened once. Returns false where it was
 * opened now and could not be, with why. */
static bool open_once(occ_run_devices *t, int o, char *why, size_t why_size) {
  if (t->gpu_tried[o]) return true;
  t->gpu_tried[o] = true;
  if (occ_gpu_open(o, t->db, &t->gpus[o], why, why_size) == OCC_GPU_OK)
    return true;
  t->gpus[o] = NULL;
  return false;
}

/* A cluster launch on a device of the database's architecture: the live
 * GPU's domains where it is the same device (occ_gpu_open takes them
 * from the database's board of the GPU's name, SM count and capability).
 * Returns why the layout stays unknown where the core's reason would be
 * wrong, else NULL. */
static const char *attach_cluster_layout(occ_run_devices *t, int o) {
  occ_device *d = &t->devices[o];
  if (!t->device_known[o] || d->cluster_domain_count > 0) return NULL;
  char err[512];
  (void)open_once(t, o, err, sizeof err); /* the reason below says it */
  const occ_device *live = t->gpus[o] ? occ_gpu_device(t->gpus[o]) : NULL;
  if (!live)
    return "the launch records name an architecture, not a board, and the "
           "GPU could not be read for its cluster domains";
  if (live->cluster_domain_count > 0 && live->sm_count == d->sm_count &&
      live->cc_major == d->cc_major && live->cc_minor == d->cc_minor) {
    d->cluster_domain_count = live->cluster_domain_count;
    memcpy(d->cluster_domain_sms, live->cluster_domain_sms,
           sizeof d->cluster_domain_sms);
    d->cluster_max_blocks_per_sm = live->cluster_max_blocks_per_sm;
  }
  return NULL;
}

const occ_device *occ_run_device_of(occ_run_devices *t,
                                    const occ_launch_record *l,
                                    occ_run_device_why *why) {
  int o = l->device;
  why->open_failed = false;
  why->layout = NULL;
  if (o < 0 || o >= OCC_RECORD_DEVICES) return NULL;
  look_up(t, l);
  const occ_device *d = t->device_known[o] ? &t->devices[o] : NULL;
  if (!d) {
    why->open_failed = !open_once(t, o, why->open, sizeof why->open);
    d = t->gpus[o] ? occ_gpu_device(t->gpus[o]) : NULL;
  }
  occ_cluster cluster;
  if (d && occ_model_cluster_of_dims(l->cluster, &cluster))
    why->layout = attach_cluster_layout(t, o);
  return d;
}

void occ_run_devices_close(occ_run_devices *t) {
  if (!t) return;
  for (int i = 0; i < OCC_RECORD_DEVICES; i++) occ_gpu_close(t->gpus[i]);
}
