/* devselect.c - the device selection's diagnostics and --list-gpus. */
#include "cli/devselect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render/report.h"
#include "text/text_safe.h"

/* The one line of a database that did not load: out of memory when an
 * allocation of the load failed (errno ENOMEM, which malloc and fopen
 * set; the loader's own "malformed JSON" then only means cJSON could not
 * allocate), else the file's fault. */
static int data_error(FILE *err, const char *why) {
  if (errno == ENOMEM) {
    occ_msg(err, "--data: out of memory");
    return OCC_EXIT_FAILURE;
  }
  occ_msg(err, "--data: %s", why);
  return OCC_EXIT_USAGE;
}

int occ_load_database(const occ_cli *cli, FILE *err, occ_gpudb **db) {
  char why[OCC_TARGET_WHY_MAX];
  errno = 0;
  *db = occ_gpudb_load(cli->data_path, why, sizeof why);
  return *db ? OCC_EXIT_OK : data_error(err, why);
}

/* Which name a board was looked up by, in the words of the messages. */
static const char *board_source(occ_target_by by) {
  return by == OCC_TARGET_BY_GPU ? "--gpu" : by == OCC_TARGET_BY_ENV ? "OCCCALC_GPU"
                                                                     : "default_gpu";
}

int occ_target_vendor_error(const occ_target *t, FILE *err) {
  switch (t->status) {
  case OCC_TARGET_LOAD_FAILED: return data_error(err, t->why);
  case OCC_TARGET_UNKNOWN_AMD_ARCH:
    return occ_cli_usage_error(err, "--arch: unknown AMD target '%s' (nearest "
                               "known: %s; see --list-gpus)", t->name, t->amd_near);
  case OCC_TARGET_UNKNOWN_GPU:
    return occ_cli_usage_error(err, "%s: unknown GPU '%s' (nearest known: %s; AMD: "
                               "%s; see --list-gpus)", board_source(t->by), t->name,
                               t->near, t->amd_near);
  default: return OCC_EXIT_OK;
  }
}

/* The NVIDIA lookup's failure: an AMD target counts as one (a gfx name is
 * not an architecture, an AMD board not an NVIDIA one), and the board
 * message names NVIDIA's nearest alone. */
static int nvidia_error(const occ_target *t, FILE *err) {
  if (t->status == OCC_TARGET_LOAD_FAILED) return data_error(err, t->why);
  if (t->by != OCC_TARGET_BY_ARCH) {
    if (t->status == OCC_TARGET_FOUND && !t->amd) return OCC_EXIT_OK;
    return occ_cli_usage_error(err, "%s: unknown GPU '%s' (nearest known: %s; see "
                               "--list-gpus)", board_source(t->by), occ_target_name(t),
                               t->near);
  }
  if (t->status == OCC_TARGET_UNKNOWN_CC)
    return occ_cli_usage_error(err, "--arch/--cc: unknown compute capability %d.%d "
                               "(nearest known: %s; see --list-gpus)", t->major, t->minor,
                               t->near);
  if (t->status != OCC_TARGET_FOUND || t->amd)
    return occ_cli_usage_error(err, "--arch/--cc: '%s' is not an architecture "
                               "(accepted: sm_XY, sm_XYa, sm_XYf, compute_XY or X.Y "
                               "with X 1 to 19, e.g. sm_90a, sm_100, 9.0)", t->name);
  return OCC_EXIT_OK;
}

int occ_target_device(const occ_cli *cli, const occ_target *t, occ_device *device,
                      const char **note, FILE *err) {
  *note = NULL;
  int rc = nvidia_error(t, err);
  if (rc != OCC_EXIT_OK) return rc;
  *device = t->device;
  if (cli->sms > 0) {
    device->sm_count = (int)cli->sms;
    device->sm_count_source = "--sms";
  }
  if (t->by == OCC_TARGET_BY_ENV) *note = "from OCCCALC_GPU";
  if (t->by == OCC_TARGET_BY_DEFAULT) *note = "the default; set OCCCALC_GPU to change it";
  return OCC_EXIT_OK;
}

int occ_select_device(const occ_gpudb *db, const occ_cli *cli, occ_device *device,
                      const char **note, FILE *err) {
  occ_target_query query = occ_cli_target_query(cli);
  occ_target target;
  occ_gpudb_resolve(db, &query, &target);
  return occ_target_device(cli, &target, device, note, err);
}

int occ_list_gpus(const occ_gpudb *db, bool json, FILE *out) {
  occ_gpu_catalog catalog;
  if (occ_gpudb_catalog(db, &catalog) != 0) {
    occ_msg(stderr, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  int rc = OCC_EXIT_OK;
  if (json) {
    cJSON *root = occ_json_gpu_list(&catalog);
    rc = occ_exit_of_write(occ_print_json(out, root));
    cJSON_Delete(root);
  } else {
    occ_print_gpu_list(out, &catalog);
  }
  free(catalog.storage);
  return rc;
}
