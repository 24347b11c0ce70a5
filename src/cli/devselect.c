/* devselect.c - the device selection's diagnostics and --list-gpus. */
#include "cli/devselect.h"

#include <string.h>

#include "render/report.h"
#include "render/text_safe.h"

/* The one line of a database that did not load. */
static int data_error(FILE *err, const char *why) {
  occ_msg(err, "--data: %s", why);
  return OCC_EXIT_USAGE;
}

occ_gpudb *occ_load_database(const occ_cli *cli, FILE *err) {
  char why[OCC_TARGET_WHY_MAX];
  occ_gpudb *db = cli->data_path ? occ_gpudb_load_file(cli->data_path, why, sizeof why)
                                 : occ_gpudb_load_builtin(why, sizeof why);
  if (!db) data_error(err, why);
  return db;
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
  if (cli->sms > 0) device->sm_count = (int)cli->sms;
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

static int list_json(const occ_gpudb *db, FILE *out) {
  cJSON *root = occ_json_gpu_list(db);
  int rc = occ_exit_of_write(occ_print_json(out, root));
  cJSON_Delete(root);
  return rc;
}

static void list_row(FILE *out, const occ_device *d, const char *family) {
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  char sms[16] = "-";
  if (d->sm_count > 0) snprintf(sms, sizeof sms, "%d", d->sm_count);
  fprintf(out, "%-26.26s %-5s %-12.12s %6s %5d %6d %7lld %6lld\n", d->name, cc, family,
          sms, occ_device_max_warps(d), d->max_blocks_per_sm,
          (long long)d->regs_per_sm, (long long)(d->smem_per_sm_bytes / 1024));
}

/* AMD's boards and architectures, in AMD's words: CUs, the default wave
 * size, waves per SIMD, VGPRs per SIMD lane at that wave size, LDS per
 * CU. */
static void amd_row(FILE *out, const char *name, const occ_amd_arch *a, int cu_count,
                    const char *family) {
  char cus[16] = "-";
  if (cu_count > 0) snprintf(cus, sizeof cus, "%d", cu_count);
  bool w64 = a->default_wave_size == 64;
  fprintf(out, "%-26.26s %-7s %-12.12s %5s %4d %5d %6d %6d\n", name, a->name, family, cus,
          a->default_wave_size, a->max_waves_per_simd,
          w64 ? a->vgprs_per_simd_wave64 : a->vgprs_per_simd_wave32, a->lds_per_cu_bytes / 1024);
}

/* AMD's boards and architectures, after NVIDIA's; a database with none
 * (a --data file of NVIDIA entries alone) lists no empty table. */
static void list_amd(const occ_gpudb *db, FILE *out) {
  const char *header = "%-26s %-7s %-12s %5s %4s %5s %6s %6s\n";
  if (occ_gpudb_amd_gpu_count(db) == 0 && occ_gpudb_amd_arch_count(db) == 0) return;
  fprintf(out, "\n");
  fprintf(out, header, "AMD GPU (--gpu)", "ARCH", "FAMILY", "CUS", "WAVE", "WAVES", "VGPRS",
          "LDS_K");
  for (size_t i = 0; i < occ_gpudb_amd_gpu_count(db); i++) {
    occ_amd_gpu g;
    const char *family;
    occ_gpudb_amd_gpu_at(db, i, &g, &family, NULL);
    amd_row(out, g.name, &g.arch, g.cu_count, family ? family : "");
  }
  fprintf(out, "\n");
  fprintf(out, header, "AMD ARCHITECTURE (--arch)", "ARCH", "FAMILY", "CUS", "WAVE", "WAVES",
          "VGPRS", "LDS_K");
  for (size_t i = 0; i < occ_gpudb_amd_arch_count(db); i++) {
    occ_amd_arch a;
    const char *family;
    occ_gpudb_amd_arch_at(db, i, &a, &family, NULL);
    amd_row(out, a.name, &a, -1, family ? family : "");
  }
}

int occ_list_gpus(const occ_gpudb *db, bool json, FILE *out) {
  if (json) return list_json(db, out);
  const char *header = "%-26s %-5s %-12s %6s %5s %6s %7s %6s\n";
  fprintf(out, header, "GPU", "CC", "FAMILY", "SMS", "WARPS", "BLOCKS", "REGS", "SMEM_K");
  for (size_t i = 0; i < occ_gpudb_gpu_count(db); i++) {
    occ_device d;
    const char *family;
    occ_gpudb_gpu_at(db, i, &d, &family, NULL);
    list_row(out, &d, family);
  }
  fprintf(out, "\n");
  fprintf(out, header, "ARCHITECTURE (--arch/--cc)", "CC", "FAMILY", "SMS", "WARPS",
          "BLOCKS", "REGS", "SMEM_K");
  for (size_t i = 0; i < occ_gpudb_arch_count(db); i++) {
    occ_device d;
    const char *family;
    occ_gpudb_arch_at(db, i, &d, &family, NULL);
    list_row(out, &d, family);
  }
  list_amd(db, out);
  return OCC_EXIT_OK;
}
