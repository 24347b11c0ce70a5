/* select.h - the device a query names (a board, an architecture, an AMD
 * target, $OCCCALC_GPU's value or the database's default), resolved in
 * one place: on a loaded database (occ_gpudb_resolve) or in one call that
 * loads the database, resolves and frees it (occ_gpudb_select). Nothing
 * here prints: a failure comes back as a status and the facts a message
 * needs. */
#ifndef OCC_DB_SELECT_H
#define OCC_DB_SELECT_H

#include <stdbool.h>
#include <strings.h>

#include "db/gpudb.h"

/* The room for a loader's reason (occ_gpudb_load_file's err). */
#define OCC_TARGET_WHY_MAX 512

/* What to look for. The strings are the caller's and must outlive the
 * occ_target filled from them (its name may point into them). */
typedef struct occ_target_query {
  const char *data_path; /* a database file, or NULL for the built-in one */
  const char *gpu;       /* a board's name (NVIDIA's first, then AMD's) */
  const char *arch;      /* "sm_90", "9.0", "compute_90" or AMD's "gfx942" */
  const char *env_gpu;   /* $OCCCALC_GPU's value as read (NULL or "" for
                            unset): db reads no environment */
} occ_target_query;

/* Which part of the query chose the device (or failed to). */
typedef enum occ_target_by {
  OCC_TARGET_BY_GPU,     /* the query's gpu */
  OCC_TARGET_BY_ARCH,    /* the query's arch */
  OCC_TARGET_BY_ENV,     /* env_gpu, given neither gpu nor arch */
  OCC_TARGET_BY_DEFAULT, /* the database's default board */
} occ_target_by;

/* The outcome, in the order the lookups are made. */
typedef enum occ_target_status {
  OCC_TARGET_FOUND,
  OCC_TARGET_LOAD_FAILED,      /* the database did not load: why */
  OCC_TARGET_UNKNOWN_AMD_ARCH, /* a gfx arch AMD's table lacks: amd_near */
  OCC_TARGET_UNKNOWN_GPU,      /* a name neither vendor's boards have:
                                  near (NVIDIA's), amd_near */
  OCC_TARGET_BAD_ARCH,         /* arch is no compute capability's name */
  OCC_TARGET_UNKNOWN_CC,       /* major.minor is not in the database: near */
  OCC_TARGET_UNKNOWN_DEFAULT,  /* the default board is not NVIDIA's: near
                                  (the loader checks it, so a loaded
                                  database does not give it) */
} occ_target_status;

/* The resolved device, or why there is none. */
typedef struct occ_target {
  occ_target_status status;
  occ_target_by by;
  bool amd;            /* AMD's target: amd_gpu holds it, device does not */
  bool amd_board;      /* AMD's board (rather than an architecture) */
  occ_device device;   /* NVIDIA's, when found and !amd */
  occ_amd_gpu amd_gpu; /* arch always; name and cu_count for a board (an
                          architecture: the arch's name and cu_count -1) */
  /* The text looked up: points into the query (gpu, arch or env_gpu), or
   * is NULL for the default board, whose name is default_gpu. */
  const char *name;
  char default_gpu[OCC_NAME_MAX]; /* the database's default board */
  int major, minor;               /* arch's capability, once parsed */
  char near[256];     /* the nearest NVIDIA boards or capabilities */
  char amd_near[256]; /* the nearest AMD boards or targets */
  char why[OCC_TARGET_WHY_MAX]; /* OCC_TARGET_LOAD_FAILED: the loader's reason */
} occ_target;

/* Whether arch names an AMD target ("gfx942", any case) rather than an
 * NVIDIA capability. */
static inline bool occ_target_arch_is_amd(const char *arch) {
  return arch && strncasecmp(arch, "gfx", 3) == 0;
}

/* Which part of q chooses the device (the same rule occ_gpudb_resolve
 * follows): gpu, else arch, else a non-empty env_gpu, else the default.
 * (These predicates read the query's data inline: the command line asks
 * them without a call into the database.) */
static inline occ_target_by occ_target_query_by(const occ_target_query *q) {
  if (q->gpu) return OCC_TARGET_BY_GPU;
  if (q->arch) return OCC_TARGET_BY_ARCH;
  if (q->env_gpu && *q->env_gpu) return OCC_TARGET_BY_ENV;
  return OCC_TARGET_BY_DEFAULT;
}

/* The text the lookup looked for: t->name, or the default board's. */
static inline const char *occ_target_name(const occ_target *t) {
  return t->name ? t->name : t->default_gpu;
}

/* Resolves q on db (q->data_path is not read). An AMD arch is looked up
 * among AMD's targets; a board's name (gpu, env_gpu or the default) among
 * NVIDIA's boards and then AMD's (the default among NVIDIA's alone); an
 * NVIDIA arch is parsed (occ_parse_cc) and looked up by capability.
 * Fills *t and returns t->status. */
occ_target_status occ_gpudb_resolve(const occ_gpudb *db, const occ_target_query *q,
                                    occ_target *t);

/* Loads the database q names (q->data_path, else the built-in one),
 * resolves q on it and frees it: one call for a whole selection. Fills
 * *t (a load failure: OCC_TARGET_LOAD_FAILED with the reason in t->why)
 * and returns t->status. */
occ_target_status occ_gpudb_select(const occ_target_query *q, occ_target *t);

#endif
