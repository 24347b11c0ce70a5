/* gpudb.h - the GPU database: architectures by compute capability and named
 * boards, loaded from JSON (data/gpus.json is built into the binary). */
#ifndef OCC_GPUDB_H
#define OCC_GPUDB_H

#include <stddef.h>

#include "core/amd.h"
#include "core/occ.h"

typedef struct occ_gpudb occ_gpudb;

/* Parses a database from text of len bytes; origin names it in errors.
 * Returns the database (free with occ_gpudb_free), or NULL with a one-line
 * reason in err ("FILE:LINE:COL: ..." or "FILE: gpus[3]: ..."). */
occ_gpudb *occ_gpudb_parse(const char *text, size_t len, const char *origin,
                           char *err, size_t err_size);

/* Reads and parses a file; NULL with a reason in err on failure. */
occ_gpudb *occ_gpudb_load_file(const char *path, char *err, size_t err_size);

/* The database built into the binary (data/gpus.json, compiled into C
 * tables at build time: no JSON is parsed). */
occ_gpudb *occ_gpudb_load_builtin(char *err, size_t err_size);

/* The database --data names (path), or the built-in one when path is
 * NULL: occ_gpudb_load_file or occ_gpudb_load_builtin. */
occ_gpudb *occ_gpudb_load(const char *path, char *err, size_t err_size);

void occ_gpudb_free(occ_gpudb *db);

/* The board used when none is named. */
const char *occ_gpudb_default_gpu(const occ_gpudb *db);

/* Finds a board by name, ignoring case, spaces and punctuation (and the
 * words NVIDIA, GeForce, Tesla). Fills *device; returns 0, or -1 and
 * writes the nearest known names, comma-separated, into near. */
int occ_gpudb_find_gpu(const occ_gpudb *db, const char *name,
                       occ_device *device, char *near, size_t near_size);

/* Finds the generic device of a compute capability. Returns 0, or -1 and
 * writes the nearest known capabilities into near. */
int occ_gpudb_find_cc(const occ_gpudb *db, int major, int minor,
                      occ_device *device, char *near, size_t near_size);

/* Listing: counts and the i-th board or architecture as a device. The
 * board's family and source are also returned (pointers live as long as
 * db). */
size_t occ_gpudb_gpu_count(const occ_gpudb *db);
size_t occ_gpudb_arch_count(const occ_gpudb *db);
void occ_gpudb_gpu_at(const occ_gpudb *db, size_t i, occ_device *device,
                      const char **family, const char **source);
void occ_gpudb_arch_at(const occ_gpudb *db, size_t i, occ_device *device,
                       const char **family, const char **source);

/* AMD: architectures by target name ("gfx942") and named boards
 * (data/gpus.json's entries with "gfx"), apart from the NVIDIA ones above:
 * occ_gpudb_find_gpu and the NVIDIA listing never return them. */
typedef struct occ_amd_gpu {
  char name[OCC_NAME_MAX];
  occ_amd_arch arch;
  int cu_count;          /* per HIP device */
  int devices_per_board; /* HIP devices (GCDs) on the board, usually 1 */
} occ_amd_gpu;

/* Finds an architecture by target name ("gfx942", "GFX942", with any
 * ":xnack-" style features after it ignored). Fills *arch; returns 0, or
 * -1 and writes the nearest known targets into near. */
int occ_gpudb_find_amd_arch(const occ_gpudb *db, const char *name,
                            occ_amd_arch *arch, char *near, size_t near_size);

/* Finds an AMD board by name or alias, matched as occ_gpudb_find_gpu
 * matches ("mi300x", "Instinct MI300X"). Returns 0, or -1 and writes the
 * nearest AMD board names into near. */
int occ_gpudb_find_amd_gpu(const occ_gpudb *db, const char *name,
                           occ_amd_gpu *gpu, char *near, size_t near_size);

size_t occ_gpudb_amd_arch_count(const occ_gpudb *db);
size_t occ_gpudb_amd_gpu_count(const occ_gpudb *db);
/* The i-th AMD architecture or board, with its family and source (they
 * live as long as db; either pointer may be NULL). */
void occ_gpudb_amd_arch_at(const occ_gpudb *db, size_t i, occ_amd_arch *arch,
                           const char **family, const char **source);
void occ_gpudb_amd_gpu_at(const occ_gpudb *db, size_t i, occ_amd_gpu *gpu,
                          const char **family, const char **source);

/* The whole database as plain data, for --list-gpus: every board and
 * architecture with its family and reference (strings that live as long
 * as the database). */
typedef struct occ_listed_gpu {
  occ_device device;
  const char *family, *reference;
} occ_listed_gpu;

typedef struct occ_listed_amd {
  occ_amd_gpu gpu;   /* an architecture's: its arch, no name, cu_count -1 */
  bool board;
  const char *family, *reference;
} occ_listed_amd;

typedef struct occ_gpu_catalog {
  occ_listed_gpu *gpus, *archs;
  size_t gpu_count, arch_count;
  occ_listed_amd *amd_gpus, *amd_archs;
  size_t amd_gpu_count, amd_arch_count;
  void *storage;     /* the one allocation the lists live in: free() it */
} occ_gpu_catalog;

/* Fills *catalog from db. Returns 0, or -1 when out of memory (catalog
 * then owns nothing). */
int occ_gpudb_catalog(const occ_gpudb *db, occ_gpu_catalog *catalog);

/* Checks device against the core's contract (occ_device_check). Returns
 * 0 when it holds; else -1 with the first field out of range and its
 * accepted range in out ("\"warp_size\" must be a power of two from 1 to
 * 64"). */
int occ_device_check_text(const occ_device *device, char *out, size_t size);

#endif
