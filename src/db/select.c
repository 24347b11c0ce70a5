/* select.c - resolving a query to one device (see select.h). */
#include "db/select.h"

#include <stdio.h>
#include <string.h>

#include "core/cc.h"

static occ_target_status amd_arch(const occ_gpudb *db, occ_target *t) {
  if (occ_gpudb_find_amd_arch(db, t->name, &t->amd_gpu.arch, t->amd_near,
                              sizeof t->amd_near) != 0)
    return OCC_TARGET_UNKNOWN_AMD_ARCH;
  t->amd = true;
  snprintf(t->amd_gpu.name, sizeof t->amd_gpu.name, "%s", t->amd_gpu.arch.name);
  t->amd_gpu.cu_count = -1;
  return OCC_TARGET_FOUND;
}

/* A board by name: NVIDIA's first, then AMD's (not for the default, which
 * the loader checked among NVIDIA's). */
static occ_target_status board(const occ_gpudb *db, occ_target *t) {
  const char *name = occ_target_name(t);
  if (occ_gpudb_find_gpu(db, name, &t->device, t->near, sizeof t->near) == 0)
    return OCC_TARGET_FOUND;
  if (t->by == OCC_TARGET_BY_DEFAULT) return OCC_TARGET_UNKNOWN_DEFAULT;
  if (occ_gpudb_find_amd_gpu(db, name, &t->amd_gpu, t->amd_near, sizeof t->amd_near) != 0)
    return OCC_TARGET_UNKNOWN_GPU;
  t->amd = t->amd_board = true;
  return OCC_TARGET_FOUND;
}

static occ_target_status capability(const occ_gpudb *db, occ_target *t) {
  if (occ_parse_cc(t->name, OCC_CC_NAME, &t->major, &t->minor) != 0)
    return OCC_TARGET_BAD_ARCH;
  if (occ_gpudb_find_cc(db, t->major, t->minor, &t->device, t->near, sizeof t->near) != 0)
    return OCC_TARGET_UNKNOWN_CC;
  return OCC_TARGET_FOUND;
}

occ_target_status occ_gpudb_resolve(const occ_gpudb *db, const occ_target_query *q,
                                    occ_target *t) {
  memset(t, 0, sizeof *t);
  t->by = occ_target_query_by(q);
  snprintf(t->default_gpu, sizeof t->default_gpu, "%s", occ_gpudb_default_gpu(db));
  switch (t->by) {
  case OCC_TARGET_BY_GPU: t->name = q->gpu; break;
  case OCC_TARGET_BY_ARCH: t->name = q->arch; break;
  case OCC_TARGET_BY_ENV: t->name = q->env_gpu; break;
  case OCC_TARGET_BY_DEFAULT: t->name = NULL; break;
  }
  if (t->by == OCC_TARGET_BY_ARCH)
    t->status = occ_target_arch_is_amd(q->arch) ? amd_arch(db, t) : capability(db, t);
  else
    t->status = board(db, t);
  return t->status;
}

occ_target_status occ_gpudb_select(const occ_target_query *q, occ_target *t) {
  char why[sizeof t->why];
  occ_gpudb *db = occ_gpudb_load(q->data_path, why, sizeof why);
  if (!db) {
    memset(t, 0, sizeof *t);
    t->by = occ_target_query_by(q);
    snprintf(t->why, sizeof t->why, "%s", why);
    return t->status = OCC_TARGET_LOAD_FAILED;
  }
  occ_gpudb_resolve(db, q, t);
  occ_gpudb_free(db);
  return t->status;
}
