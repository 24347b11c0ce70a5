/* gpudb_tables.h - the database's tables, private to src/db, its generator
 * (gpus_gen.c) and its tests. A database is these tables whether it was
 * parsed from JSON at run time (--data) or compiled in at build time
 * (build/gpus_table.c, generated from data/gpus.json by the same loader). */
#ifndef OCC_GPUDB_TABLES_H
#define OCC_GPUDB_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "core/amd.h"
#include "core/occ.h"
#include "db/gpudb.h"

#define OCC_GPUDB_ALIAS_MAX 8

/* One architecture (generic device of a compute capability) or board.
 * Strings are offsets into the tables' pool, and device.source is left
 * NULL (a copy handed out says "database"): the compiled-in tables hold no
 * pointer, so they need no relocation at start-up and stay in read-only,
 * shared pages of a position-independent executable. */
typedef struct occ_gpudb_entry {
  occ_device device;
  uint32_t family; /* "" when the entry names none */
  uint32_t source;
  int alias_count;
  /* What a name is matched against: the normalized name ([0]) and each
   * normalized alias (lower-case letters and digits, vendor words dropped).
   * Architectures have none (alias_count 0, match_keys[0] is ""). */
  uint32_t match_keys[OCC_GPUDB_ALIAS_MAX + 1];
} occ_gpudb_entry;

/* One AMD architecture or board (data/gpus.json's entries with "gfx").
 * A board holds a copy of its architecture; an architecture's name, cu_count
 * and match keys are empty. */
typedef struct occ_gpudb_amd_entry {
  occ_amd_arch arch;
  char name[OCC_NAME_MAX];
  int cu_count;
  int devices_per_board; /* HIP devices (GCDs) on the board */
  uint32_t family, source;
  int alias_count;
  uint32_t match_keys[OCC_GPUDB_ALIAS_MAX + 1];
} occ_gpudb_amd_entry;

typedef struct occ_gpudb_tables {
  const occ_gpudb_entry *archs, *gpus;
  size_t arch_count, gpu_count;
  const occ_gpudb_amd_entry *amd_archs, *amd_gpus;
  size_t amd_arch_count, amd_gpu_count;
  const char *strings; /* the pool: NUL-terminated strings, by offset */
  size_t strings_size;
  uint32_t default_gpu;
} occ_gpudb_tables;

/* The string at offset in the pool of t. */
static inline const char *occ_gpudb_string(const occ_gpudb_tables *t,
                                           uint32_t offset) {
  return t->strings + offset;
}

/* The tables of db; they live as long as db. */
const occ_gpudb_tables *occ_gpudb_tables_of(const occ_gpudb *db);

/* A database over tables that outlive it (occ_gpudb_free leaves them);
 * NULL with the reason in err when out of memory. */
occ_gpudb *occ_gpudb_from_tables(const occ_gpudb_tables *tables, char *err,
                                 size_t err_size);

/* data/gpus.json, compiled in (build/gpus_table.c). */
extern const occ_gpudb_tables occ_builtin_gpudb_tables;

#endif
